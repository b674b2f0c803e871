// Sequential, bounds-checked reads of a model file's header, from a file (pread, on demand) or
// from memory (tests, fuzzers). A model file is untrusted input: every read says whether the
// bytes were there, nothing is read beyond what the parser asks for, and the weights that
// follow a header are never read at all.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "wiredcap/expected.hpp"

namespace wiredcap::fit {

class ByteReader {
public:
    // Over bytes in memory; size() is their length.
    static ByteReader of_memory(std::span<const std::byte> bytes);
    // Over an open file of `size` bytes (the caller keeps fd open while reading).
    static ByteReader of_file(int fd, std::uint64_t size);

    // Copies n bytes from the current offset and advances; false (and no advance) when the
    // source ends first or the read fails.
    [[nodiscard]] bool read(void* dst, std::size_t n);
    // Advances without reading (a string or array the parser does not need).
    [[nodiscard]] bool skip(std::uint64_t n);
    [[nodiscard]] std::uint64_t offset() const { return offset_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }
    [[nodiscard]] std::uint64_t remaining() const { return size_ - offset_; }
    // Bytes actually copied from the file so far (the proof that the weights were not read).
    [[nodiscard]] std::uint64_t bytes_read() const { return bytes_read_; }

private:
    ByteReader() = default;
    bool fill(std::uint64_t at);

    const std::byte* memory_ = nullptr;
    int fd_ = -1;
    std::uint64_t size_ = 0;
    std::uint64_t offset_ = 0;
    std::uint64_t bytes_read_ = 0;
    // The file case reads in chunks: a header is many small fields.
    std::vector<std::byte> chunk_;
    std::uint64_t chunk_at_ = 0;
};

}  // namespace wiredcap::fit
