#include "wiredcap/helper/identity/caller.hpp"

#include <grp.h>
#include <unistd.h>

#include <algorithm>

#if defined(__APPLE__)
#if __has_include(<membership.h>)
#include <membership.h>
#else
// Zig's Darwin headers lack membership.h; libSystem exports these (membership(3)).
#include <uuid/uuid.h>
extern "C" {
int mbr_uid_to_uuid(uid_t id, uuid_t uu);
int mbr_gid_to_uuid(gid_t id, uuid_t uu);
int mbr_check_membership(const uuid_t user, const uuid_t group, int* ismember);
}
#endif
#endif

namespace wiredcap::identity {
namespace {

// Whether the caller belongs to `gid`: its real gid, or membership as the system knows it.
// macOS asks the directory service (mbr_check_membership): every group of the user, also past
// the 16 a process carries and also one joined since the user logged in; getgroups there
// returns the process's (or, in its Darwin-extension variant, the effective user's) groups.
// Linux uses the process's supplementary groups from the kernel (getgroups(2)), set at login
// by initgroups(3) from /etc/group or NSS; the kernel holds up to 65536 of them.
bool member_of(const Caller& caller, gid_t gid) {
    if (caller.gid == gid) return true;
#if defined(__APPLE__)
    uuid_t user{}, group{};
    int is_member = 0;
    if (mbr_uid_to_uuid(caller.uid, user) != 0 || mbr_gid_to_uuid(gid, group) != 0) return false;
    return mbr_check_membership(user, group, &is_member) == 0 && is_member == 1;
#else
    return std::find(caller.groups.begin(), caller.groups.end(), gid) != caller.groups.end();
#endif
}

}  // namespace

Caller current_caller() {
    Caller c{::getuid(), ::getgid(), {}};
#if !defined(__APPLE__)
    const int n = ::getgroups(0, nullptr);
    if (n > 0) {
        c.groups.resize(static_cast<std::size_t>(n));
        const int got = ::getgroups(n, c.groups.data());
        c.groups.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
    }
#endif
    return c;
}

Expected<Ok> may_change(const Caller& caller, const std::optional<std::string>& group) {
    if (caller.uid == 0) return Ok{};
    const std::string who = "uid " + std::to_string(caller.uid);
    if (!group) return Error{who + " may not change the cap: only root may (the policy names no group)"};
    const struct group* gr = ::getgrnam(group->c_str());
    if (gr == nullptr) return Error{who + " may not change the cap: the policy's group '" + *group + "' does not exist"};
    const gid_t gid = gr->gr_gid;
    if (!member_of(caller, gid)) return Error{who + " may not change the cap: not a member of group '" + *group + "'"};
    return Ok{};
}

}  // namespace wiredcap::identity
