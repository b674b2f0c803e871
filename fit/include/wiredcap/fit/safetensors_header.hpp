// The header of one .safetensors file: an 8-byte little-endian length, then that many bytes of
// JSON naming each tensor's dtype, shape and byte range (data_offsets) in the data that
// follows. Only the header is read; every range is checked against the shape, the file and the
// other ranges before its size counts.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "wiredcap/fit/byte_reader.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

struct SafetensorsHeader {
    std::uint64_t tensor_count = 0;
    units::Bytes tensor_bytes = units::Bytes::zero();  // the sum of the data_offsets ranges
    // "__metadata__": its string values, within SafetensorsLimits (the rest passed over).
    std::map<std::string, std::string> metadata;
};

// The safetensors project's own limit on the JSON header (100 MB); a larger one is refused
// before anything is allocated for it.
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;

// Limits that keep a header at that size from costing more than a real one, whatever it holds
// (bench/fit_hostile.sh measures it): the header is streamed, long strings and whitespace pass
// the JSON parser cut short, and memory goes only to what is kept. A real file names at most
// tens of thousands of tensors (DeepSeek-V3's 91,991 would fit in one), each entry a dozen
// values (name, dtype, shape and offsets: the keys, the numbers and the two arrays) in about
// 150 bytes.
struct SafetensorsLimits {
    std::uint64_t max_tensors = 1u << 17;
    std::uint64_t max_values = 16u << 17;     // sixteen a tensor
    std::uint64_t max_parsed = 24u << 20;     // bytes the JSON parser sees (json_stream.hpp)
    std::size_t max_metadata_string = 4096;   // longer __metadata__ values are not kept
    std::size_t max_metadata_entries = 1024;  // nor keys past this many
};

[[nodiscard]] Expected<SafetensorsHeader> parse_safetensors(ByteReader& in,
                                                            const SafetensorsLimits& limits = {});

}  // namespace wiredcap::fit
