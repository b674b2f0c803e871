// Who may change the cap (docs/design.md section 8): root always; anyone else only through the
// policy's group, looked up in the group database and matched against the real gid and the
// supplementary groups. Callers are built directly: identity comes from the kernel, and
// these tests check the decision, not getuid().
#include "wiredcap/helper/identity/caller.hpp"

#include <grp.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <optional>
#include <string>

#include "../temp_tree.hpp"

namespace wiredcap::identity {
namespace {

using test::error_of;

constexpr uid_t kUser = 501;
constexpr gid_t kStaff = 20;
constexpr const char* kNoSuchGroup = "wiredcap-no-such-group";

// The gid of a group every Debian (and macOS) system has, looked up rather than assumed.
gid_t gid_of(const char* name) {
    const struct group* gr = ::getgrnam(name);
    return gr == nullptr ? static_cast<gid_t>(-1) : gr->gr_gid;
}

class CallerGroups : public ::testing::Test {
protected:
    void SetUp() override {
        daemon_gid_ = gid_of("daemon");
        if (daemon_gid_ == static_cast<gid_t>(-1))
            GTEST_SKIP() << "no group 'daemon' in this group database";
        ASSERT_EQ(::getgrnam(kNoSuchGroup), nullptr)
            << "the group " << kNoSuchGroup << " unexpectedly exists";
        // A gid that is not daemon's, for callers who are not members.
        other_gid_ = daemon_gid_ == kStaff ? kStaff + 1 : kStaff;
    }
    gid_t daemon_gid_ = 0;
    gid_t other_gid_ = 0;
};

TEST(Caller, RootMayAlwaysChange) {
    const Caller root{0, 0, {}};
    EXPECT_TRUE(may_change(root, std::nullopt));
    EXPECT_TRUE(may_change(root, std::string(kNoSuchGroup)));
    EXPECT_TRUE(may_change(root, std::string("daemon")));
}

TEST(Caller, RootByUidNotByGroup) {
    // gid 0 alone does not make a caller root.
    const Caller c{kUser, 0, {0}};
    auto r = may_change(c, std::nullopt);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "only root");
}

TEST(Caller, NonRootWithoutPolicyGroupIsRefused) {
    const Caller c{kUser, kStaff, {kStaff}};
    auto r = may_change(c, std::nullopt);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "uid 501 may not change the cap");
    EXPECT_CONTAINS(error_of(r), "only root");
}

TEST_F(CallerGroups, GroupThatDoesNotExistIsRefused) {
    const Caller c{kUser, daemon_gid_, {daemon_gid_}};
    auto r = may_change(c, std::string(kNoSuchGroup));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "group '" + std::string(kNoSuchGroup) + "' does not exist");
}

TEST_F(CallerGroups, MemberThroughPrimaryGidMayChange) {
    const Caller c{kUser, daemon_gid_, {}};
    auto r = may_change(c, std::string("daemon"));
    EXPECT_TRUE(r) << error_of(r);
}

TEST_F(CallerGroups, MemberThroughSupplementaryGroupMayChange) {
    const Caller c{kUser, other_gid_, {other_gid_ + 100, daemon_gid_}};
    auto r = may_change(c, std::string("daemon"));
    EXPECT_TRUE(r) << error_of(r);
}

TEST_F(CallerGroups, NonMemberIsRefused) {
    const Caller c{kUser, other_gid_, {other_gid_ + 100}};
    auto r = may_change(c, std::string("daemon"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "not a member of group 'daemon'");
}

TEST_F(CallerGroups, RootGroupMembershipIsAGroupLikeAnyOther) {
    const gid_t root_gid = gid_of("root");
    if (root_gid == static_cast<gid_t>(-1))
        GTEST_SKIP() << "no group 'root' (macOS calls gid 0 'wheel')";
    EXPECT_TRUE(may_change(Caller{kUser, other_gid_, {root_gid}}, std::string("root")));
    EXPECT_FALSE(may_change(Caller{kUser, other_gid_, {daemon_gid_}}, std::string("root")));
}

TEST(Caller, CurrentCallerIsTheRealIdentity) {
    const Caller c = current_caller();
    EXPECT_EQ(c.uid, ::getuid());
    EXPECT_EQ(c.gid, ::getgid());
    const int n = ::getgroups(0, nullptr);
    ASSERT_GE(n, 0);
    EXPECT_EQ(c.groups.size(), static_cast<std::size_t>(n));
}

}  // namespace
}  // namespace wiredcap::identity
