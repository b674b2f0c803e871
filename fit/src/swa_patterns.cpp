#include "wiredcap/fit/swa_patterns.hpp"

#include <array>
#include <utility>

namespace wiredcap::fit {

std::optional<std::uint64_t> builtin_swa_period(std::string_view arch) {
    // GGUF architecture names and Hugging Face model_type names both appear here.
    constexpr std::array<std::pair<std::string_view, std::uint64_t>, 8> table{{
        {"gemma2", 2},
        {"gemma3", 6},
        {"gemma3_text", 6},
        {"gpt-oss", 2},
        {"gpt_oss", 2},
        {"cohere2", 4},
        {"gemma3n", 5},
        {"gemma3n_text", 5},
    }};
    for (const auto& [name, period] : table)
        if (name == arch) return period;
    return std::nullopt;
}

std::vector<bool> swa_layers_of_period(std::uint64_t layers, std::uint64_t period) {
    std::vector<bool> sliding(layers, period == 0);
    if (period == 0) return sliding;
    for (std::uint64_t i = 0; i < layers; ++i) sliding[i] = i % period < period - 1;
    return sliding;
}

}  // namespace wiredcap::fit
