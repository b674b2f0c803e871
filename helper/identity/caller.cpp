#include "identity/caller.hpp"

#include <grp.h>
#include <unistd.h>

#include <algorithm>

namespace wiredcap::identity {

Caller current_caller() {
    Caller c{::getuid(), ::getgid(), {}};
    const int n = ::getgroups(0, nullptr);
    if (n > 0) {
        c.groups.resize(static_cast<std::size_t>(n));
        const int got = ::getgroups(n, c.groups.data());
        c.groups.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    }
    return c;
}

Expected<Ok> may_change(const Caller& caller, const std::optional<std::string>& group) {
    if (caller.uid == 0) return Ok{};
    const std::string who = "uid " + std::to_string(caller.uid);
    if (!group) return Error{who + " may not change the cap: only root may (the policy names no group)"};
    const struct group* gr = ::getgrnam(group->c_str());
    if (gr == nullptr) return Error{who + " may not change the cap: the policy's group '" + *group + "' does not exist"};
    const gid_t gid = gr->gr_gid;
    const bool member = caller.gid == gid || std::find(caller.groups.begin(), caller.groups.end(), gid) != caller.groups.end();
    if (!member) return Error{who + " may not change the cap: not a member of group '" + *group + "'"};
    return Ok{};
}

}  // namespace wiredcap::identity
