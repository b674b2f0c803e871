// Durations on the command line (`--timeout 60s`, `--probe-timeout 2m`) and in the policy file
// (`healthy_after = 10m`): digits and a unit, s or m, like sizes never guessed: a bare number is
// an error. At least 1 s, at most 24 hours.
#pragma once

#include <chrono>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap::units {

inline constexpr std::chrono::seconds kMaxDuration{24 * 60 * 60};

[[nodiscard]] Expected<std::chrono::seconds> parse_duration(std::string_view text);

}  // namespace wiredcap::units
