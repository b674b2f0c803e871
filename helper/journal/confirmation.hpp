// Whether a value was confirmed in a ramp on this machine, per the journal: the check behind
// `persist`, which stores a value for boot only when a person (or a ramp's check) kept it.
// (The hang ceiling every writer checks is in journal/hang_ceiling.hpp.)
//
// The helper reads only what it wrote itself, so it matches its own record format exactly
// instead of parsing JSON: a confirmation is a line of the form
//   {"v":1,...,"command":"confirm","event":"confirmed","run":"R","step":N,"readback_mib":V}
// and a boot trip (the boot guard found that a boot with value T never became healthy) is a line
// with "command":"boot","event":"tripped" and "to_mib":T. A trip at T withdraws every earlier
// confirmation of a value at or above T: a value that may have hung is not stored for boot again
// unless a later ramp confirms it. Strings in records are escaped (json_writer), so no reason
// text can contain these key sequences. Torn or unfamiliar lines never match.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

struct Confirmation {
    std::string run;
    std::uint64_t step;
};

// What the journal says about storing `value` for boot: its latest standing confirmation, if
// any, and whether a boot with a value at or below it tripped the guard since that confirmation
// (without one: ever). A vouched value needs no confirmation, but a trip still withdraws it.
struct Standing {
    std::optional<Confirmation> confirmation;
    bool tripped = false;
};

// Over journal text (journal/record_fields.hpp: read_journal; an empty journal has none).
[[nodiscard]] Standing find_standing(std::string_view journal_text, units::MiB value);

}  // namespace wiredcap::journal
