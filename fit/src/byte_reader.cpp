#include "wiredcap/fit/byte_reader.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace wiredcap::fit {
namespace {
// Large enough that a tokenizer's hundred thousand short strings are few preads; small enough
// that the read past the end of a header is a rounding error next to the weights.
constexpr std::size_t kChunk = 64 * 1024;
}  // namespace

ByteReader ByteReader::of_memory(std::span<const std::byte> bytes) {
    ByteReader r;
    r.memory_ = bytes.data();
    r.size_ = bytes.size();
    return r;
}

ByteReader ByteReader::of_file(int fd, std::uint64_t size) {
    ByteReader r;
    r.fd_ = fd;
    r.size_ = size;
    return r;
}

// Loads the chunk that starts at `at` (file case).
bool ByteReader::fill(std::uint64_t at) {
    const std::uint64_t want = std::min<std::uint64_t>(kChunk, size_ - at);
    chunk_.resize(want);
    std::size_t got = 0;
    while (got < want) {
        const ssize_t n =
            ::pread(fd_, chunk_.data() + got, want - got, static_cast<off_t>(at + got));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            chunk_.clear();
            return false;
        }
        got += static_cast<std::size_t>(n);
    }
    chunk_at_ = at;
    bytes_read_ += got;
    return true;
}

bool ByteReader::read(void* dst, std::size_t n) {
    if (n > remaining()) return false;
    auto* out = static_cast<std::byte*>(dst);
    if (memory_ != nullptr) {
        if (n != 0) std::memcpy(out, memory_ + offset_, n);
        offset_ += n;
        return true;
    }
    std::uint64_t at = offset_;
    std::size_t done = 0;
    while (done < n) {
        if (at < chunk_at_ || at >= chunk_at_ + chunk_.size())
            if (!fill(at)) return false;
        const std::size_t from = static_cast<std::size_t>(at - chunk_at_);
        const std::size_t take = std::min(n - done, chunk_.size() - from);
        std::memcpy(out + done, chunk_.data() + from, take);
        done += take;
        at += take;
    }
    offset_ = at;
    return true;
}

bool ByteReader::skip(std::uint64_t n) {
    if (n > remaining()) return false;
    offset_ += n;
    return true;
}

}  // namespace wiredcap::fit
