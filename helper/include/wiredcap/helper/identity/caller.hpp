// Who is asking. Identity is the real uid and the real process's groups, read from the kernel;
// never USER, LOGNAME, SUDO_UID or any other variable the caller can set.
#pragma once

#include <sys/types.h>

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/expected.hpp"

namespace wiredcap::identity {

struct Caller {
    uid_t uid;
    gid_t gid;
    std::vector<gid_t> groups;  // supplementary groups (Linux; macOS asks the directory service)
};

[[nodiscard]] Caller current_caller();

// Root may always act; anyone else only when `group` is set, exists, and is one of the
// caller's groups. The error says which of these failed.
[[nodiscard]] Expected<Ok> may_change(const Caller& caller, const std::optional<std::string>& group);

}  // namespace wiredcap::identity
