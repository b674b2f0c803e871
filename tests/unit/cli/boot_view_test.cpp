// What `wiredcap status` says about the value stored for boot (cli/commands/boot_view.cpp): the first-line
// alert, the guard's line in each state, and the one computed figure, checked exactly here
// because the golden transcripts must mask it (the simulated uptime follows the wall clock).
#include "wiredcap/cli/commands/boot_view.hpp"

#include <gtest/gtest.h>

#include <string>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;
using std::chrono::seconds;

bool contains(const std::string& text, const std::string& part) {
    return text.find(part) != std::string::npos;
}

BootGuard stored(GuardState state) {
    BootGuard g;
    g.source = "boot state file /var/lib/wiredcap/boot.state";
    g.switch_path = "/etc/wiredcap.boot-disabled";
    g.disabled = false;
    g.persisted = 96_GiB;
    g.confirmed = true;
    g.persisted_time = "T0";
    g.guard = state;
    g.guard_name = std::string(guard_state_name(state));
    g.guard_boot = "BOOT-A";
    g.guard_time = "T1";
    return g;
}

BootGuard trying(std::uint64_t applied_at, std::uint64_t healthy_after) {
    BootGuard g = stored(GuardState::trying);
    g.applied_uptime_s = applied_at;
    g.healthy_after_s = healthy_after;
    return g;
}

MachineReadings machine(const std::string& boot, std::optional<std::int64_t> uptime_s) {
    MachineReadings m;
    m.backend = "simulated";
    m.boot_id.value = boot;
    m.boot_id.source = "kernel";
    if (uptime_s) m.uptime.value = seconds(*uptime_s);
    else m.uptime.error = "no clock";
    m.uptime.source = "kernel";
    m.knob.value = 96_GiB;
    return m;
}

// ---- the computed figure ---------------------------------------------------------------------

TEST(BootView, HealthyInIsHealthyAfterMinusTheUptimeSinceTheApply) {
    const MachineReadings m = machine("BOOT-A", 100);
    const HealthyIn in = healthy_in(trying(31, 600), m.boot_id, m.uptime);
    ASSERT_TRUE(in.seconds);
    EXPECT_EQ(*in.seconds, 531u);  // 600 - (100 - 31)
}

TEST(BootView, HealthyInIsZeroOnceUpLongEnough) {
    const MachineReadings exactly = machine("BOOT-A", 631);
    EXPECT_EQ(healthy_in(trying(31, 600), exactly.boot_id, exactly.uptime).seconds,
              std::optional<std::uint64_t>(0));
    const MachineReadings later = machine("BOOT-A", 5000);
    EXPECT_EQ(healthy_in(trying(31, 600), later.boot_id, later.uptime).seconds,
              std::optional<std::uint64_t>(0));
}

TEST(BootView, HealthyInIsUnknownWhenATermIsUnknown) {
    const MachineReadings no_clock = machine("BOOT-A", std::nullopt);
    HealthyIn in = healthy_in(trying(31, 600), no_clock.boot_id, no_clock.uptime);
    EXPECT_FALSE(in.seconds);
    EXPECT_TRUE(contains(in.why_unknown, "no clock"));

    const MachineReadings m = machine("BOOT-A", 100);
    BootGuard no_policy = trying(31, 600);
    no_policy.healthy_after_s.reset();
    EXPECT_FALSE(healthy_in(no_policy, m.boot_id, m.uptime).seconds);
    BootGuard no_apply = trying(31, 600);
    no_apply.applied_uptime_s.reset();
    EXPECT_FALSE(healthy_in(no_apply, m.boot_id, m.uptime).seconds);
    // An uptime below the apply's cannot be this boot's: not a negative or wrapped count.
    const MachineReadings earlier = machine("BOOT-A", 10);
    EXPECT_FALSE(healthy_in(trying(31, 600), earlier.boot_id, earlier.uptime).seconds);
}

TEST(BootView, HealthyInAppliesOnlyToAGuardTryingInThisBoot) {
    const MachineReadings other = machine("BOOT-B", 100);
    EXPECT_FALSE(healthy_in(trying(31, 600), other.boot_id, other.uptime).seconds);
    const MachineReadings unknown = machine("unknown", 100);
    EXPECT_FALSE(healthy_in(trying(31, 600), unknown.boot_id, unknown.uptime).seconds);
    BootGuard healthy = trying(31, 600);
    healthy.guard = GuardState::healthy;
    const MachineReadings m = machine("BOOT-A", 100);
    EXPECT_FALSE(healthy_in(healthy, m.boot_id, m.uptime).seconds);
}

