// The LaunchDaemon's state as status and persist report it: launchctl print-disabled in both of
// its formats, and what each combination of loaded/enabled makes wiredcap say.
#include "wiredcap/cli/readings/launchd_state.hpp"

#include "wiredcap/cli/readings/daemon_texts.hpp"

#include <gtest/gtest.h>

namespace wiredcap::cli {
namespace {

// macOS 13 and later.
constexpr std::string_view kVentura = R"(disabled services = {
	"com.apple.ftpd" => disabled
	"org.wiredcap.boot2" => enabled
	"org.wiredcap.boot" => disabled
	"com.apple.mdmclient.daemon.runatboot" => enabled
}

login item associations = {
	"org.wiredcap.boot" => "wiredcap"
}
)";

// macOS 12 and earlier: true means disabled.
constexpr std::string_view kMonterey = R"(disabled services = {
	"com.openssh.sshd" => true
	"org.wiredcap.boot" => false
}
)";

// Only 113 ("Could not find service") means not loaded; launchctl failing otherwise says nothing.
TEST(LaunchdState, OnlyExit113OfLaunchctlPrintMeansNotLoaded) {
    EXPECT_EQ(loaded_from_print_status(0), std::optional<bool>(true));
    EXPECT_EQ(loaded_from_print_status(113), std::optional<bool>(false));
    for (const int other : {1, 5, 64, 125, 255})
        EXPECT_EQ(loaded_from_print_status(other), std::nullopt) << other;
}

TEST(LaunchdState, DisabledInTheCurrentFormat) {
    EXPECT_EQ(disabled_in(kVentura, "org.wiredcap.boot"), std::optional<bool>(true));
    // A label that only starts the same is another service.
    EXPECT_EQ(disabled_in(kVentura, "org.wiredcap.boot2"), std::optional<bool>(false));
    EXPECT_EQ(disabled_in(kVentura, "org.wiredcap"), std::optional<bool>(false));
}

TEST(LaunchdState, DisabledInTheOlderFormat) {
    EXPECT_EQ(disabled_in(kMonterey, "org.wiredcap.boot"), std::optional<bool>(false));
    EXPECT_EQ(disabled_in(kMonterey, "com.openssh.sshd"), std::optional<bool>(true));
}

TEST(LaunchdState, NotListedIsEnabledAndAnUnknownValueIsUnknown) {
    EXPECT_EQ(disabled_in("disabled services = {\n}\n", "org.wiredcap.boot"),
              std::optional<bool>(false));
    EXPECT_EQ(disabled_in("", "org.wiredcap.boot"), std::optional<bool>(false));
    EXPECT_EQ(disabled_in("\t\"org.wiredcap.boot\" => maybe\n", "org.wiredcap.boot"), std::nullopt);
}

TEST(LaunchdState, OffMacOSItIsNotApplicableAndPersistDoesNotWarn) {
    const DaemonState d = read_daemon_state(true);
    EXPECT_FALSE(d.applicable);
    EXPECT_EQ(daemon_text(d), "not applicable (the SIMULATED Mac has no launchd)");
    EXPECT_EQ(persist_warning(d), std::nullopt);
#if !defined(__APPLE__)
    EXPECT_EQ(daemon_text(read_daemon_state(false)), "not applicable (not macOS: no launchd)");
#endif
}

DaemonState mac(std::optional<bool> loaded, std::optional<bool> enabled) {
    DaemonState d;
    d.applicable = true;
    d.loaded = loaded;
    d.enabled = enabled;
    d.why_unknown = "cannot run /bin/launchctl print-disabled";
    return d;
}

TEST(LaunchdState, WhatStatusSaysForEachCombination) {
    EXPECT_EQ(daemon_text(mac(true, true)), "loaded, enabled");
    EXPECT_EQ(daemon_text(mac(false, true)), "NOT LOADED, enabled");
    EXPECT_EQ(daemon_text(mac(true, std::nullopt)),
              "loaded, enabled: unknown (cannot run /bin/launchctl print-disabled)");
}

