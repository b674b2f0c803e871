// A sequence that only grows, kept in chunks of a fixed count: an element stays where it was
// made, and growing copies nothing. The journal's replay holds every run and step of the journal
// (thousands: recovery.cpp); a vector's growth by doubling copied them all again, each time into
// fresh memory, and page faults are a good part of `status`'s time (issue 25 point 4).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

namespace wiredcap::recovery {

template <class T, std::size_t kChunk>
class Chunked {
public:
    [[nodiscard]] std::size_t size() const { return size_; }
    T& operator[](std::size_t i) { return chunks_[i / kChunk][i % kChunk]; }
    const T& operator[](std::size_t i) const { return chunks_[i / kChunk][i % kChunk]; }
    // A new element, value-initialised (T{}), at the end.
    T& emplace_back() {
        if (size_ % kChunk == 0) chunks_.push_back(std::make_unique<T[]>(kChunk));
        return (*this)[size_++];
    }

private:
    std::vector<std::unique_ptr<T[]>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace wiredcap::recovery
