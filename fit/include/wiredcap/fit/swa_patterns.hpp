// Which layers of a model attend within a sliding window, when the model's files give the
// window but not the layers. llama.cpp builds these patterns into its code per architecture;
// wiredcap keeps the same short table. An architecture not in it has every layer counted at
// the full context: an overestimate, stated as such, never an underestimate.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

namespace wiredcap::fit {

// The period N of the pattern "N-1 sliding-window layers, then one full layer" for `arch`.
[[nodiscard]] std::optional<std::uint64_t> builtin_swa_period(std::string_view arch);

// Per layer, sliding or not, for a period N as above (llama.cpp's set_swa_pattern): N == 0
// makes every layer sliding, N == 1 none.
[[nodiscard]] std::vector<bool> swa_layers_of_period(std::uint64_t layers, std::uint64_t period);

}  // namespace wiredcap::fit
