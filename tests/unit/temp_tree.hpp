// Test support shared by the helper's unit tests: a substring assertion; a private directory
// tree whose whole ancestry passes the trusted-path checks; and a way to run code in a child
// process with a deadline (for anything that might block or that changes process-wide limits).
//
// The tree lives under WIREDCAP_TEST_TMP (inside the build directory), which must itself sit
// below directories owned by root or by the test user and not writable by group or others
// (sticky directories such as /tmp excepted, as the trusted-path walk allows them).
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <ostream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "wiredcap/units/quantity.hpp"

#ifndef WIREDCAP_TEST_TMP
#error "WIREDCAP_TEST_TMP must name a scratch directory inside the build tree"
#endif

namespace wiredcap::units {
// Sizes in assertion failures read "98304 MiB", not as a dump of the object's bytes.
template <class Unit>
void PrintTo(const Quantity<Unit>& q, std::ostream* os) {
    *os << q.count() << ' ' << Unit::symbol;
}
}  // namespace wiredcap::units

namespace wiredcap::test {

inline bool running_as_root() { return ::geteuid() == 0; }

// EXPECT_CONTAINS(text, fragment): a message check that prints both strings when it fails
// (gmock's HasSubstr without linking gmock).
inline ::testing::AssertionResult contains_fragment(const char* text_expr,
                                                    const char* fragment_expr,
                                                    const std::string& text,
                                                    const std::string& fragment) {
    if (text.find(fragment) != std::string::npos) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure()
           << text_expr << " does not contain " << fragment_expr << "\n  text:     " << text
           << "\n  fragment: " << fragment;
}
#define EXPECT_CONTAINS(text, fragment) \
    EXPECT_PRED_FORMAT2(::wiredcap::test::contains_fragment, text, fragment)
#define EXPECT_NOT_CONTAINS(text, fragment) \
    EXPECT_EQ(std::string(text).find(fragment), std::string::npos) << "text: " << (text)

// The message of a failed Expected, or a marker that it did not fail (for assertion output).
template <class E>
std::string error_of(const E& e) {
    return e ? std::string("(no error)") : e.error().message;
}

// Why `path` and its ancestors would fail the trusted-directory rules (owned by root or the
// effective uid, not writable by group or others), or nullopt when they pass. Independent of
// the code under test, so a broken build location is reported as such.
inline std::optional<std::string> insecure_ancestry(const std::string& path) {
    std::filesystem::path p = std::filesystem::path(path);
    for (;;) {
        struct stat st {};
        if (::stat(p.c_str(), &st) != 0) return p.string() + ": cannot stat";
        if (st.st_uid != 0 && st.st_uid != ::geteuid()) return p.string() + " has another owner";
        const bool sticky =
            (st.st_mode & S_ISVTX) != 0;  // like /tmp: allowed, as in trusted_path.cpp
        if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 && !sticky)
            return p.string() + " is writable by group or others";
        if (!p.has_relative_path()) return std::nullopt;
        p = p.parent_path();
    }
}

// A fresh directory (mode 0755) under WIREDCAP_TEST_TMP, removed with everything in it when
// the object goes away. Paths handed out are canonical (realpath), so they can be compared
// with the directory names the code under test reports.
class TempTree {
public:
    TempTree() {
        const std::string base = WIREDCAP_TEST_TMP;
        std::filesystem::create_directories(base);
        ::chmod(base.c_str(), 0755);
        if (auto why = insecure_ancestry(base))
            ADD_FAILURE() << "WIREDCAP_TEST_TMP (" << base
                          << ") cannot hold trusted files: " << *why
                          << ". Configure the build elsewhere.";
        std::string tmpl = base + "/tree-XXXXXX";
        if (::mkdtemp(tmpl.data()) == nullptr) {
            ADD_FAILURE() << "mkdtemp under " << base << " failed: " << errno;
            return;
        }
        ::chmod(tmpl.c_str(), 0755);
        char resolved[PATH_MAX];
        root_ = ::realpath(tmpl.c_str(), resolved) != nullptr ? std::string(resolved) : tmpl;
    }
    ~TempTree() {
        if (root_.empty()) return;
        // Undo any mode a test set, so a non-root run can delete everything.
        std::error_code ec;
        ::chmod(root_.c_str(), 0755);
        for (auto it = std::filesystem::recursive_directory_iterator(root_, ec);
             !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
            if (it->is_directory(ec) && !it->is_symlink(ec)) ::chmod(it->path().c_str(), 0755);
        }
        std::filesystem::remove_all(root_, ec);
    }
    TempTree(const TempTree&) = delete;
    TempTree& operator=(const TempTree&) = delete;

    [[nodiscard]] const std::string& root() const { return root_; }
    [[nodiscard]] std::string path(const std::string& rel) const { return root_ + "/" + rel; }

    // Creates the directory `rel` (and missing parents) with `mode`.
    std::string dir(const std::string& rel, mode_t mode = 0755) const {
        const std::string p = path(rel);
        std::filesystem::create_directories(p);
        ::chmod(p.c_str(), mode);
        return p;
    }

    // Writes a regular file `rel` with `contents` and `mode`.
    std::string file(const std::string& rel, const std::string& contents,
                     mode_t mode = 0644) const {
        const std::string p = path(rel);
        {
            std::ofstream out(p, std::ios::binary | std::ios::trunc);
            out << contents;
        }
        ::chmod(p.c_str(), mode);
        return p;
    }

    [[nodiscard]] static std::string slurp(const std::string& p) {
        std::ifstream in(p, std::ios::binary);
        std::ostringstream s;
        s << in.rdbuf();
        return s.str();
    }

private:
    std::string root_;
};

// The outcome of run_in_child: what the child wrote to its pipe, or that it missed the
// deadline (it is then killed).
struct ChildResult {
    bool finished = false;
    std::string output;
};

// Runs `body` in a forked child and returns what it returned, unless it does not finish
// within `deadline`. The parent never blocks on the child for longer than that, so a test of
// "this must not hang" fails instead of hanging the suite.
inline ChildResult run_in_child(
    const std::function<std::string()>& body,
    std::chrono::milliseconds deadline = std::chrono::milliseconds(2000)) {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid < 0) return {};
    if (pid == 0) {
        ::close(fds[0]);
        const std::string out = body();
        std::size_t done = 0;
        while (done < out.size()) {
            const ssize_t n = ::write(fds[1], out.data() + done, out.size() - done);
            if (n <= 0) break;
            done += static_cast<std::size_t>(n);
        }
        ::_exit(0);
    }
    ::close(fds[1]);
    ChildResult result;
    const auto until = std::chrono::steady_clock::now() + deadline;
    for (;;) {
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
            until - std::chrono::steady_clock::now());
        if (left.count() <= 0) break;
        struct pollfd pfd {
            fds[0], POLLIN, 0
        };
        const int r = ::poll(&pfd, 1, static_cast<int>(left.count()));
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        char buf[512];
        const ssize_t n = ::read(fds[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            result.finished = true;  // end of file: the child has exited
            break;
        }
        result.output.append(buf, static_cast<std::size_t>(n));
    }
    ::close(fds[0]);
    if (!result.finished) ::kill(pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    if (result.finished && !(WIFEXITED(status) && WEXITSTATUS(status) == 0))
        result.finished = false;
    return result;
}

}  // namespace wiredcap::test
