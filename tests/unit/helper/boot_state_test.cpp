// The boot state file (helper/include/wiredcap/helper/boot/boot_state.hpp): exact format both ways, refusal of anything
// else, and the store's atomic replace, remove and trust checks.
#include "wiredcap/helper/boot/boot_state.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <string>

#include "../temp_tree.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::boot {
namespace {

using namespace units::literals;
using test::error_of;
using test::TempTree;

State trying_state() {
    State s;
    s.value = 96_GiB;
    s.confirmed = true;
    s.persisted_time = 1764410000;
    s.guard = Guard::trying;
    s.guard_boot = "89934BAE-A6A0-4A0C-9D5D-1B9AF7C5DF10";
    s.guard_time = 1764410031;
    s.applied_uptime_s = 31;
    return s;
}

const std::string kTryingText =
    "# wiredcap boot state: written by wiredcap-helper; do not edit (see wiredcap-helper(8))\n"
    "value_mib=98304\nbasis=confirmed\npersisted_time=1764410000\nguard=trying\n"
    "guard_boot=89934BAE-A6A0-4A0C-9D5D-1B9AF7C5DF10\nguard_time=1764410031\napplied_uptime_s=31\nreason=-\n";

TEST(BootState, SerializesToTheDocumentedFormat) {
    EXPECT_EQ(serialize(trying_state()), kTryingText);
}

TEST(BootState, ParsesWhatItWrites) {
    for (Guard g : {Guard::armed, Guard::trying, Guard::healthy, Guard::tripped, Guard::failed}) {
        State s = trying_state();
        s.guard = g;
        if (g == Guard::tripped)
            s.reason = "boot X applied 98304 MiB and it was never recorded healthy";
        s.confirmed = g != Guard::failed;
        auto back = parse(serialize(s));
        ASSERT_TRUE(back) << error_of(back);
        EXPECT_EQ(*back, s) << guard_name(g);
    }
}

TEST(BootState, RefusesAnythingElse) {
    auto with = [](const std::string& from, const std::string& to) {
        std::string t = kTryingText;
        t.replace(t.find(from), from.size(), to);
        return t;
    };
    const std::pair<std::string, std::string> cases[] = {
        {"", "no header"},
        {kTryingText.substr(0, kTryingText.size() - 1), "torn: no final newline"},
        {kTryingText + "extra=1\n", "a key too many"},
        {with("value_mib=98304", "value_mib=0"), "zero value"},
        {with("value_mib=98304", "value_mib=98304MiB"), "unit in the number"},
        {with("value_mib=98304", "value_mib=-1"), "negative"},
        {with("value_mib=98304", "value_mib=099"), "leading zero"},
        {with("value_mib=98304", "value_mib=18446744073709551615"), "more bytes than 64 bits hold"},
        {with("basis=confirmed", "basis=yes"), "unknown basis"},
        {with("guard=trying", "guard=ok"), "unknown guard"},
        {with("guard_boot=89934BAE-A6A0-4A0C-9D5D-1B9AF7C5DF10", "guard_boot=-"),
         "trying without a boot id"},
        {with("applied_uptime_s=31", "applied_uptime_s=x"), "bad uptime"},
        {with("reason=-", "reason=a\x1b[2Jb"), "control character in the reason"},
        {with("guard=trying\n", "guard_boot=x\nguard=trying\n"), "keys out of order"},
        {with("reason=-", "reason="), "empty value"},
    };
    for (const auto& [text, what] : cases) EXPECT_FALSE(parse(text)) << what;
    EXPECT_TRUE(parse(with("guard=trying\nguard_boot=89934BAE-A6A0-4A0C-9D5D-1B9AF7C5DF10",
                           "guard=armed\nguard_boot=-")))
        << "armed in an unknown boot";
}

// persist --unconfirmed records where the boot action's one step starts; a file
// written before that existed ends at reason= and still reads, without a start.
TEST(BootState, StartingPointIsOptionalAndExact) {
    State s = trying_state();
    s.confirmed = false;
    s.start = 158_GiB;
    s.start_source = "simulated-metal";
    const std::string text = serialize(s);
    EXPECT_NE(text.find("reason=-\nstart_mib=161792\nstart_source=simulated-metal\n"),
              std::string::npos)
        << text;
    auto back = parse(text);
    ASSERT_TRUE(back) << error_of(back);
    EXPECT_EQ(*back, s);
    auto old = parse(kTryingText);
    ASSERT_TRUE(old) << error_of(old);
    EXPECT_FALSE(old->start.has_value());
    const std::string refused[] = {
        kTryingText + "start_mib=161792\n",                               // no source
        kTryingText + "start_source=metal\nstart_mib=161792\n",           // out of order
        kTryingText + "start_mib=0\nstart_source=metal\n",                // zero
        kTryingText + "start_mib=161792\nstart_source=kernel\n",          // unknown source
        kTryingText + "start_mib=161792\nstart_source=metal\nextra=1\n",  // a key too many
    };
    for (const auto& t : refused) EXPECT_FALSE(parse(t)) << t;
}

// The start is labelled the caller's claim ("given by uid N"), the source it
// named kept apart (start_said); a file written before (its word as the source) still reads.
TEST(BootState, StartIsLabelledAsTheCallersClaim) {
    State s = trying_state();
    s.confirmed = false;
    s.start = 158_GiB;
    s.start_source = "given by uid 65534";
    s.start_said = "metal";
    const std::string text = serialize(s);
    EXPECT_NE(text.find("start_mib=161792\nstart_source=given by uid 65534\nstart_said=metal\n"),
              std::string::npos)
        << text;
    auto back = parse(text);
    ASSERT_TRUE(back) << error_of(back);
    EXPECT_EQ(*back, s);
    auto older = parse(kTryingText + "start_mib=161792\nstart_source=metal\n");
    ASSERT_TRUE(older) << error_of(older);
    EXPECT_TRUE(older->start_said.empty());
    const std::string refused[] = {
        kTryingText +
            "start_mib=161792\nstart_source=given by uid x\nstart_said=metal\n",       // no uid
        kTryingText + "start_mib=161792\nstart_source=given by uid 0\nstart_said=\n",  // empty
        kTryingText + "start_mib=161792\nstart_source=given by uid 0\nstart_said=metal\nx=1\n",
    };
    for (const auto& t : refused) EXPECT_FALSE(parse(t)) << t;
}

class BootStore : public ::testing::Test {
protected:
    TempTree tree;
    std::string dir = tree.dir("state");
    std::string path = dir + "/boot.state";
};

TEST_F(BootStore, NothingStoredReadsAsNothing) {
    auto s = read(path, ::geteuid());
    ASSERT_TRUE(s) << error_of(s);
    EXPECT_FALSE(s->has_value());
}

TEST_F(BootStore, SaveLoadRemove) {
    auto store = Store::open(path, ::geteuid());
    ASSERT_TRUE(store) << error_of(store);
    ASSERT_TRUE(store->save(trying_state()));
    EXPECT_EQ(TempTree::slurp(path), kTryingText);
    struct stat st {};
    ASSERT_EQ(::stat(path.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
    EXPECT_FALSE(std::filesystem::exists(path + ".new"))
        << "the temporary file was renamed into place";
    auto loaded = store->load();
    ASSERT_TRUE(loaded && loaded->has_value()) << error_of(loaded);
    EXPECT_EQ(**loaded, trying_state());
    auto removed = store->remove();
    ASSERT_TRUE(removed) << error_of(removed);
    EXPECT_TRUE(*removed);
    removed = store->remove();
    ASSERT_TRUE(removed);
    EXPECT_FALSE(*removed) << "removing nothing says so";
}

TEST_F(BootStore, RefusesAStateItCannotTrust) {
    tree.file("state/boot.state", kTryingText, 0666);
    auto s = read(path, ::geteuid());
    EXPECT_FALSE(s) << "a world-writable state file is not trusted";
    std::filesystem::remove(path);
    tree.file("elsewhere", kTryingText);
    std::filesystem::create_symlink(tree.path("elsewhere"), path);
    s = read(path, ::geteuid());
    ASSERT_FALSE(s);
    EXPECT_CONTAINS(s.error().message, "symbolic link");
}

TEST_F(BootStore, NeedsItsDirectory) {
    auto store = Store::open(tree.path("missing/boot.state"), ::geteuid());
    ASSERT_FALSE(store);
    EXPECT_CONTAINS(store.error().message, "does not exist");
}

}  // namespace
}  // namespace wiredcap::boot
