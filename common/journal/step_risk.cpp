#include "wiredcap/journal/step_risk.hpp"

#include <algorithm>

#include "wiredcap/journal/record.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {

StepEffect step_effect(std::string_view e, std::optional<std::uint64_t> asked,
                       std::optional<std::uint64_t> to) noexcept {
    if (is_word(e, event::unchanged))
        return asked && to && *to != *asked ? StepEffect::settled : StepEffect::at_risk;
    if (is_word(e, event::intent) || is_word(e, event::applied) || is_word(e, event::mismatch) ||
        is_word(e, event::write_failed))
        return StepEffect::at_risk;
    if (is_word(e, event::confirmed) || is_word(e, event::revert_applied))
        return StepEffect::settled;
    return StepEffect::none;
}

bool is_forward_event(std::string_view event) noexcept {
    return step_effect(event, std::nullopt, std::nullopt) == StepEffect::at_risk;
}

void RunSteps::add(std::uint64_t step, std::string_view event, std::optional<std::uint64_t> to,
                   std::optional<std::uint64_t> readback) {
    Step& s = steps_[step];
    switch (step_effect(event, s.asked, to)) {
        case StepEffect::at_risk:
            if (!s.asked) s.asked = to ? to : readback;
            s.at_risk = true;
            break;
        case StepEffect::settled: s.at_risk = false; break;
        case StepEffect::none: break;
    }
}

bool RunSteps::settled() const noexcept {
    return std::none_of(steps_.begin(), steps_.end(),
                        [](const auto& s) { return s.second.at_risk; });
}

}  // namespace wiredcap::journal
