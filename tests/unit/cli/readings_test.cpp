// The helper's `read` line as wiredcap's typed readings (cli/readings/readings.cpp), for the members
// the boot guard added: `uptime_s` and `boot_guard`. Every member keeps its source, and a member the
// helper left out (or could not read) stays unknown: never 0, never a default.
#include "wiredcap/cli/readings/readings.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;

json::Value parsed(const std::string& text) {
    auto v = json::parse(text);
    EXPECT_TRUE(v) << text;
    return v ? *v : json::Value();
}

// A `read` line as the helper prints it, with `extra` members appended.
MachineReadings read_line(const std::string& extra) {
    return readings_of(parsed(R"({"v":1,"command":"read","backend":"simulated",)"
                              R"("wired_limit_mib":{"value":0,"source":"kernel"},)"
                              R"("boot_id":{"value":"BOOT-A","source":"kernel"})" +
                              extra + R"(,"ok":true})"),
                       0);
}

std::optional<BootGuard> guard_from(const std::string& text) {
    const json::Value v = parsed(text);
    return boot_guard_of(&v);
}

constexpr const char* kTrying =
    R"({"source":"boot state file /var/lib/wiredcap/boot.state","switch":"/etc/wiredcap.boot-disabled",)"
    R"("disabled":false,"persisted_mib":98304,"basis":"confirmed","persisted_time":"2026-11-29T10:00:00Z",)"
    R"("guard":"trying","guard_boot":"BOOT-A","guard_time":"2026-11-29T10:00:31Z","applied_uptime_s":31,)"
    R"("healthy_after_s":600})";

TEST(Readings, UptimeIsAKernelReadingInSeconds) {
    const MachineReadings m = read_line(R"(,"uptime_s":{"value":612,"source":"kernel"})");
    ASSERT_TRUE(m.uptime.value);
    EXPECT_EQ(m.uptime.value->count(), 612);
    EXPECT_EQ(m.uptime.source, "kernel");
}

TEST(Readings, UnreadableUptimeIsUnknownWithTheHelpersReason) {
    const MachineReadings m =
        read_line(R"(,"uptime_s":{"value":null,"source":"kernel","error":"no clock"})");
    EXPECT_FALSE(m.uptime.value);
    EXPECT_EQ(m.uptime.error, "no clock");
    // Not an integer of seconds (negative, fractional): unknown, never rounded or clamped.
    EXPECT_FALSE(read_line(R"(,"uptime_s":{"value":-1,"source":"kernel"})").uptime.value);
    EXPECT_FALSE(read_line(R"(,"uptime_s":{"value":1.5,"source":"kernel"})").uptime.value);
}

TEST(Readings, MissingUptimeAndBootGuardAreUnknown) {
    const MachineReadings m = read_line("");  // a helper from before the boot guard
    EXPECT_FALSE(m.uptime.value);
    EXPECT_EQ(m.uptime.error, "not reported by the helper");
    EXPECT_FALSE(m.boot_guard);
}

TEST(Readings, BootGuardTryingKeepsEveryMemberAndItsSource) {
    const MachineReadings m = read_line(std::string(R"(,"boot_guard":)") + kTrying);
    ASSERT_TRUE(m.boot_guard);
    const BootGuard& g = *m.boot_guard;
    EXPECT_EQ(g.source, "boot state file /var/lib/wiredcap/boot.state");
    EXPECT_EQ(g.switch_path, "/etc/wiredcap.boot-disabled");
    EXPECT_EQ(g.disabled, std::optional<bool>(false));
    ASSERT_TRUE(g.persisted);
    EXPECT_EQ(*g.persisted, 96_GiB);
    EXPECT_TRUE(g.error.empty());
    EXPECT_EQ(g.confirmed, std::optional<bool>(true));
    EXPECT_EQ(g.persisted_time, "2026-11-29T10:00:00Z");
    EXPECT_EQ(g.guard, std::optional<GuardState>(GuardState::trying));
    EXPECT_EQ(g.guard_boot, "BOOT-A");
    EXPECT_EQ(g.guard_time, "2026-11-29T10:00:31Z");
    EXPECT_EQ(g.applied_uptime_s, std::optional<std::uint64_t>(31));
    EXPECT_EQ(g.healthy_after_s, std::optional<std::uint64_t>(600));
    EXPECT_TRUE(g.reason.empty());
}

