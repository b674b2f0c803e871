#include "wiredcap/helper/journal/hang_ceiling.hpp"

#include <new>
#include <utility>

#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/journal/classifier.hpp"

namespace wiredcap::journal {
namespace {

// The journal text through the classifier, record by record as the helper reads them.
Classifier classified(std::string_view text, std::string_view current_boot) {
    Classifier c(current_boot);
    for_each_record(text, [&c](std::string_view line) {
        if (const auto r = record_of(line)) c.add(*r);
    });
    return c;
}

// An answer of the classifier on the journal text, or nothing when it cannot finish (out of memory).
template <class Answer>
auto answered(std::string_view text, std::string_view current_boot, Answer answer) noexcept
    -> std::optional<decltype(answer(std::declval<const Classifier&>()))> {
    try {
        return answer(classified(text, current_boot));
    } catch (const std::bad_alloc&) {
        return std::nullopt;
    }
}

}  // namespace

Ceiling find_hang_ceiling(std::string_view text, std::string_view current_boot, bool stored_value) noexcept {
    const auto who = stored_value ? Classifier::For::stored_value : Classifier::For::any_writer;
    return answered(text, current_boot, [who](const Classifier& c) {
               const auto report = c.finish(who);
               const auto* open = open_step(report);
               return Ceiling{true, report.hang_ceiling ? std::optional(report.hang_ceiling->value) : std::nullopt,
                              open ? std::optional(open->at) : std::nullopt};
           }).value_or(Ceiling{});
}

std::optional<Standing> find_standing(std::string_view text, units::MiB value) noexcept {
    return answered(text, "", [value](const Classifier& c) { return c.standing(value); });
}

std::optional<units::MiB> find_own_apply(std::string_view text, std::string_view run, std::uint64_t step, std::uint64_t uid,
                                         std::string_view boot) noexcept {
    return answered(text, boot, [&](const Classifier& c) { return c.own_apply(run, step, uid); }).value_or(std::nullopt);
}

bool is_open_suspect(std::string_view text, std::string_view boot, units::MiB value, std::string_view current_boot,
                     bool root) noexcept {
    return answered(text, current_boot, [&](const Classifier& c) { return c.may_answer(boot, value, root); }).value_or(false);
}

}  // namespace wiredcap::journal
