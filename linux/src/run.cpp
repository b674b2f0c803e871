#include "wiredcap/linux/run.hpp"

#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fcntl.h>

#include <cerrno>
#include <cstring>

namespace wiredcap::linux_amd {

namespace {

// Root runs these tools: they are looked up in the system's own directories, never in a
// caller's PATH (wiredcap-system runs with an empty environment).
constexpr const char* kToolDirs[] = {"/usr/sbin", "/usr/bin", "/sbin", "/bin"};

std::string resolve(const std::string& name) {
    if (name.find('/') != std::string::npos) return name;
    for (const char* dir : kToolDirs) {
        const std::string path = std::string(dir) + "/" + name;
        if (::access(path.c_str(), X_OK) == 0) return path;
    }
    return name;
}

}  // namespace

Expected<RunResult> run_program(const std::vector<std::string>& argv) {
    if (argv.empty()) return Error{"run_program: no program"};
    const std::string program = resolve(argv[0]);
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return Error{std::string("pipe: ") + std::strerror(errno)};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], STDOUT_FILENO);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    pid_t pid = 0;
    char path_var[] = "PATH=/usr/sbin:/usr/bin:/sbin:/bin";
    char* env[] = {path_var, nullptr};
    const int rc = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, args.data(), env);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        return Error{argv[0] + ": cannot run: " + std::strerror(rc)};
    }
    RunResult result;
    char buf[4096];
    for (;;) {
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n > 0) result.out.append(buf, static_cast<std::size_t>(n));
        else if (n == 0 || errno != EINTR) break;
    }
    ::close(fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    return result;
}

}  // namespace wiredcap::linux_amd
