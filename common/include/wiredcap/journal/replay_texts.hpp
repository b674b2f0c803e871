// The texts the journal's replay keeps from record to record (a step's time and boot, a run's
// id, its end's reason), all in a few large blocks instead of a std::string each: a time is
// longer than std::string holds inline, so each was an allocation, and a freeing at the end,
// for every step of every run of the journal (a third of the replay's instructions on a 1.5 MiB
// journal, callgrind, bench/journal_scale.sh). Nothing is freed until the replay is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <vector>

namespace wiredcap::journal {

// A text in a ReplayTexts' block: stays where it is while its ReplayTexts lives, even when that is
// moved (the blocks are on the heap).
class Text {
public:
    [[nodiscard]] std::string_view view() const { return {data_, size_}; }
    // Whether it holds `s`: compared a word at a time, inline (a run's id against nearly every
    // record's was a call to std::string_view::compare each time: callgrind).
    [[nodiscard]] bool is(std::string_view s) const {
        if (s.size() != size_) return false;
        const char* const a = data_;
        const char* const b = s.data();
        const std::size_t n = size_;
        if (n >= 8) {
            for (std::size_t at = 0; at + 8 < n; at += 8)
                if (word<std::uint64_t>(a + at) != word<std::uint64_t>(b + at)) return false;
            return word<std::uint64_t>(a + n - 8) == word<std::uint64_t>(b + n - 8);
        }
        if (n >= 4)
            return word<std::uint32_t>(a) == word<std::uint32_t>(b) &&
                   word<std::uint32_t>(a + n - 4) == word<std::uint32_t>(b + n - 4);
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    friend bool operator==(const Text& a, const Text& b) { return a.is(b.view()); }

private:
    template <class Word>
    static Word word(const char* p) {
        Word w{};
        std::memcpy(&w, p, sizeof w);
        return w;
    }

    friend class ReplayTexts;
    char* data_ = nullptr;
    std::size_t size_ = 0;
};

class ReplayTexts {
public:
    // `to` becomes a copy of `from`: written over in place when as long (a step's time, rewritten
    // by its every record, is), else copied anew (what it held before stays unused until the end).
    [[gnu::always_inline]] void set(Text& to, std::string_view from) {
        if (from.size() != to.size_) {
            to.data_ = room(from.size());
            to.size_ = from.size();
        }
        copy_bytes(to.data_, from.data(), from.size());
    }

private:
    static constexpr std::size_t kBlock = 64 * 1024;

    // A time or a boot id (a UUID: 36 bytes) copied a word at a time, the last word overlapping the
    // one before, inline: a call to memcpy for each was a fifth of the replay (callgrind).
    [[gnu::always_inline]] static void copy_bytes(char* to, const char* from, std::size_t n) {
        auto words = [&](std::size_t at) {
            std::uint64_t a = 0, b = 0;
            std::memcpy(&a, from + at, 8);
            std::memcpy(&b, from + at + 8, 8);
            std::memcpy(to + at, &a, 8);
            std::memcpy(to + at + 8, &b, 8);
        };
        if (n >= 16 && n <= 48) {
            for (std::size_t at = 0; at + 16 < n; at += 16) words(at);
            words(n - 16);
        } else if (n >= 8 && n < 16) {
            std::uint64_t a = 0, b = 0;
            std::memcpy(&a, from, 8);
            std::memcpy(&b, from + n - 8, 8);
            std::memcpy(to, &a, 8);
            std::memcpy(to + n - 8, &b, 8);
        } else if (n != 0) {
            std::memcpy(to, from, n);
        }
    }

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

}  // namespace wiredcap::journal
