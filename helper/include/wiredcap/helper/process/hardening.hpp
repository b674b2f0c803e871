// The first thing the helper does, before it opens, reads or allocates anything that matters
// (docs/design.md section 8): make the process state the caller handed over harmless.
#pragma once

#include <sys/types.h>

namespace wiredcap::process {

// fds 0-2 made valid (/dev/null where closed), every other inherited descriptor closed (the
// open ones enumerated, whatever RLIMIT_NOFILE says; false when they cannot be), the
// environment emptied, umask 022, core dumps off and the process not dumpable, SIGXFSZ ignored
// (a tiny RLIMIT_FSIZE makes the journal write fail instead of killing us mid-record), the
// terminal's stop signals ignored (SIGTSTP, SIGTTIN, SIGTTOU: a helper in a background job
// neither stops nor waits for its terminal), and every other catchable signal blocked, so no
// signal lands between the journal's intent and the kernel write. Returns false when the process cannot be made safe: the caller must exit.
[[nodiscard]] bool harden() noexcept;

// The resource limits a caller can lower and the helper cannot live with: the stack (a deep
// enough call overflows it: SIGSEGV, no JSON line), CPU time (SIGXCPU is blocked, then SIGKILL
// at the hard limit) and descriptors (fewer than the helper opens at once). Each is raised to
// what the helper needs for its short life before anything else runs: a setuid helper
// (effective uid 0) raises the hard limit too, which no caller can then lower; an unprivileged
// run only up to the hard limit it was given. A setuid helper also lifts the limits that would
// stop it midway, between a journal record and the next: the file size (a journal record
// refused after the kernel write: a step half-recorded) and the address space (out of memory
// mid-command). nullptr when all are fine, else the JSON line of a clean refusal (exit 1).
// Unprivileged, the address space and the file size keep their own ways out (on_terminate,
// the journal's check).
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
