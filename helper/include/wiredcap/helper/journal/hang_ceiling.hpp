// The journal's answers every privileged writer checks before it writes, from the one classifier
// (wiredcap/journal/classifier.hpp, which status and recover read too): the hang ceiling (apply,
// persist, the boot action, Linux trials), a step still open in this boot, whether a value may be
// stored as confirmed (persist), and whether a suspect awaits this caller's answer
// (verdict). The journal text is the helper's own (journal/record_fields.hpp, read_journal).
// Nothing here throws: when the classifier cannot finish (out of memory), the answer is unknown
// and the caller refuses.
#pragma once

#include <optional>
#include <string_view>

#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

struct Ceiling {
    bool known = false;               // false: the journal could not be classified; refuse
    std::optional<units::MiB> value;  // the lowest value that binds; none recorded
    std::optional<StepRef> open_step; // a run's step open in this boot (journal::open_step)
};

// The lowest value that hung, for any writer; with `stored_value`, for the boot action applying
// the value stored for boot (hangs a person overrode when storing it do not bind it).
[[nodiscard]] Ceiling find_hang_ceiling(std::string_view journal_text, std::string_view current_boot,
                                        bool stored_value = false) noexcept;

// What a `confirm` may confirm (Classifier::own_apply): only a ramp step this helper applied and
// read back, in this boot, for the same caller and run. A confirmation is what `persist` (and the
// boot action after it) trusts as "reached step by step and kept": a caller's own word for a step
// that never ran would let it store any value in the band for boot, past max_step.
// The step is `run`'s `step`; `uid` is the caller's (another user's step is not its to confirm),
// `boot` the current one (a step from before a reboot may have hung it).
[[nodiscard]] std::optional<units::MiB> find_own_apply(std::string_view journal_text, std::string_view run, std::uint64_t step,
                                                      std::uint64_t uid, std::string_view boot) noexcept;

// Whether `value` may be stored for boot as confirmed (Classifier::standing); nothing when the
// journal could not be classified.
[[nodiscard]] std::optional<Standing> find_standing(std::string_view journal_text, units::MiB value) noexcept;

// Whether `value` in the earlier boot `boot` is a suspect this caller may answer
// (Classifier::may_answer); false also when the journal could not be classified.
[[nodiscard]] bool is_open_suspect(std::string_view journal_text, std::string_view boot, units::MiB value,
                                   std::string_view current_boot, bool root) noexcept;

}  // namespace wiredcap::journal
