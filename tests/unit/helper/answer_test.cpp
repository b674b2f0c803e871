// The answer's write path (helper/src/answer.cpp): a failed write to standard output or error
// leaves the exit code as the command decided it, even with no memory left for a message about
// the failure (a caller's tiny RLIMIT_AS): answer() allocates nothing and cannot throw.
#include "wiredcap/helper/answer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <new>
#include <string>

#include <gtest/gtest.h>

#include "../temp_tree.hpp"

namespace {
// Set in a forked child only: from then on every operator new fails, as it does once a tiny
// RLIMIT_AS is used up (an address-space limit does not make glibc's malloc fail at a
// predictable point in a process as large as this test's, so the failure is made exact here).
bool g_no_memory = false;
}  // namespace

void* operator new(std::size_t n) {
    if (g_no_memory) throw std::bad_alloc();
    if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
    throw std::bad_alloc();
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {  // std::stable_sort's buffer
    return g_no_memory ? nullptr : std::malloc(n == 0 ? 1 : n);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

using wiredcap::ExitCode;
using wiredcap::helper::answer;
using wiredcap::helper::Result;

Result refusal() {
    return Result{ExitCode::refused_by_policy, R"({"v":1,"ok":false,"exit":3,"error":"refused"})",
                  "refused"};
}

// In a child: `fd` becomes standard output and error, then the answer is written (with no
// memory left when `no_memory`). "exit 3" when answer() returned the refusal's code; nothing
// when it threw (the child ends without writing).
std::string answer_into(int fd, bool no_memory) {
    const Result r = refusal();
    if (fd < 0 || ::dup2(fd, 1) != 1 || ::dup2(fd, 2) != 2) return "cannot redirect";
    g_no_memory = no_memory;
    const int code = answer(r, "wiredcap-helper");
    g_no_memory = false;
    return code == 3 ? "exit 3" : "wrong code";
}

}  // namespace

TEST(Answer, AFullStdoutWithNoMemoryLeftStillReturnsTheExitCode) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "the sanitizer runtime owns operator new";
#endif
    auto child = wiredcap::test::run_in_child(
        [] { return answer_into(::open("/dev/full", O_WRONLY), true); });
    ASSERT_TRUE(child.finished);
    EXPECT_EQ(child.output, "exit 3");
}

// Standard output a pipe nobody reads any more: EPIPE (the helper blocks every signal, SIGPIPE
// too; ignored here to the same effect).
TEST(Answer, AClosedPipeStillReturnsTheExitCode) {
    auto child = wiredcap::test::run_in_child([] {
        std::signal(SIGPIPE, SIG_IGN);
        int fds[2];
        if (::pipe(fds) != 0) return std::string("no pipe");
        ::close(fds[0]);
        return answer_into(fds[1], false);
    });
    ASSERT_TRUE(child.finished);
    EXPECT_EQ(child.output, "exit 3");
}
