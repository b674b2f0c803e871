// A sequence that only grows, kept in chunks of a fixed count: an element stays where it was
// made, and growing copies nothing. The journal's replay holds every run and step of the journal
// (thousands: recovery.cpp); a vector's growth by doubling copied them all again, each time into
// fresh memory, and page faults are a good part of `status`'s time (bench/journal_scale.sh: some 11 us
// each on the machine the bench runs on). An element is made only when it is added, so memory
// not yet used is not touched (not faulted in) either.
#pragma once

#include <cstddef>
#include <memory>
#include <new>
#include <type_traits>
#include <vector>

namespace wiredcap::journal {

template <class T, std::size_t kChunk>
class Chunked {
    // Elements are never destroyed one by one: the chunks' memory is simply freed.
    static_assert(std::is_trivially_destructible_v<T>);

public:
    [[nodiscard]] std::size_t size() const { return size_; }
    T& operator[](std::size_t i) { return *element(i); }
    const T& operator[](std::size_t i) const { return *const_cast<Chunked*>(this)->element(i); }
    // A new element, value-initialised (T{}), at the end.
    T& emplace_back() {
        if (size_ % kChunk == 0) chunks_.push_back(std::make_unique_for_overwrite<Chunk>());
        T* const made =
            ::new (static_cast<void*>(chunks_.back()->bytes + (size_ % kChunk) * sizeof(T))) T{};
        ++size_;
        return *made;
    }

private:
    struct Chunk {
        alignas(T) std::byte bytes[sizeof(T) * kChunk];
    };
    T* element(std::size_t i) {
        return std::launder(
            reinterpret_cast<T*>(chunks_[i / kChunk]->bytes + (i % kChunk) * sizeof(T)));
    }

    std::vector<std::unique_ptr<Chunk>> chunks_;
    std::size_t size_ = 0;
};

}  // namespace wiredcap::journal
