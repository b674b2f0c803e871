// The journal's upkeep, root's and nobody else's: wiredcap-system runs it at boot and every
// minute (the boot LaunchDaemon's StartInterval), and `wiredcap-system compact` on demand. The
// setuid helper only appends (within journal::kMemberBound for callers other than root), so
// no caller's command ever pays for, or can interrupt, a compaction.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::journal {

struct Upkeep {
    bool compacted = false;
    std::size_t bytes_before = 0;
    std::size_t bytes_after = 0;
    std::size_t records = 0;      // complete lines before
    std::size_t kept = 0;         // of them, the ones the journal still holds
    bool retry = false;           // not compacted: records added meanwhile touch a run it would cut
    std::uint64_t locked_ms = 0;  // how long it held the helper's lock
};

// Compacts the journal `w` holds when it is due (compaction_due) and that saves kCompactSaving,
// or, with `always`, whenever it saves anything; runs abandoned before the boot `s` names are
// closed (compaction.hpp). What to keep is decided without the helper's lock; the lock (taken
// here, waiting at most `lock_wait`, unless `w` holds it already) is held only to carry over
// what was added meanwhile and swap the files. A compaction is recorded (`journal`
// `compacted`, stamped `s`). An error leaves the journal whole.
[[nodiscard]] Expected<Upkeep> keep_up(
    Writer& w, const Stamp& s, bool always = false,
    std::chrono::milliseconds lock_wait = std::chrono::milliseconds(3000));

}  // namespace wiredcap::journal
