#include "wiredcap/helper/journal/refusal_budget.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>

#include "wiredcap/helper/journal/owned_by_root.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/unique_fd.hpp"

namespace wiredcap::journal {
namespace {

constexpr const char* kDir = ".refusals";

struct Window {
    std::int64_t start = 0;
    std::uint64_t count = 0;
};

Window read_window(int fd) {
    char buf[64] = {};
    long long start = 0;
    unsigned long long count = 0;
    if (::pread(fd, buf, sizeof buf - 1, 0) <= 0 || std::sscanf(buf, "%lld %llu", &start, &count) != 2)
        return Window{};
    return Window{start, count};
}

bool write_window(int fd, const Window& w) {
    char buf[64];
    const int len = std::snprintf(buf, sizeof buf, "%lld %llu\n", static_cast<long long>(w.start),
                                  static_cast<unsigned long long>(w.count));
    if (len <= 0 || ::ftruncate(fd, 0) != 0) return false;
    return ::pwrite(fd, buf, static_cast<std::size_t>(len), 0) == len;
}

}  // namespace

RefusalLog count_refusal(const std::string& journal_dir, uid_t owner, uid_t uid, std::int64_t now) {
    // A file-size limit the caller handed over, which root cannot lift without CAP_SYS_RESOURCE,
    // that leaves no room for a count: logging each refusal would be the flood this bounds.
    if (struct rlimit fs {}; ::getrlimit(RLIMIT_FSIZE, &fs) == 0 && fs.rlim_cur < 64) return RefusalLog::skip;
    auto dir = trusted::open_dir(journal_dir, owner);
    if (!dir || !dir->has_value()) return RefusalLog::log;
    // The count directory as the helper makes it: its owner's, no access for anyone else.
    const auto counts = open_private_dir((*dir)->get(), kDir, kDir, owner);
    if (!counts) return RefusalLog::log;
    const std::string name = std::to_string(uid);
    UniqueFd fd(::openat(counts->get(), name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600));
    // Held for a read and a write of a few bytes, by root's helpers only (no other user can open
    // the directory, and none can stop a helper: process/hardening.hpp).
    if (!fd.valid() || !own_by_root(fd.get(), kDir) || ::flock(fd.get(), LOCK_EX) != 0) return RefusalLog::log;
    Window w = read_window(fd.get());
    if (now < w.start || now - w.start >= kRefusalWindow.count()) w = Window{now, 0};
    w.count += 1;
    if (!write_window(fd.get(), w)) return RefusalLog::log;
    if (w.count < kRefusalsPerWindow) return RefusalLog::log;
    return w.count == kRefusalsPerWindow ? RefusalLog::log_and_say_muted : RefusalLog::skip;
}

}  // namespace wiredcap::journal
