// The first thing the helper does, before it opens, reads or allocates anything that matters
// (docs/design.md section 8): make the process state the caller handed over harmless.
#pragma once

namespace wiredcap::process {

// fds 0-2 made valid (/dev/null where closed), every other inherited descriptor closed (the
// open ones enumerated, whatever RLIMIT_NOFILE says; false when they cannot be), the
// environment emptied, umask 022, core dumps off and the process not dumpable, SIGXFSZ ignored
// (a tiny RLIMIT_FSIZE makes the journal write fail instead of killing us mid-record), and
// every other catchable signal blocked, so no signal lands between the journal's intent and
// the kernel write. Returns false when the process cannot be made safe: the caller must exit.
[[nodiscard]] bool harden() noexcept;

// The resource limits a caller can lower and the helper cannot live with: the stack (a deep
// enough call overflows it: SIGSEGV, no JSON line), CPU time (SIGXCPU is blocked, then SIGKILL
// at the hard limit) and descriptors (fewer than the helper opens at once). Each is raised to
// what the helper needs for its short life, up to the hard limit, before anything else runs.
// nullptr when all are fine, else the JSON line of a clean refusal (exit 1). The
// address space and the file size have their own ways out (on_terminate, the journal's check).
[[nodiscard]] const char* raise_limits() noexcept;

// Gives up root for good: the real gid and uid become the effective and saved ones too (a
// no-op when they already are). False when root could not be given up, or could be regained.
[[nodiscard]] bool drop_root() noexcept;

// True when the kernel marked this exec as secure (setuid/setgid, or gained capabilities):
// then no environment variable and no development option may choose a path or a backend.
[[nodiscard]] bool is_secure_exec() noexcept;

}  // namespace wiredcap::process
