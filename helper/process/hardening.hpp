// The first thing the helper does, before it opens, reads or allocates anything that matters
// (DESIGN.md section 8): make the process state the caller handed over harmless.
#pragma once

namespace wiredcap::process {

// fds 0-2 made valid (/dev/null where closed), every other inherited descriptor closed, the
// environment emptied, umask 022, core dumps off and the process not dumpable, SIGXFSZ ignored
// (a tiny RLIMIT_FSIZE makes the journal write fail instead of killing us mid-record), and
// every other catchable signal blocked, so no signal lands between the journal's intent and
// the kernel write. Returns false when the process cannot be made safe: the caller must exit.
[[nodiscard]] bool harden() noexcept;

// True when the kernel marked this exec as secure (setuid/setgid, or gained capabilities):
// then no environment variable and no development option may choose a path or a backend.
[[nodiscard]] bool is_secure_exec() noexcept;

}  // namespace wiredcap::process
