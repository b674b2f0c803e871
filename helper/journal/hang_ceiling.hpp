// The journal's answers every privileged writer checks before it writes, from the one classifier
// (wiredcap/journal/classifier.hpp, which status and recover read too): the hang ceiling (apply,
// persist, the boot action, Linux trials) and whether a suspect awaits this caller's answer
// (verdict). The journal text is the helper's own (journal/record_fields.hpp, read_journal).
// Nothing here throws: when the classifier cannot finish (out of memory), the answer is unknown
// and the caller refuses.
#pragma once

#include <optional>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

struct Ceiling {
    bool known = false;               // false: the journal could not be classified; refuse
    std::optional<units::MiB> value;  // the lowest value that binds; none recorded
};

// The lowest value that hung, for any writer; with `stored_value`, for the boot action applying
// the value stored for boot (hangs a person overrode when storing it do not bind it).
[[nodiscard]] Ceiling find_hang_ceiling(std::string_view journal_text, std::string_view current_boot,
                                        bool stored_value = false) noexcept;

// Whether `value` in the earlier boot `boot` is a suspect this caller may answer
// (Classifier::may_answer); false also when the journal could not be classified.
[[nodiscard]] bool is_open_suspect(std::string_view journal_text, std::string_view boot, units::MiB value,
                                   std::string_view current_boot, bool root) noexcept;

}  // namespace wiredcap::journal
