// Whether one step of a run is at risk, by its own records: the one rule the classifier, the
// compaction's keep rule and the helper's run bound follow (docs/design.md, "One classifier").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>

namespace wiredcap::journal {

// What one record does to its step. A forward record (intent, applied, unchanged, mismatch,
// write_failed) puts it at risk; a confirmation or a completed revert settles it, and so does an
// `unchanged` naming another value than the step asked for (a revert that found its target in
// force). Anything else (a refusal, a failed revert) leaves it as it was. `asked` is the value
// the step's first forward record asked for (none before one), `to` the record's.
enum class StepEffect { none, at_risk, settled };
[[nodiscard]] StepEffect step_effect(std::string_view event, std::optional<std::uint64_t> asked,
                                     std::optional<std::uint64_t> to) noexcept;

// Whether the event is a forward one, whatever step it is of.
[[nodiscard]] bool is_forward_event(std::string_view event) noexcept;

// The steps of one run followed through their records (MiB as the journal writes them).
class RunSteps {
public:
    void add(std::uint64_t step, std::string_view event, std::optional<std::uint64_t> to,
             std::optional<std::uint64_t> readback);
    // No step at risk (a step with no forward record never was).
    [[nodiscard]] bool settled() const noexcept;

private:
    struct Step {
        std::optional<std::uint64_t> asked;
        bool at_risk = false;
    };
    std::map<std::uint64_t, Step> steps_;
};

}  // namespace wiredcap::journal
