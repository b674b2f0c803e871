// What needs a person, first in `wiredcap status`: a boot guard that tripped (or a boot action
// that failed: every start may hang), a hang that binds, a suspect no person has judged, and a
// ramp step open in this boot. Each with the one command that settles it (or, for a hang, that tells the two ways
// forward); text output prints them as its first lines, --json as `needs_attention`.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "wiredcap/cli/commands/status_readings.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

struct Attention {
    std::string kind;  // hang | suspect | open_step | boot_guard
    std::optional<units::MiB> value;
    std::string text;     // one paragraph, without the command
    std::string command;  // what settles it: a command line wiredcap accepts
};

// In that order.
[[nodiscard]] std::vector<Attention> needs_attention(const StatusReadings& s);

// One line each, before anything else: "HANG: ... Run: wiredcap recover".
void render_attention(const std::vector<Attention>& items, std::ostream& out);

// The JSON array of wiredcap.status/2's needs_attention (docs/schema/status-2.json).
[[nodiscard]] std::string attention_json(const std::vector<Attention>& items);

}  // namespace wiredcap::cli
