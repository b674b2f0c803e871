// GRUB as wiredcap uses it: a one-shot trial entry and, once confirmed, the default entry.
//
// One-shot: wiredcap writes a menu entry with the parameter to /boot/grub/custom.cfg (which
// grub.cfg's 41_custom section sources at boot, so no update-grub is needed) and sets
// next_entry in /boot/grub/grubenv with GRUB's own grub-editenv, as grub-reboot does. GRUB's
// 00_header section boots next_entry once and clears it (save_env) BEFORE loading the kernel,
// so a hang or a power-button reset during the trial boots the unchanged default entry: the
// revert needs no software of ours to run.
// Default: GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub (Debian, Ubuntu).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/units/expected.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kGrubEnv = "/boot/grub/grubenv";
inline constexpr std::string_view kGrubCfg = "/boot/grub/grub.cfg";
inline constexpr std::string_view kGrubCustom = "/boot/grub/custom.cfg";
inline constexpr std::string_view kGrubDefaults = "/etc/default/grub";
inline constexpr std::string_view kUpdateGrub = "/usr/sbin/update-grub";
inline constexpr std::string_view kTrialEntryId = "wiredcap-trial";
// The first line of every custom.cfg wiredcap writes: what it may remove again.
inline constexpr std::string_view kCustomMarker = "# wiredcap trial entry";

struct MenuEntry {
    std::string title;
    std::string id;                  // --id, or empty
    std::vector<std::string> lines;  // the body between the braces
    std::string linux_args;          // the `linux` line's words after the kernel image
};

// The top-level menu entries of a grub.cfg (submenus are skipped: the default is a top entry).
[[nodiscard]] std::vector<MenuEntry> parse_menu_entries(std::string_view cfg);

class Grub {
public:
    explicit Grub(SystemRoot root) : root_(std::move(root)) {}

    // Why GRUB's one-shot cannot be used on this system, or nullopt when it can.
    [[nodiscard]] std::optional<std::string> unusable() const;

    // grubenv as grub-editenv lists it.
    [[nodiscard]] Expected<std::map<std::string, std::string>> env() const;
    // The entry the next boot starts: next_entry when set, else the default.
    [[nodiscard]] Expected<MenuEntry> default_entry() const;

    // Writes the trial entry (the default's body with `name=value` on its linux line) and sets
    // next_entry to it.
    [[nodiscard]] Expected<Ok> schedule(std::string_view name, std::string_view value) const;
    // Clears next_entry when it is wiredcap's and removes wiredcap's custom.cfg. Returns what
    // it did, one line per place.
    [[nodiscard]] Expected<std::vector<std::string>> cancel() const;
    // GRUB_CMDLINE_LINUX_DEFAULT gets `name=value` (replacing an earlier one), then update-grub.
    [[nodiscard]] Expected<Ok> make_default(std::string_view name, std::string_view value) const;
    // Removes `name=...` from GRUB_CMDLINE_LINUX_DEFAULT and runs update-grub.
    [[nodiscard]] Expected<Ok> remove_default(std::string_view name) const;
    // The value of `name` in GRUB_CMDLINE_LINUX_DEFAULT / GRUB_CMDLINE_LINUX, if any.
    [[nodiscard]] std::optional<std::string> default_value(std::string_view name, bool linux_only = false) const;

private:
    [[nodiscard]] Expected<Ok> editenv(const std::vector<std::string>& args) const;
    [[nodiscard]] Expected<Ok> update_grub() const;
    [[nodiscard]] Expected<Ok> edit_cmdline_default(const std::string& new_value) const;
    SystemRoot root_;
};

}  // namespace wiredcap::linux_amd
