#include "wiredcap/helper/boot_files.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <ctime>

namespace wiredcap::helper {

std::int64_t unix_now() { return static_cast<std::int64_t>(std::time(nullptr)); }

std::optional<std::string> boot_switch_on(const Context& ctx) {
    struct stat st {};
    if (::lstat(ctx.boot_switch_path.c_str(), &st) == 0) return ctx.boot_switch_path + " exists";
    if (errno == ENOENT) return std::nullopt;
    return "cannot check " + ctx.boot_switch_path + " (" + std::strerror(errno) + ")";
}

Expected<boot::Store, Failure> open_boot_store(const Context& ctx) {
    auto store = boot::Store::open(ctx.boot_state_path, ctx.trusted_owner);
    if (!store) return Failure{ExitCode::journal_failed, store.error().message};
    return std::move(*store);
}

}  // namespace wiredcap::helper
