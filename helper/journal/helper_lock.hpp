// The helper's own lock, held by a journaled command from its first record to its last, so two
// helpers never interleave a journal append with its size check or its undo, nor a
// read-modify-write of the boot state.
//
// It is a directory, `.lock`, inside the journal directory: root's, mode 0700. No other user can
// open it (flock needs an open descriptor), and a directory cannot be hard-linked. The journal
// directory (0755) and the journal (0644) are readable by everyone for `wiredcap status`, so a
// lock on either could be held by any user, and root's `reset` would wait on them.
//
// The wait is bounded: LOCK_NB polled until a deadline. A helper holds the lock for
// milliseconds, but a member can slow its own helper down without limit (a cgroup's cpu.max or
// freezer, which no helper can leave): root never waits for that. Root's helpers mark the lock
// as root's while they hold it (`.lock/root`); root, finding the lock held past a short wait
// without that mark, goes on without it, and the member's command backs off when it sees root's
// records (Writer::appended_by_another).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/units/expected.hpp"

namespace wiredcap::journal {

class Lock {
public:
    // Takes the lock in `dir_fd` (the journal directory, named `dir` in messages), creating the
    // lock directory first if needed, waiting at most `wait`. For root (`root`), marked as root's;
    // and once `for_member` has passed with the lock held by a member's helper: no lock, no error.
    [[nodiscard]] static Expected<std::optional<Lock>> take(int dir_fd, const std::string& dir, uid_t owner,
                                                            std::chrono::milliseconds wait, bool root,
                                                            std::chrono::milliseconds for_member);

private:
    Lock(UniqueFd fd, UniqueFd mark) : fd_(std::move(fd)), mark_(std::move(mark)) {}
    UniqueFd fd_;    // the lock goes with the descriptor
    UniqueFd mark_;  // root's helper: `.lock/root`, locked while it holds the lock
};

}  // namespace wiredcap::journal
