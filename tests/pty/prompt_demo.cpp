// prompt-demo SECONDS [RESULT_FILE]: asks "Keep 96 GiB?" on the terminal at fds 0/1 with a
// deadline SECONDS away, prints ANSWER=<name> and exits 0. RESULT_FILE also receives the name,
// for the cases where the terminal itself is gone (hangup). Exits 2 when fds 0/1 are not a
// terminal, 64 on a bad command line. Only for the pseudo-terminal tests (prompt_test.py).
#include <fcntl.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "wiredcap/ramp/terminal_prompt.hpp"

namespace {

void record(const char* path, std::string_view answer) {
    const int fd = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) return;
    const std::string line = std::string(answer) + "\n";
    [[maybe_unused]] const ssize_t n = ::write(fd, line.data(), line.size());
    ::close(fd);
}

}  // namespace

int main(int argc, char** argv) {
    using namespace wiredcap::cli;
    if (argc < 2 || argc > 3) {
        std::fprintf(stderr, "usage: prompt-demo SECONDS [RESULT_FILE]\n");
        return 64;
    }
    const long seconds = std::strtol(argv[1], nullptr, 10);
    SignalWatch signals;
    auto term = Terminal::open(STDIN_FILENO, STDOUT_FILENO);
    if (!term) {
        std::fprintf(stderr, "prompt-demo: %s\n", term.error().message.c_str());
        return 2;
    }
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
    const Answer a = term->ask("Keep 96 GiB?", deadline, signals);
    if (argc == 3) record(argv[2], answer_name(a));
    std::printf("ANSWER=%.*s\n", static_cast<int>(answer_name(a).size()), answer_name(a).data());
    std::fflush(stdout);
    return 0;
}
