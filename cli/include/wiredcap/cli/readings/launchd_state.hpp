// Whether the LaunchDaemon that applies a value stored for boot (org.wiredcap.boot) will run:
// loaded in launchd's system domain, and not switched off. Since macOS 13 a person can turn
// background items off in System Settings (the pane's name per release: daemon_texts.hpp), and an
// administrator can `launchctl disable` it. That launchd then lists the
// daemon in `launchctl print-disabled system` is an assumption not yet confirmed on a Mac
// (Background Task Management keeps its own store, `sfltool dumpbtm`; tools/mac-smoke asks for
// both): "enabled" here means launchd's override database does not disable it. A value stored
// with `wiredcap persist` has no effect while the daemon is not loaded or is disabled.
//
// Read with /bin/launchctl on a Mac; off macOS there is no launchd and the state is not
// applicable. The simulated Mac has none either, unless a test gave it one (`wiredcap-sim
// launchd`), so that each state's words can be shown for each macOS release. Unknown is a valid
// answer: each part is optional.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace wiredcap::cli {

inline constexpr std::string_view kDaemonLabel = "org.wiredcap.boot";

struct DaemonState {
    bool applicable = false;            // false: not a Mac (or a simulated one): no launchd to ask
    std::optional<bool> loaded;         // launchctl print system/LABEL succeeded
    std::optional<bool> enabled;        // not listed as disabled by launchctl print-disabled system
    std::optional<std::string> macos;   // the macOS release ("15.6"), which names the Settings pane
    std::optional<bool> plist_present;  // /Library/LaunchDaemons/org.wiredcap.boot.plist exists
    std::string source;                 // the commands the answer comes from
    std::string why_unknown;            // why a part is unknown, or why not applicable
};

// Whether `label` is disabled in the output of `launchctl print-disabled system`. Both formats:
// `"label" => disabled` / `=> enabled` (macOS 13 and later) and `=> true` / `=> false`
// (earlier, where true means disabled). A label that is not listed is enabled (launchd's
// default). nullopt: listed with a value this parser does not know.
[[nodiscard]] std::optional<bool> disabled_in(std::string_view print_disabled_output,
                                              std::string_view label);

// The macOS release in the text of /System/Library/CoreServices/SystemVersion.plist (an XML
// plist: <key>ProductVersion</key> then <string>15.6</string>); nullopt when it is not there.
[[nodiscard]] std::optional<std::string> product_version_in(std::string_view plist);

// What the exit status of `launchctl print system/LABEL` says about "loaded": 0 yes; 113
// ("Could not find service") no; anything else (launchctl failed for another reason) unknown.
[[nodiscard]] std::optional<bool> loaded_from_print_status(int status);

// The daemon's state as launchd reports it now; `simulated`: the readings come from the
// simulated Mac at `sim_state` (its default file when nullopt), so launchd (even if there is
// one) is not the one that would apply its value: the simulator's launchd answers instead.
[[nodiscard]] DaemonState read_daemon_state(
    bool simulated, const std::optional<std::string>& sim_state = std::nullopt);

// One line for `status`: "loaded, enabled", "NOT LOADED", "DISABLED: switched off in ...", ...
[[nodiscard]] std::string daemon_text(const DaemonState& d);

// What `persist` says when the stored value will have no effect at boot; nullopt when the
// daemon is loaded and enabled, or when that is not known (nothing to warn about for certain).
[[nodiscard]] std::optional<std::string> persist_warning(const DaemonState& d);

}  // namespace wiredcap::cli
