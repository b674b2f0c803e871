// What wiredcap tells a person about the boot action's LaunchDaemon, in one table: where System
// Settings lists it on each macOS release, and what switches it off and on again. status,
// persist and (through `status --json`) tools/mac-smoke all say it with these words.
//
// The pane was renamed twice (checked December 2026; Apple's own user guide for 15 and 26 was
// not found in the reference corpus, so the sources are these):
//   13, 14  General > Login Items > Allow in the Background
//           (Apple DTS, developer.apple.com/forums/thread/732805)
//   15      General > Login Items & Extensions > Allow in the Background ("On macOS Sequoia,
//           this option has been renamed 'Login Items & Extensions'",
//           eshop.macsales.com/blog/96169)
//   26      General > Login Items & Extensions > App Background Activity (H. Oakley, "Manage
//           Login and Background items", eclecticlight.co, 3 December 2025, on macOS 26)
// Either a person's switch there or an administrator's `launchctl disable` shows as disabled in
// `launchctl print-disabled system`; nothing wiredcap reads tells the two apart, so both
// remedies are given.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wiredcap::cli {

// The command that undoes an administrator's `launchctl disable` (launchctl(1): enable
// service-target); it takes effect at the next boot, which is when the daemon runs.
inline constexpr std::string_view kEnableCommand = "sudo launchctl enable system/org.wiredcap.boot";

// The major release of a macOS version string ("15.6" -> 15); nullopt when it is not one.
[[nodiscard]] std::optional<int> macos_major(std::string_view release);

// "System Settings > General > ..." for that release (e.g. "15.6"); for an unknown release,
// the names of both eras.
[[nodiscard]] std::string settings_path(std::optional<std::string_view> release);

// What `status` says of a disabled daemon, and persist's warning: both causes, both remedies.
[[nodiscard]] std::string disabled_text(std::optional<std::string_view> release);
[[nodiscard]] std::string disabled_warning(std::optional<std::string_view> release);

// persist's warning for a daemon launchd does not know: `plist_present` false (a Homebrew
// install, where nothing installs it) gives no bootstrap advice for a file that is not there.
[[nodiscard]] std::string not_loaded_warning(bool plist_present);

// When a model server should start: after the boot action applied the stored value, because a
// process reads Metal's figure once and keeps it (persist's output, docs/install.md).
inline constexpr std::string_view kStartServersAfter =
    "Start model servers (LM Studio, the Ollama app, brew services) after the boot action has applied it "
    "(wiredcap status: \"applied at uptime\"): one started earlier keeps the OS default's figure until it "
    "restarts.";

}  // namespace wiredcap::cli