// ---- the first line --------------------------------------------------------------------------

TEST(BootView, TrippedGuardIsTheFirstLineWithValueReasonAndWayOut) {
    BootGuard g = stored(GuardState::tripped);
    g.reason = "boot BOOT-B applied 98304 MiB at T0 and it was never recorded healthy";
    const auto alert = boot_alert(g);
    ASSERT_TRUE(alert);
    EXPECT_EQ(
        *alert,
        "BOOT GUARD TRIPPED at T1: the stored 98304 MiB (96.00 GiB, 103.07 GB) was not applied at boot. "
        "Boot BOOT-B applied 98304 MiB at T0 and it was never recorded healthy. "
        "Run: wiredcap persist --off (or persist a lower value). "
        "If the Mac hangs at every start: start in Safe Mode and run sudo touch /etc/wiredcap.boot-disabled; "
        "if it hangs in Safe Mode too, from macOS Recovery (FileVault unlocked) run touch "
        "\"/Volumes/Macintosh HD - Data/private/etc/wiredcap.boot-disabled\" "
        "(man wiredcap: If the Mac hangs at every start)");
}

// Off a Mac's /etc (the simulator, a test tree) there is no Data volume path to give.
TEST(BootView, TrippedAlertGivesNoRecoveryPathForASwitchOutsideEtc) {
    BootGuard g = stored(GuardState::tripped);
    g.switch_path = "/tmp/w/etc/wiredcap.boot-disabled";
    const auto alert = boot_alert(g);
    ASSERT_TRUE(alert);
    EXPECT_TRUE(contains(
        *alert, "start in Safe Mode and run sudo touch /tmp/w/etc/wiredcap.boot-disabled (man"))
        << *alert;
    EXPECT_FALSE(contains(*alert, "/Volumes/")) << *alert;
}

TEST(BootView, FailedBootActionIsTheFirstLine) {
    BootGuard g = stored(GuardState::failed);
    g.reason = "98304 MiB is outside the permitted band.";  // a trailing period is not doubled
    const auto alert = boot_alert(g);
    ASSERT_TRUE(alert);
    EXPECT_EQ(*alert,
              "BOOT ACTION FAILED at T1: 98304 MiB is outside the permitted band. "
              "Run: wiredcap persist --off (or persist a value again)");
}

TEST(BootView, NoAlertWhileTheGuardIsFine) {
    for (const GuardState s : {GuardState::armed, GuardState::trying, GuardState::healthy})
        EXPECT_FALSE(boot_alert(stored(s)));
    EXPECT_FALSE(boot_alert(BootGuard{}));  // nothing stored
}

// ---- the lines -------------------------------------------------------------------------------

TEST(BootView, StoredLineSaysNothingUnknownOrTheValueWithItsBasis) {
    BootGuard none;
    EXPECT_EQ(stored_text(none), "nothing");
    none.error = "cannot read boot.state";
    EXPECT_EQ(stored_text(none), "unknown (cannot read boot.state)");
    EXPECT_EQ(stored_text(stored(GuardState::armed)),
              "98304 MiB (96.00 GiB, 103.07 GB), confirmed in a ramp, stored T0");
    BootGuard unconfirmed = stored(GuardState::armed);
    unconfirmed.confirmed = false;
    EXPECT_TRUE(contains(stored_text(unconfirmed), "unconfirmed (stored with --unconfirmed)"));
}

TEST(BootView, ArmedIsAppliedAtTheNextBoot) {
    const MachineReadings m = machine("BOOT-A", 5);
    EXPECT_EQ(guard_text(stored(GuardState::armed), m), "armed: applied at the next boot");
    BootGuard off = stored(GuardState::armed);
    off.disabled = true;
    EXPECT_TRUE(contains(guard_text(off, m), "but the boot action is disabled"));
    // Stored in an earlier boot, and the boot action has not run in this one yet.
    EXPECT_TRUE(contains(guard_text(stored(GuardState::armed), machine("BOOT-B", 5)),
                         "the boot action's next run applies it"));
}

TEST(BootView, TryingInThisBootShowsTheComputedWait) {
    const MachineReadings m = machine("BOOT-A", 100);
    const BootGuard g = trying(31, 600);
    // When in this boot it was applied: a model server started before then keeps the OS default.
    EXPECT_EQ(
        guard_text(g, m),
        "trying: applied at boot BOOT-A at T1 (applied at uptime 31 s); healthy after 531 s more "
        "uptime");
    EXPECT_TRUE(contains(guard_source(g, m), "computed: "));
    EXPECT_TRUE(contains(guard_text(g, machine("BOOT-A", 700)),
                         "up long enough: the boot action's next run marks it healthy"));
    EXPECT_TRUE(contains(guard_text(g, machine("BOOT-A", std::nullopt)),
                         "healthy after unknown more uptime"));
}

