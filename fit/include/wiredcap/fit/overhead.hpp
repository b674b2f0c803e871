// What a runtime needs beyond weights and KV cache: compute buffers (llama.cpp's Metal compute
// buffer is a few hundred MiB at its default batch sizes and grows with the vocabulary and
// the context), the output logits, and the runtime's own allocations. wiredcap does not
// measure it: it allows a fixed amount and says so wherever the figure appears.
#pragma once

#include <string_view>

#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

inline constexpr units::Bytes kOverhead = units::GiB::from_count_or_throw(1);
inline constexpr std::string_view kOverheadSource =
    "estimate: fixed 1 GiB for compute buffers and runtime, not measured";

}  // namespace wiredcap::fit
