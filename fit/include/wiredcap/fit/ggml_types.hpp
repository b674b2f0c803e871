// The tensor types a GGUF file may name, with the block each is stored in: `elements` values
// packed into `bytes` bytes (ggml's type traits). A tensor's size is exact arithmetic on these.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace wiredcap::fit {

struct GgmlType {
    std::string_view name;
    std::uint32_t elements;  // values per block
    std::uint32_t bytes;     // bytes per block
};

// nullopt: an id ggml never assigned or has removed (its size is unknown, so the file is refused
// rather than guessed at).
[[nodiscard]] std::optional<GgmlType> ggml_type(std::uint32_t id);

// Bytes of one row of `n` values of `type`; nullopt when n is not a whole number of blocks or
// the size overflows.
[[nodiscard]] std::optional<std::uint64_t> ggml_row_bytes(const GgmlType& type, std::uint64_t n);

}  // namespace wiredcap::fit