TEST(Readings, BootGuardNothingStoredIsNotAnError) {
    const auto g = guard_from(R"({"source":"boot state file /b","switch":"/s","disabled":true,)"
                              R"("persisted_mib":null})");
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->persisted);
    EXPECT_TRUE(g->error.empty());  // nothing stored: known, not unknown
    EXPECT_EQ(g->disabled, std::optional<bool>(true));
    EXPECT_FALSE(g->guard);
    EXPECT_FALSE(g->confirmed);
}

TEST(Readings, BootGuardUnreadableStateFileIsUnknownWithWhy) {
    const auto g = guard_from(R"({"source":"boot state file /b","switch":"/s","disabled":false,)"
                              R"("persisted_mib":null,"error":"boot.state: line 3: bad"})");
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->persisted);
    EXPECT_EQ(g->error, "boot.state: line 3: bad");
}

TEST(Readings, BootGuardMissingMembersStayUnknown) {
    // No persisted_mib member at all: whether anything is stored is unknown, not "nothing".
    auto g = guard_from(R"({"source":"boot state file /b"})");
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->persisted);
    EXPECT_FALSE(g->error.empty());
    EXPECT_FALSE(g->disabled);  // not reported: unknown, not "enabled"
    // A value that is not a whole MiB count is not read as one.
    g = guard_from(R"({"source":"s","persisted_mib":"98304"})");
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->persisted);
    EXPECT_FALSE(g->error.empty());
}

TEST(Readings, BootGuardTrippedKeepsItsReason) {
    const auto g = guard_from(
        R"({"source":"s","switch":"/s","disabled":false,"persisted_mib":98304,"basis":"unconfirmed",)"
        R"("persisted_time":"T0","guard":"tripped","guard_boot":"BOOT-C","guard_time":"T2","applied_uptime_s":31,)"
        R"("reason":"boot BOOT-B applied 98304 MiB at T1 and it was never recorded healthy"})");
    ASSERT_TRUE(g);
    EXPECT_EQ(g->guard, std::optional<GuardState>(GuardState::tripped));
    EXPECT_EQ(g->confirmed, std::optional<bool>(false));
    EXPECT_EQ(g->reason, "boot BOOT-B applied 98304 MiB at T1 and it was never recorded healthy");
    EXPECT_FALSE(g->healthy_after_s);  // the policy did not load: absent, so unknown
}

TEST(Readings, GuardStatesByName) {
    for (const GuardState s : {GuardState::armed, GuardState::trying, GuardState::healthy,
                               GuardState::tripped, GuardState::failed})
        EXPECT_EQ(guard_state_of(guard_state_name(s)), std::optional<GuardState>(s));
    EXPECT_FALSE(guard_state_of("Tripped"));
    EXPECT_FALSE(guard_state_of(""));
    const auto g = guard_from(R"({"source":"s","persisted_mib":1024,"guard":"exploded"})");
    ASSERT_TRUE(g);
    EXPECT_FALSE(g->guard);
    EXPECT_EQ(g->guard_name, "exploded");
}

TEST(Readings, BootGuardThatIsNotAnObjectIsAbsent) {
    EXPECT_FALSE(boot_guard_of(nullptr));
    EXPECT_FALSE(guard_from("null"));
    EXPECT_FALSE(guard_from("[]"));
}

TEST(Readings, PolicyHealthyAfterIsRead) {
    const MachineReadings m = read_line(
        R"(,"policy":{"source":"policy file","path":"/etc/wiredcap.conf","min_mib":65536,"max_mib":180224,)"
        R"("reserve_mib":16384,"max_step_mib":16384,"healthy_after_s":900,"group":null,"warnings":[]})");
    ASSERT_TRUE(m.policy);
    EXPECT_EQ(m.policy->healthy_after_s, std::optional<std::uint64_t>(900));
}

}  // namespace
}  // namespace wiredcap::cli
