#include "wiredcap/cli/readings/daemon_texts.hpp"

#include <charconv>

namespace wiredcap::cli {
namespace {

constexpr std::string_view kLabel = "org.wiredcap.boot";
constexpr std::string_view kPlist = "/Library/LaunchDaemons/org.wiredcap.boot.plist";

}  // namespace

std::optional<int> macos_major(std::string_view release) {
    int major = 0;
    const auto* end = release.data() + release.size();
    const auto [p, ec] = std::from_chars(release.data(), end, major);
    if (ec != std::errc{} || p == release.data() || (p != end && *p != '.')) return std::nullopt;
    return major;
}

std::string settings_path(std::optional<std::string_view> release) {
    const auto major = release ? macos_major(*release) : std::nullopt;
    if (!major)
        return "System Settings > General > Login Items (Login Items & Extensions from macOS 15) > Allow in the "
               "Background (App Background Activity from macOS 26)";
    if (*major >= 26)
        return "System Settings > General > Login Items & Extensions > App Background Activity";
    if (*major == 15)
        return "System Settings > General > Login Items & Extensions > Allow in the Background";
    return "System Settings > General > Login Items > Allow in the Background";
}

std::string disabled_text(std::optional<std::string_view> release) {
    return "DISABLED: switched off in " + settings_path(release) +
           ", or by an administrator's launchctl disable; switch it on there, or: " +
           std::string(kEnableCommand);
}

std::string disabled_warning(std::optional<std::string_view> release) {
    return "the LaunchDaemon " + std::string(kLabel) + " is disabled (switched off in " +
           settings_path(release) +
           ", or by an administrator's launchctl disable): the stored value will not be applied at boot until you "
           "switch it on there, or run: " +
           std::string(kEnableCommand);
}

std::string not_loaded_warning(bool plist_present) {
    if (!plist_present)
        return "the LaunchDaemon " + std::string(kLabel) + " is not installed (" +
               std::string(kPlist) +
               " is missing, as after a Homebrew install): nothing applies the stored value at boot; the macOS "
               "package installs it (docs/install.md)";
    return "the LaunchDaemon " + std::string(kLabel) +
           " is not loaded: the stored value will not be applied at boot (load it: sudo launchctl bootstrap system " +
           std::string(kPlist) + ")";
}

}  // namespace wiredcap::cli
