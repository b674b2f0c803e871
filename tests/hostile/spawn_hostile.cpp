// Test tool: put a process into the state a hostile caller can hand a setuid program, then exec
// it. Run as root; it drops to the caller's credentials (--as) as the very last step before
// execve, so the setuid bit of the target takes effect exactly as for a real caller.
//
//   spawn-hostile [OPTIONS] -- PATH [ARGS...]
//     --as UID:GID:GROUPS     become this caller (GROUPS: comma-separated gids, may be empty)
//     --close FD              close FD (repeatable; 0, 1, 2 for the standard descriptors)
//     --inherit N:FILE        open FILE N times, not close-on-exec (fds 3, 4, ...)
//     --inherit-at FD:FILE    open FILE as descriptor FD (raises the soft RLIMIT_NOFILE if needed)
//     --rlimit NAME=VALUE     nofile, fsize, as, core, stack, cpu, nproc, data; VALUE a number or "unlimited"
//                             (soft and hard limit alike, set while still root)
//     --umask OCTAL           the umask handed over
//     --chdir DIR             the working directory handed over
//     --deleted-cwd DIR       mkdir DIR, chdir into it, rmdir it: the cwd no longer exists
//     --no-new-privs          PR_SET_NO_NEW_PRIVS: the setuid bit will be ignored
//     --no-close-range        a seccomp filter (installed as root, so no no_new_privs is needed
//                             and the setuid bit still works) makes close_range fail with ENOSYS,
//                             as on a kernel before 5.9: the helper must list its descriptors
//     --env STRING            add STRING verbatim to the environment, '=' or not (repeatable);
//                             the environment starts empty
//     --env-many N            add N variables HOSTILE_0=... to HOSTILE_{N-1}=...
//     --argv0 STRING          argv[0] (default: PATH)
//     --no-argv               argc == 0: argv is {NULL} (ARGS are ignored)
// Exit status when the exec does not happen: 120 usage, 121 setup failed, 127 exec failed.
#include <fcntl.h>
#include <grp.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

