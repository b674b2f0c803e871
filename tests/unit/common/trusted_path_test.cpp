// Loading files that decide what root does, sudo/doas style (docs/design.md sections 5 and 8):
// realpath on the directory, an O_NOFOLLOW walk checking every directory, and fstat checks on
// the file's own descriptor.
#include "wiredcap/policy/trusted_path.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "../temp_tree.hpp"

namespace wiredcap::trusted {
namespace {

using test::error_of;

constexpr uid_t kNobody = 65534;
constexpr std::size_t kLimit = 64 * 1024;

class TrustedRead : public ::testing::Test {
protected:
    [[nodiscard]] static Expected<std::optional<std::string>> read(const std::string& path,
                                                                   std::size_t max = kLimit) {
        return read_file(path, ::geteuid(), max);
    }

    // read_file in a child process with a 2 s deadline: "ok:<contents>", "missing" or
    // "error:<message>"; an empty result with finished == false means it hung.
    [[nodiscard]] static test::ChildResult read_in_child(const std::string& path) {
        return test::run_in_child([path]() -> std::string {
            auto r = read_file(path, ::geteuid(), kLimit);
            if (!r) return "error:" + r.error().message;
            return r->has_value() ? "ok:" + **r : "missing";
        });
    }

    test::TempTree tree_;
};

// --- what is accepted ----------------------------------------------------------------------

TEST_F(TrustedRead, GoodFileReturnsItsContents) {
    tree_.dir("etc");
    const auto path = tree_.file("etc/wiredcap.conf", "min = 96GiB\nmax = 232GiB\n");
    auto r = read(path);
    ASSERT_TRUE(r) << error_of(r);
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ(**r, "min = 96GiB\nmax = 232GiB\n");
}

TEST_F(TrustedRead, ReadOnlyAndOwnerOnlyModesAreAccepted) {
    for (const mode_t mode : {mode_t{0600}, mode_t{0400}, mode_t{0444}, mode_t{0640}}) {
        const auto path = tree_.file("f" + std::to_string(mode), "x", mode);
        auto r = read(path);
        ASSERT_TRUE(r) << std::oct << mode << ": " << error_of(r);
        EXPECT_EQ(r->value_or("(missing)"), "x");
    }
}

TEST_F(TrustedRead, EmptyFileIsEmptyNotMissing) {
    const auto path = tree_.file("empty", "");
    auto r = read(path);
    ASSERT_TRUE(r) << error_of(r);
    ASSERT_TRUE(r->has_value());
    EXPECT_EQ(**r, "");
}

TEST_F(TrustedRead, FileOfExactlyTheLimitIsAccepted) {
    const auto path = tree_.file("f", std::string(100, 'a'));
    auto r = read(path, 100);
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_EQ(r->value_or("").size(), 100U);
}

TEST_F(TrustedRead, ContentsLargerThanOneReadBufferAreReadWhole) {
    std::string big;
    for (int i = 0; i < 3000; ++i) big += static_cast<char>('a' + i % 26);
    const auto path = tree_.file("big", big + big + big);
    auto r = read(path);
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_EQ(r->value_or(""), big + big + big);
}

TEST_F(TrustedRead, MissingFileIsNotAnError) {
    auto r = read(tree_.path("no-such-file"));
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_FALSE(r->has_value());
}

TEST_F(TrustedRead, MissingDirectoryIsNotAnError) {
    auto r = read(tree_.path("no-such-dir/wiredcap.conf"));
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_FALSE(r->has_value());
}

TEST_F(TrustedRead, SymlinkedParentResolvingToSecureDirectoryIsAccepted) {
    tree_.dir("real");
    tree_.file("real/f", "via alias");
    ASSERT_EQ(::symlink(tree_.path("real").c_str(), tree_.path("alias").c_str()), 0);
    auto r = read(tree_.path("alias/f"));
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_EQ(r->value_or("(missing)"), "via alias");
}

// --- the file itself -----------------------------------------------------------------------

TEST_F(TrustedRead, SymlinkIsRefused) {
    const auto target = tree_.file("target", "x");
    ASSERT_EQ(::symlink(target.c_str(), tree_.path("link").c_str()), 0);
    auto r = read(tree_.path("link"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "symbolic link");
}

TEST_F(TrustedRead, DanglingSymlinkIsRefusedNotMissing) {
    ASSERT_EQ(::symlink(tree_.path("nowhere").c_str(), tree_.path("link").c_str()), 0);
    auto r = read(tree_.path("link"));
    ASSERT_FALSE(r) << "a dangling symlink must not read as 'no file'";
    EXPECT_CONTAINS(error_of(r), "symbolic link");
}

// A second name changes nothing about who may write the file; refusing it would let any user
// who can hard-link root's file (macOS) make it unusable.
TEST_F(TrustedRead, HardLinkedFileIsReadUnderBothNames) {
    const auto a = tree_.file("a", "x");
    ASSERT_EQ(::link(a.c_str(), tree_.path("b").c_str()), 0);
    for (const auto& path : {a, tree_.path("b")}) {
        auto r = read(path);
        ASSERT_TRUE(r) << path << ": " << error_of(r);
        ASSERT_TRUE(r->has_value());
        EXPECT_EQ(**r, "x");
    }
}

TEST_F(TrustedRead, GroupWritableFileIsRefused) {
    const auto path = tree_.file("f", "x", 0664);
    auto r = read(path);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "writable by group or others (mode 0664)");
}

TEST_F(TrustedRead, WorldWritableFileIsRefused) {
    const auto path = tree_.file("f", "x", 0646);
    auto r = read(path);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "writable by group or others (mode 0646)");
}

TEST_F(TrustedRead, FileOwnedByAnotherUidIsRefused) {
    if (!test::running_as_root()) GTEST_SKIP() << "needs root to chown a file to another uid";
    const auto path = tree_.file("f", "x");
    ASSERT_EQ(::chown(path.c_str(), kNobody, kNobody), 0);
    auto r = read(path);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "is owned by uid 65534, must be owned by uid 0");
}

