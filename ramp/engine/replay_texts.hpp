// The texts the journal's replay keeps from record to record (a step's time and boot, a run's
// id, its end's reason), all in a few large blocks instead of a std::string each: a time is
// longer than std::string holds inline, so each was an allocation, and a freeing at the end,
// for every step of every run of the journal (a third of the replay's instructions on a 1.5 MiB
// journal, callgrind, issue 25 point 4). Nothing is freed until the replay is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace wiredcap::recovery {

// A text in a ReplayTexts' block: stays where it is while its ReplayTexts lives, even when that is
// moved (the blocks are on the heap).
class Text {
public:
    [[nodiscard]] std::string_view view() const { return {data_, size_}; }
    friend bool operator==(const Text& a, const Text& b) { return a.view() == b.view(); }

private:
    friend class ReplayTexts;
    char* data_ = nullptr;
    std::size_t size_ = 0;
};

class ReplayTexts {
public:
    // `to` becomes a copy of `from`: written over in place when as long (a step's time, rewritten
    // by its every record, is), else copied anew (what it held before stays unused until the end).
    void set(Text& to, std::string_view from) {
        if (from.size() != to.size_) {
            to.data_ = room(from.size());
            to.size_ = from.size();
        }
        if (!from.empty()) std::memcpy(to.data_, from.data(), from.size());
    }

private:
    static constexpr std::size_t kBlock = 64 * 1024;

    char* room(std::size_t n) {
        if (n > left_) {
            // A text longer than a block (a line may be 1 MiB) gets a block of its own.
            const std::size_t size = n > kBlock ? n : kBlock;
            blocks_.push_back(std::make_unique_for_overwrite<char[]>(size));
            next_ = blocks_.back().get();
            left_ = size;
        }
        char* const at = next_;
        next_ += n;
        left_ -= n;
        return at;
    }

    std::vector<std::unique_ptr<char[]>> blocks_;
    char* next_ = nullptr;
    std::size_t left_ = 0;
};

}  // namespace wiredcap::recovery