namespace {

[[noreturn]] void die(int code, const std::string& what) {
    std::fprintf(stderr, "spawn-hostile: %s%s%s\n", what.c_str(), errno != 0 ? ": " : "",
                 errno != 0 ? std::strerror(errno) : "");
    std::_Exit(code);
}

unsigned long number(std::string_view s, int base = 10) {
    std::string copy(s);
    char* end = nullptr;
    errno = 0;
    const unsigned long v = std::strtoul(copy.c_str(), &end, base);
    if (copy.empty() || *end != '\0' || errno != 0) die(120, "not a number: " + copy);
    return v;
}

std::pair<std::string_view, std::string_view> split(std::string_view s, char sep) {
    const auto at = s.find(sep);
    if (at == std::string_view::npos)
        die(120, "expected '" + std::string(1, sep) + "' in " + std::string(s));
    return {s.substr(0, at), s.substr(at + 1)};
}

int rlimit_resource(std::string_view name) {
    if (name == "nofile") return RLIMIT_NOFILE;
    if (name == "fsize") return RLIMIT_FSIZE;
    if (name == "as") return RLIMIT_AS;
    if (name == "core") return RLIMIT_CORE;
    if (name == "stack") return RLIMIT_STACK;
    if (name == "cpu") return RLIMIT_CPU;
    if (name == "nproc") return RLIMIT_NPROC;
    if (name == "data") return RLIMIT_DATA;
    die(120, "unknown rlimit " + std::string(name));
}

struct Caller {
    uid_t uid = 0;
    gid_t gid = 0;
    std::vector<gid_t> groups;
};

Caller parse_caller(std::string_view s) {
    auto [uid, rest] = split(s, ':');
    auto [gid, groups] = split(rest, ':');
    Caller c{static_cast<uid_t>(number(uid)), static_cast<gid_t>(number(gid)), {}};
    while (!groups.empty()) {
        const auto comma = groups.find(',');
        c.groups.push_back(static_cast<gid_t>(number(groups.substr(0, comma))));
        groups = comma == std::string_view::npos ? std::string_view{} : groups.substr(comma + 1);
    }
    return c;
}

int open_inherited(const std::string& file) {
    const int fd = ::open(file.c_str(), O_RDONLY);  // deliberately not O_CLOEXEC
    if (fd < 0) die(121, "cannot open " + file);
    return fd;
}

#ifndef __NR_close_range
#define __NR_close_range 436  // the same number on every architecture
#endif

// close_range -> ENOSYS for this process and everything it executes; checked before returning.
void block_close_range() {
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_close_range, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog {
        static_cast<unsigned short>(sizeof code / sizeof code[0]), code
    };
    if (::prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) die(121, "seccomp filter");
    errno = 0;
    if (::syscall(__NR_close_range, 1000000U, 1000000U, 0U) != -1 || errno != ENOSYS)
        die(121, "the seccomp filter does not block close_range");
    errno = 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> env_storage;
    std::vector<std::pair<int, rlim_t>> limits;
    std::vector<int> to_close;
    const char* argv0 = nullptr;
    bool no_argv = false, no_new_privs = false, no_close_range = false, have_caller = false,
         have_umask = false;
    Caller caller;
    mode_t mask = 022;
    int i = 1;
    for (; i < argc; ++i) {
        const std::string_view opt = argv[i];
        if (opt == "--") break;
        if (opt == "--no-argv") {
            no_argv = true;
            continue;
        }
        if (opt == "--no-new-privs") {
            no_new_privs = true;
            continue;
        }
        if (opt == "--no-close-range") {
            no_close_range = true;
            continue;
        }
        if (i + 1 >= argc) die(120, std::string(opt) + " needs a value");
        const std::string_view v = argv[++i];
        if (opt == "--as") {
            caller = parse_caller(v);
            have_caller = true;
        } else if (opt == "--close") {
            to_close.push_back(static_cast<int>(number(v)));
        } else if (opt == "--inherit") {
            auto [n, file] = split(v, ':');
            for (unsigned long k = number(n); k > 0; --k) (void)open_inherited(std::string(file));
        } else if (opt == "--inherit-at") {
            auto [fd_text, file] = split(v, ':');
            const int fd = static_cast<int>(number(fd_text));
            struct rlimit rl {};
            if (::getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur <= static_cast<rlim_t>(fd)) {
                rl.rlim_cur =
                    static_cast<rlim_t>(fd) + 1;  // the soft limit only: no CAP_SYS_RESOURCE needed
                if (::setrlimit(RLIMIT_NOFILE, &rl) != 0)
                    die(121, "cannot raise RLIMIT_NOFILE to " + std::to_string(fd + 1));
            }
            const int got = open_inherited(std::string(file));
            if (::dup2(got, fd) != fd) die(121, "dup2");
            ::close(got);
        } else if (opt == "--rlimit") {
            auto [name, value] = split(v, '=');
            limits.emplace_back(rlimit_resource(name),
                                value == "unlimited" ? RLIM_INFINITY : number(value));
        } else if (opt == "--umask") {
            mask = static_cast<mode_t>(number(v, 8));
            have_umask = true;
        } else if (opt == "--chdir") {
            if (::chdir(std::string(v).c_str()) != 0) die(121, "cannot chdir to " + std::string(v));
        } else if (opt == "--deleted-cwd") {
            const std::string dir(v);
            if (::mkdir(dir.c_str(), 0755) != 0 || ::chdir(dir.c_str()) != 0 ||
                ::rmdir(dir.c_str()) != 0)
                die(121, "cannot make a deleted cwd at " + dir);
        } else if (opt == "--env") {
            env_storage.emplace_back(v);
        } else if (opt == "--env-many") {
            for (unsigned long k = 0, n = number(v); k < n; ++k)
                env_storage.push_back("HOSTILE_" + std::to_string(k) + "=value-" +
                                      std::to_string(k));
        } else if (opt == "--argv0") {
            argv0 = argv[i];
        } else {
            die(120, "unknown option " + std::string(opt));
        }
    }
    if (i + 1 >= argc) die(120, "usage: spawn-hostile [OPTIONS] -- PATH [ARGS...]");
    const char* path = argv[i + 1];

    std::vector<char*> args;
    if (!no_argv) {
        args.push_back(const_cast<char*>(argv0 != nullptr ? argv0 : path));
        for (int k = i + 2; k < argc; ++k) args.push_back(argv[k]);
    }
    args.push_back(nullptr);
    std::vector<char*> env;
    for (auto& e : env_storage) env.push_back(e.data());
    env.push_back(nullptr);

    // Limits first (root may raise them), then credentials, then what only the caller sets.
    for (const auto& [resource, value] : limits) {
        const struct rlimit rl { value, value };
        if (::setrlimit(resource, &rl) != 0) die(121, "setrlimit");
    }
    if (no_close_range) block_close_range();
    if (no_new_privs && ::prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        die(121, "PR_SET_NO_NEW_PRIVS");
    if (have_caller) {
        if (::setgroups(caller.groups.size(), caller.groups.data()) != 0) die(121, "setgroups");
        if (::setresgid(caller.gid, caller.gid, caller.gid) != 0) die(121, "setresgid");
        if (::setresuid(caller.uid, caller.uid, caller.uid) != 0) die(121, "setresuid");
    }
    if (have_umask) ::umask(mask);
    for (int fd : to_close) ::close(fd);
    ::execve(path, args.data(), env.data());
    die(127, std::string("execve ") + path);
}
