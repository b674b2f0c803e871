// The helper's own lock, held by a journaled command from its first record to its last, so two
// helpers never interleave a journal append with its size check or its undo, nor a
// read-modify-write of the boot state.
//
// It is a directory, `.lock`, inside the journal directory: root's, mode 0700. No other user can
// open it (flock needs an open descriptor), and a directory cannot be hard-linked. The journal
// directory (0755) and the journal (0644) are readable by everyone for `wiredcap status`, so a
// lock on either could be held by any user, and root's `reset` would wait on them.
//
// The wait is bounded: LOCK_NB polled until a deadline. Only root's helpers ever hold the lock,
// for milliseconds; the bound is for one that its caller stopped (SIGSTOP cannot be blocked).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <string>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::journal {

class Lock {
public:
    // Takes the lock in `dir_fd` (the journal directory, named `dir` in messages), creating the
    // lock directory first if needed, waiting at most `wait`.
    [[nodiscard]] static Expected<Lock> take(int dir_fd, const std::string& dir, uid_t owner,
                                             std::chrono::milliseconds wait);

private:
    explicit Lock(UniqueFd fd) : fd_(std::move(fd)) {}
    UniqueFd fd_;  // the lock goes with the descriptor
};

}  // namespace wiredcap::journal
