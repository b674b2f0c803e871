#include "wiredcap/helper/process/hardening.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <initializer_list>

#if defined(__APPLE__)
#include <libproc.h>
#else
#include <dirent.h>
#endif
#if defined(__linux__)
#include <sched.h>
#include <sys/auxv.h>
#include <sys/prctl.h>
#include <sys/syscall.h>  // SYS_close_range; Linux only (Zig's Darwin headers do not ship it)
#endif

extern char** environ;

namespace wiredcap::process {
namespace {

bool make_std_fds_valid() noexcept {
    for (int fd = 0; fd <= 2; ++fd) {
        if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        // open() returns the lowest free descriptor, which is this one.
        const int got = ::open("/dev/null", fd == 0 ? O_RDONLY : O_WRONLY);
        if (got != fd) return false;
    }
    return true;
}

// Every descriptor above 2 the caller left open, closed whatever the limits: RLIMIT_NOFILE says
// nothing about descriptors opened before it was lowered, and on macOS its hard limit is usually
// unlimited, so a loop up to any bound can miss one. Linux closes them in one call; without
// close_range (before 5.9), and on macOS, the open descriptors are listed and each is closed.
// False when they cannot be listed: the helper then does not run.
#if defined(__APPLE__)
// proc_pidinfo(PROC_PIDLISTFDS) lists this process's open descriptors. Closing them changes
// the list, so it is taken again until nothing above 2 is left in it.
bool close_inherited_fds() noexcept {
    for (int pass = 0; pass < 4; ++pass) {
        const int bytes = ::proc_pidinfo(::getpid(), PROC_PIDLISTFDS, 0, nullptr, 0);
        if (bytes <= 0) return false;
        // Room for more than were open a moment ago; nothing in this process opens any meanwhile.
        const std::size_t room = static_cast<std::size_t>(bytes) / PROC_PIDLISTFD_SIZE + 16;
        auto* fds = static_cast<struct proc_fdinfo*>(std::calloc(room, PROC_PIDLISTFD_SIZE));
        if (fds == nullptr) return false;
        const int got = ::proc_pidinfo(::getpid(), PROC_PIDLISTFDS, 0, fds, static_cast<int>(room * PROC_PIDLISTFD_SIZE));
        bool left = false;
        for (int i = 0; got > 0 && i < got / static_cast<int>(PROC_PIDLISTFD_SIZE); ++i)
            if (fds[i].proc_fd > 2) { ::close(fds[i].proc_fd); left = true; }
        std::free(fds);
        if (got <= 0) return false;
        if (!left) return true;  // this pass found nothing above 2 to close
    }
    return false;
}
#else
// /proc/self/fd lists them where close_range is missing; the directory's own descriptor is
// skipped while it is read and closed last.
bool close_listed_fds() noexcept {
    DIR* dir = ::opendir("/proc/self/fd");
    if (dir == nullptr) return false;
    const int own = ::dirfd(dir);
    while (const struct dirent* e = ::readdir(dir)) {
        char* end = nullptr;
        const long fd = std::strtol(e->d_name, &end, 10);
        if (end != e->d_name && *end == '\0' && fd > 2 && fd != own) ::close(static_cast<int>(fd));
    }
    ::closedir(dir);
    return true;
}

bool close_inherited_fds() noexcept {
#if defined(SYS_close_range)
    if (::syscall(SYS_close_range, 3U, ~0U, 0U) == 0) return true;
#endif
    return close_listed_fds();
}
#endif

bool disable_core_dumps() noexcept {
    const struct rlimit none {0, 0};
    if (::setrlimit(RLIMIT_CORE, &none) != 0) return false;
#if defined(__linux__)
    if (::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return false;
#endif
    return true;
}

bool block_signals() noexcept {
    for (const int sig : {SIGXFSZ, SIGTSTP, SIGTTIN, SIGTTOU})
        if (::signal(sig, SIG_IGN) == SIG_ERR) return false;
    sigset_t all;
    sigfillset(&all);
    return ::sigprocmask(SIG_BLOCK, &all, nullptr) == 0;
}

bool at_least(rlim_t limit, rlim_t want) noexcept { return limit == RLIM_INFINITY || limit >= want; }

// Raises the soft limit of `resource` towards `want`; the hard one too when privileged (only
// root may raise a hard limit, and a container may forbid even root), else as far as the hard
// limit allows. False when it stays below `need`.
bool enough(int resource, rlim_t want, rlim_t need) noexcept {
    struct rlimit rl {};
    if (::getrlimit(resource, &rl) != 0) return false;
    const bool hard_enough = at_least(rl.rlim_max, want);
    if (at_least(rl.rlim_cur, want) && hard_enough) return true;
    const struct rlimit as_root {want, hard_enough ? rl.rlim_max : want};
    if (::geteuid() == 0 && ::setrlimit(resource, &as_root) == 0) return true;
    if (at_least(rl.rlim_cur, want)) return true;
    const struct rlimit raised {hard_enough ? want : rl.rlim_max, rl.rlim_max};
    if (raised.rlim_cur > rl.rlim_cur && ::setrlimit(resource, &raised) == 0) rl.rlim_cur = raised.rlim_cur;
    return at_least(rl.rlim_cur, need);
}

// Where the caller lowered the helper's scheduling, back to the default, before it becomes root
// in every uid (after that its caller cannot touch it): a helper holding the lock at nice 19,
// under SCHED_IDLE or SCHED_BATCH, pinned to a busy CPU, in the idle I/O class or (macOS) in
// the background band would make root's commands wait for it. Best effort: a failure only
// leaves the helper slower.
void default_priority() noexcept {
    (void)::setpriority(PRIO_PROCESS, 0, 0);  // nice 0: only root could have set it lower
#if defined(__linux__)
    const struct sched_param normal {};
    (void)::sched_setscheduler(0, SCHED_OTHER, &normal);
    cpu_set_t every;  // every bit: the kernel keeps the CPUs online and in the helper's cpuset
    std::memset(&every, 0xff, sizeof every);
    (void)::sched_setaffinity(0, sizeof every, &every);
    constexpr int kWhoProcess = 1;  // IOPRIO_WHO_PROCESS; priority 0: derived from the nice value
    (void)::syscall(SYS_ioprio_set, kWhoProcess, 0, 0);
#elif defined(__APPLE__)
    (void)::setpriority(PRIO_DARWIN_PROCESS, 0, 0);  // out of the background band (taskpolicy -b)
#endif
}

}  // namespace

const char* raise_limits() noexcept {
    // The helper needs well under 100 KiB of stack, milliseconds of CPU and a dozen descriptors.
    // Below about 12 KiB of stack, 3 descriptors or a hard CPU limit of 0, not even the dynamic
    // loader gets as far as main(): no program can answer then.
    if (!enough(RLIMIT_STACK, rlim_t{1} << 20, rlim_t{128} << 10))
        return "{\"v\":1,\"ok\":false,\"exit\":1,\"error\":\"the stack limit (RLIMIT_STACK) is below 128 KiB; nothing was changed\"}\n";
    if (!enough(RLIMIT_CPU, 10, 1))
        return "{\"v\":1,\"ok\":false,\"exit\":1,\"error\":\"the CPU time limit (RLIMIT_CPU) is below 1 s; nothing was changed\"}\n";
    if (!enough(RLIMIT_NOFILE, 64, 16))
        return "{\"v\":1,\"ok\":false,\"exit\":1,\"error\":\"the descriptor limit (RLIMIT_NOFILE) is below 16; nothing was changed\"}\n";
    // Setuid only (an unprivileged run keeps its limits, and its ways out): a caller's file-size
    // or memory limit would otherwise stop the helper between its records. The journal's size is
    // the helper's own to bound; its memory is what one command needs.
    if (::geteuid() == 0)
        for (const int resource : {RLIMIT_FSIZE, RLIMIT_AS, RLIMIT_DATA}) (void)enough(resource, RLIM_INFINITY, 0);
    return nullptr;
}

bool harden() noexcept {
    if (!make_std_fds_valid() || !close_inherited_fds()) return false;
    static char* empty_env[] = {nullptr};
    environ = empty_env;  // nothing below may read the caller's environment
    ::umask(022);
    return disable_core_dumps() && block_signals();
}

bool become_root_entirely() noexcept {
    if (::geteuid() != 0) return true;  // an unprivileged run: nothing to protect
    default_priority();
    return ::setuid(0) == 0 && ::getuid() == 0;
}

bool drop_root(uid_t uid, gid_t gid) noexcept {
    if (::getuid() == uid && ::geteuid() == uid && ::getgid() == gid && ::getegid() == gid) return true;
    // The group first: after setuid the process may no longer change it.
    if (::setgid(gid) != 0 || ::setuid(uid) != 0) return false;
    return ::geteuid() == uid && ::getegid() == gid && (uid == 0 || ::setuid(0) != 0);
}

bool is_secure_exec() noexcept {
#if defined(__linux__)
    return ::getauxval(AT_SECURE) != 0;
#elif defined(__APPLE__)
    return ::issetugid() != 0;
#else
    return true;  // unknown platform: assume the worst
#endif
}

}  // namespace wiredcap::process