// The golden texts, one per macOS release: the pane's name, both causes, both remedies.
TEST(LaunchdState, DisabledNamesThePaneOfEachReleaseBothCausesAndBothRemedies) {
    DaemonState d = mac(true, false);
    d.macos = "14.7";
    EXPECT_EQ(
        daemon_text(d),
        "loaded, DISABLED: switched off in System Settings > General > Login Items > Allow in the Background, "
        "or by an administrator's launchctl disable; switch it on there, or: sudo launchctl enable "
        "system/org.wiredcap.boot");
    d.macos = "15.6";
    EXPECT_EQ(
        daemon_text(d),
        "loaded, DISABLED: switched off in System Settings > General > Login Items & Extensions > Allow in the "
        "Background, or by an administrator's launchctl disable; switch it on there, or: sudo launchctl enable "
        "system/org.wiredcap.boot");
    d.macos = "26.1";
    EXPECT_EQ(
        daemon_text(d),
        "loaded, DISABLED: switched off in System Settings > General > Login Items & Extensions > App Background "
        "Activity, or by an administrator's launchctl disable; switch it on there, or: sudo launchctl enable "
        "system/org.wiredcap.boot");
    EXPECT_EQ(
        persist_warning(d),
        "the LaunchDaemon org.wiredcap.boot is disabled (switched off in System Settings > General > Login Items "
        "& Extensions > App Background Activity, or by an administrator's launchctl disable): the stored value "
        "will not be applied at boot until you switch it on there, or run: sudo launchctl enable "
        "system/org.wiredcap.boot");
    d.macos.reset();  // unknown release: both eras' names
    EXPECT_EQ(
        settings_path(d.macos),
        "System Settings > General > Login Items (Login Items & Extensions from macOS 15) > Allow in the "
        "Background (App Background Activity from macOS 26)");
}

TEST(LaunchdState, TheReleaseComesFromSystemVersionPlist) {
    const std::string plist =
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<plist version=\"1.0\">\n<dict>\n"
        "\t<key>ProductBuildVersion</key>\n\t<string>24G84</string>\n"
        "\t<key>ProductName</key>\n\t<string>macOS</string>\n"
        "\t<key>ProductVersion</key>\n\t<string>15.6</string>\n</dict>\n</plist>\n";
    EXPECT_EQ(product_version_in(plist), "15.6");
    EXPECT_EQ(product_version_in("<key>ProductName</key><string>macOS</string>"), std::nullopt);
    EXPECT_EQ(
        product_version_in("<key>ProductVersion</key><integer>15</integer><string>x</string>"),
        std::nullopt);
    EXPECT_EQ(product_version_in(""), std::nullopt);
}

TEST(LaunchdState, TheReleaseIsItsMajorNumber) {
    EXPECT_EQ(macos_major("15.6"), 15);
    EXPECT_EQ(macos_major("26"), 26);
    EXPECT_EQ(macos_major("14.7.1"), 14);
    EXPECT_EQ(macos_major(""), std::nullopt);
    EXPECT_EQ(macos_major("x15"), std::nullopt);
    EXPECT_EQ(macos_major("15x"), std::nullopt);
    EXPECT_EQ(settings_path(std::string_view("27.0")),
              "System Settings > General > Login Items & Extensions > App Background Activity");
    EXPECT_EQ(settings_path(std::string_view("13.7")),
              "System Settings > General > Login Items > Allow in the Background");
}

TEST(LaunchdState, PersistWarnsOnlyWhenTheValueWillHaveNoEffect) {
    EXPECT_EQ(persist_warning(mac(true, true)), std::nullopt);
    EXPECT_EQ(persist_warning(mac(true, std::nullopt)),
              std::nullopt);  // unknown: nothing certain to say
    const auto off = persist_warning(mac(true, false));
    ASSERT_TRUE(off);
    EXPECT_NE(off->find("will not be applied at boot"), std::string::npos) << *off;
    EXPECT_NE(off->find("sudo launchctl enable system/org.wiredcap.boot"), std::string::npos)
        << *off;
    const auto unloaded = persist_warning(mac(false, true));
    ASSERT_TRUE(unloaded);
    EXPECT_NE(unloaded->find(
                  "sudo launchctl bootstrap system /Library/LaunchDaemons/org.wiredcap.boot.plist"),
              std::string::npos)
        << *unloaded;
}

// Under Homebrew there is no plist: no advice to bootstrap a file that is not there.
TEST(LaunchdState, NoBootstrapAdviceForAPlistThatIsNotThere) {
    DaemonState d = mac(false, true);
    d.plist_present = false;
    const auto w = persist_warning(d);
    ASSERT_TRUE(w);
    EXPECT_EQ(w->find("bootstrap"), std::string::npos) << *w;
    EXPECT_NE(w->find("is not installed"), std::string::npos) << *w;
}

}  // namespace
}  // namespace wiredcap::cli