TEST(BootView, TryingWithAnotherValueInForceSaysSoAndStillCountsDown) {
    MachineReadings m = machine("BOOT-A", 100);
    m.knob.value = 80_GiB;  // someone ran `wiredcap set` after the boot action
    const std::string text = guard_text(trying(31, 600), m);
    EXPECT_TRUE(contains(text, "healthy after 531 s more uptime")) << text;
    EXPECT_TRUE(contains(text, "has been changed since and reads 81920 MiB")) << text;
}

TEST(BootView, TryingFromAnEarlierBootWillTrip) {
    const MachineReadings m = machine("BOOT-B", 100);
    const BootGuard g = trying(31, 600);
    EXPECT_TRUE(contains(guard_text(g, m), "an earlier boot that never became healthy"));
    EXPECT_EQ(guard_source(g, m), g.source);  // nothing computed: the file's own word
}

TEST(BootView, HealthyTrippedFailedLines) {
    const MachineReadings m = machine("BOOT-A", 1000);
    EXPECT_EQ(guard_text(stored(GuardState::healthy), m),
              "healthy: applied in this boot (BOOT-A), marked healthy at T1");
    EXPECT_TRUE(contains(guard_text(stored(GuardState::healthy), machine("BOOT-B", 3)),
                         "next run applies it again"));
    BootGuard tripped = stored(GuardState::tripped);
    tripped.reason = "why";
    EXPECT_EQ(guard_text(tripped, m), "TRIPPED at T1: why");
    BootGuard failed = stored(GuardState::failed);
    failed.reason = "why";
    EXPECT_EQ(guard_text(failed, m), "FAILED at T1: why");
    BootGuard odd = stored(GuardState::armed);
    odd.guard.reset();
    odd.guard_name = "exploded";
    EXPECT_EQ(guard_text(odd, m), "unknown (the helper reported guard 'exploded')");
}

TEST(BootView, SwitchLine) {
    BootGuard g = stored(GuardState::armed);
    EXPECT_EQ(switch_text(g), "enabled (nothing at /etc/wiredcap.boot-disabled)");
    g.disabled = true;
    EXPECT_TRUE(contains(switch_text(g), "DISABLED: /etc/wiredcap.boot-disabled exists"));
    g.disabled.reset();
    EXPECT_TRUE(contains(switch_text(g), "unknown"));
}

// ---- JSON ------------------------------------------------------------------------------------

TEST(BootView, JsonCarriesTheComputedFigureWithItsSource) {
    MachineReadings m = machine("BOOT-A", 100);
    m.boot_guard = trying(31, 600);
    const std::string j = boot_guard_status_json(m).text();
    EXPECT_TRUE(contains(
        j, R"("stored":{"value":98304,"source":"boot state file /var/lib/wiredcap/boot.state"})"))
        << j;
    EXPECT_TRUE(contains(j, R"("guard":"trying","guard_boot":"BOOT-A","this_boot":true)")) << j;
    EXPECT_TRUE(contains(j, R"("healthy_in":{"value":531,"source":"computed: )")) << j;
    EXPECT_TRUE(contains(
        j, R"("switch":{"path":"/etc/wiredcap.boot-disabled","present":false,"source":"helper"})"))
        << j;
    EXPECT_TRUE(contains(j, R"("alert":null)")) << j;
}

TEST(BootView, JsonUnknownIsNullWithWhy) {
    MachineReadings m = machine("BOOT-A", std::nullopt);
    m.boot_guard = trying(31, 600);
    EXPECT_TRUE(contains(boot_guard_status_json(m).text(), R"("healthy_in":{"value":null,)"));
    m.boot_guard.reset();  // the helper did not report one
    const std::string j = boot_guard_status_json(m).text();
    EXPECT_TRUE(contains(
        j,
        R"("stored":{"value":null,"source":"helper","why_unknown":"not reported by the helper"})"))
        << j;
    BootGuard unreadable;
    unreadable.source = "boot state file /b";
    unreadable.error = "bad line";
    m.boot_guard = unreadable;
    EXPECT_TRUE(contains(boot_guard_status_json(m).text(), R"("why_unknown":"bad line")"));
}

}  // namespace
}  // namespace wiredcap::cli
