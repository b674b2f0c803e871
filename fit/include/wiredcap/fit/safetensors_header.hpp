// The header of one .safetensors file: an 8-byte little-endian length, then that many bytes of
// JSON naming each tensor's dtype, shape and byte range (data_offsets) in the data that
// follows. Only the header is read; every range is checked against the shape, the file and the
// other ranges before its size counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "wiredcap/fit/byte_reader.hpp"
#include "wiredcap/units/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

struct SafetensorsHeader {
    std::uint64_t tensor_count = 0;
    units::Bytes tensor_bytes = units::Bytes::zero();  // the sum of the data_offsets ranges
    std::map<std::string, std::string> metadata;       // "__metadata__" (string values only)
};

// The safetensors project's own limit on the JSON header (100 MB); a larger one is refused
// before anything is allocated for it.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

[[nodiscard]] Expected<SafetensorsHeader> parse_safetensors(ByteReader& in);

}  // namespace wiredcap::fit
