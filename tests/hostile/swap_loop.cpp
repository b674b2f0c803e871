// Test tool: swap two directory entries atomically (renameat2 RENAME_EXCHANGE), as fast as
// possible, until SIGTERM or SIGINT; then print how many swaps were made. Whatever is at PATH_A
// and PATH_B (file, symlink, directory) trades places each time, so a reader of either path sees
// one or the other, never nothing.
//   swap-loop PATH_A PATH_B
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

namespace {
volatile sig_atomic_t g_stop = 0;
extern "C" void on_stop(int) { g_stop = 1; }
}  // namespace

int main(int argc, char** argv) {
    if (argc != 3) {
        std::fprintf(stderr, "usage: swap-loop PATH_A PATH_B\n");
        return 2;
    }
    struct sigaction sa {};
    sa.sa_handler = on_stop;
    ::sigaction(SIGTERM, &sa, nullptr);
    ::sigaction(SIGINT, &sa, nullptr);
    unsigned long swaps = 0;
    while (!g_stop) {
        if (::syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) != 0) {
            std::fprintf(stderr, "swap-loop: renameat2: %s\n", std::strerror(errno));
            return 1;
        }
        ++swaps;
    }
    // An even count leaves both names where they started.
    if (swaps % 2 == 1 &&
        ::syscall(SYS_renameat2, AT_FDCWD, argv[1], AT_FDCWD, argv[2], RENAME_EXCHANGE) == 0)
        ++swaps;
    std::printf("%lu\n", swaps);
    return 0;
}