TEST_F(TrustedRead, DirectoryIsRefused) {
    tree_.dir("d");
    auto r = read(tree_.path("d"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "is a directory");
}

TEST_F(TrustedRead, FifoIsRefusedWithoutHanging) {
    const auto path = tree_.path("fifo");
    ASSERT_EQ(::mkfifo(path.c_str(), 0644), 0);
    const auto r = read_in_child(path);
    ASSERT_TRUE(r.finished) << "read_file blocked on a FIFO with no writer";
    EXPECT_CONTAINS(r.output, "error:");
    EXPECT_CONTAINS(r.output, "not a regular file");
}

TEST_F(TrustedRead, CharacterDevicesAreRefused) {
    for (const std::string dev : {"/dev/zero", "/dev/null"}) {
        struct stat st {};
        if (::stat(dev.c_str(), &st) != 0 || !S_ISCHR(st.st_mode)) continue;
        const auto r = read_in_child(dev);
        ASSERT_TRUE(r.finished) << dev << " made read_file block";
        EXPECT_CONTAINS(r.output, "error:" + dev);
        EXPECT_NOT_CONTAINS(r.output, "ok:");
    }
}

TEST_F(TrustedRead, FileLargerThanTheLimitIsRefused) {
    const auto path = tree_.file("f", std::string(101, 'a'));
    auto r = read(path, 100);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "larger than 100 bytes");
}

// --- the directories on the way ------------------------------------------------------------

TEST_F(TrustedRead, WorldWritableParentIsRefusedByName) {
    tree_.dir("a/b");
    tree_.file("a/b/f", "x");
    ::chmod(tree_.path("a").c_str(), 0777);
    auto r = read(tree_.path("a/b/f"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r),
                    "directory " + tree_.path("a") + " is writable by group or others (mode 0777)");
}

TEST_F(TrustedRead, GroupWritableParentIsRefusedByName) {
    tree_.dir("a");
    tree_.file("a/f", "x");
    ::chmod(tree_.path("a").c_str(), 0775);
    auto r = read(tree_.path("a/f"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r),
                    "directory " + tree_.path("a") + " is writable by group or others (mode 0775)");
}

