// The first thing the helper does, before it opens, reads or allocates anything that matters
// (docs/design.md section 8): make the process state the caller handed over harmless.
#pragma once

#include <sys/types.h>

namespace wiredcap::process {

// Makes the process state the caller handed over harmless: descriptors, environment, umask,
// core dumps, signals (docs/design.md, "The process state a caller hands over"). False when the
// process cannot be made safe: the caller must exit.
[[nodiscard]] bool harden() noexcept;

// Raises the resource limits a caller can lower and the helper cannot live with (same section).
// nullptr when all are fine, else the JSON line of a clean refusal (exit 1).
[[nodiscard]] const char* raise_limits() noexcept;

// Once the caller is known (identity::current_caller): a setuid helper (effective uid 0)
// becomes root in every uid, real and saved too, so that its caller can no longer signal it
// (kill(2) needs the sender's uid to match the target's real or saved uid: SIGSTOP, SIGKILL,
// SIGCONT and ptrace are refused with EPERM), and resets the scheduling and I/O priority a caller
// can lower (nice 19, the idle I/O class) so that a helper holding the lock is not starved. A
// no-op for an unprivileged run. False when root could not be taken: the helper must exit.
[[nodiscard]] bool become_root_entirely() noexcept;

// Gives up root for good: every gid becomes `gid` and every uid `uid` (the caller's, read before
// become_root_entirely). False when root could not be given up, or could be regained.
[[nodiscard]] bool drop_root(uid_t uid, gid_t gid) noexcept;

// True when the kernel marked this exec as secure (setuid/setgid, or gained capabilities):
// then no environment variable and no development option may choose a path or a backend.
[[nodiscard]] bool is_secure_exec() noexcept;

}  // namespace wiredcap::process