TEST_F(TrustedRead, InsecureParentIsRefusedEvenWhenTheFileIsMissing) {
    tree_.dir("open", 0777);
    auto r = read(tree_.path("open/missing"));
    ASSERT_FALSE(r) << "a missing file in an insecure directory must not read as 'no policy'";
    EXPECT_CONTAINS(error_of(r), tree_.path("open"));
}

// A sticky world-writable directory (like /tmp) may be on the way: nobody but an entry's
// owner can rename or remove that entry, and the entry itself is checked next.
TEST_F(TrustedRead, StickyWorldWritableParentIsAccepted) {
    tree_.dir("sticky/etc");
    ::chmod(tree_.path("sticky").c_str(), 01777);
    const auto path = tree_.file("sticky/etc/f", "x");
    auto r = read(path);
    ASSERT_TRUE(r) << error_of(r);
    EXPECT_EQ(r->value_or("(missing)"), "x");
}

// ...but what sits in it must still be ours: a component owned by another user is refused.
TEST_F(TrustedRead, ForeignDirectoryInsideAStickyParentIsRefused) {
    if (!test::running_as_root()) GTEST_SKIP() << "needs root to chown a directory to another uid";
    tree_.dir("sticky/theirs");
    ::chmod(tree_.path("sticky").c_str(), 01777);
    const auto path = tree_.file("sticky/theirs/f", "x");
    ASSERT_EQ(::chown(tree_.path("sticky/theirs").c_str(), kNobody, kNobody), 0);
    auto r = read(path);
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r),
                    "directory " + tree_.path("sticky/theirs") + " is owned by uid 65534");
}

TEST_F(TrustedRead, ParentOwnedByAnotherUidIsRefused) {
    if (!test::running_as_root()) GTEST_SKIP() << "needs root to chown a directory to another uid";
    tree_.dir("theirs");
    tree_.file("theirs/f", "x");
    ASSERT_EQ(::chown(tree_.path("theirs").c_str(), kNobody, kNobody), 0);
    auto r = read(tree_.path("theirs/f"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "directory " + tree_.path("theirs") + " is owned by uid 65534");
}

TEST_F(TrustedRead, ParentThatIsARegularFileIsRefused) {
    tree_.file("plain", "x");
    auto r = read(tree_.path("plain/f"));
    EXPECT_FALSE(r);
}

TEST_F(TrustedRead, SymlinkedParentResolvingToInsecureDirectoryIsRefused) {
    tree_.dir("open");
    tree_.file("open/f", "x");
    ::chmod(tree_.path("open").c_str(), 0777);
    ASSERT_EQ(::symlink(tree_.path("open").c_str(), tree_.path("alias").c_str()), 0);
    auto r = read(tree_.path("alias/f"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r),
                    "directory " + tree_.path("open") + " is writable by group or others");
}

// --- the path itself -----------------------------------------------------------------------

TEST_F(TrustedRead, RelativePathIsRefused) {
    for (const std::string path : {"etc/wiredcap.conf", "wiredcap.conf", "./x", ""}) {
        auto r = read(path);
        ASSERT_FALSE(r) << "'" << path << "'";
        EXPECT_CONTAINS(error_of(r), "not an absolute path");
    }
}

TEST_F(TrustedRead, PathEndingInSlashIsRefused) {
    tree_.dir("d");
    auto r = read(tree_.path("d/"));
    ASSERT_FALSE(r);
    EXPECT_CONTAINS(error_of(r), "names a directory, not a file");
}

TEST(TrustedSplitPath, SplitsDirectoryAndName) {
    auto a = split_path("/etc/wiredcap.conf");
    ASSERT_TRUE(a) << error_of(a);
    EXPECT_EQ(a->dir, "/etc");
    EXPECT_EQ(a->name, "wiredcap.conf");

    auto b = split_path("/wiredcap.conf");
    ASSERT_TRUE(b) << error_of(b);
    EXPECT_EQ(b->dir, "/");
    EXPECT_EQ(b->name, "wiredcap.conf");

    EXPECT_FALSE(split_path("/"));
}

}  // namespace
}  // namespace wiredcap::trusted
