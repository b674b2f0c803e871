// GRUB as wiredcap uses it: a one-shot trial entry and, once confirmed, the default entry.
//
// One-shot: wiredcap writes a menu entry with the parameter to /boot/grub/custom.cfg (which
// grub.cfg's 41_custom section sources at boot, so no update-grub is needed) and sets
// next_entry in /boot/grub/grubenv with GRUB's own grub-editenv, as grub-reboot does. GRUB's
// 00_header section boots next_entry once and clears it (save_env) BEFORE loading the kernel,
// so a hang or a power-button reset during the trial boots the unchanged default entry: the
// revert needs no software of ours to run. grubenv and custom.cfg are read back after the
// write; a one-shot GRUB would not see is undone and refused.
// Default: GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub (Debian, Ubuntu).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/shell_assignment.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/units/expected.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kGrubEnv = "/boot/grub/grubenv";
inline constexpr std::string_view kGrubCfg = "/boot/grub/grub.cfg";
inline constexpr std::string_view kGrubCustom = "/boot/grub/custom.cfg";
inline constexpr std::string_view kGrubDefaults = "/etc/default/grub";
inline constexpr std::string_view kGrubDefaultsDir = "/etc/default/grub.d";
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

class Grub final : public BootLoader {
public:
    explicit Grub(SystemRoot root) : root_(std::move(root)) {}

    [[nodiscard]] std::string_view name() const override { return "GRUB"; }
    [[nodiscard]] std::optional<std::string> unusable() const override;
    [[nodiscard]] Expected<Ok> schedule(std::string_view name, std::string_view value) const override;
    [[nodiscard]] Expected<bool> oneshot_armed() const override;
    [[nodiscard]] Expected<std::vector<std::string>> cancel() const override;
    // GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub.
    [[nodiscard]] Expected<Ok> make_default(std::string_view name, std::string_view value) const override;
    [[nodiscard]] Expected<Ok> remove_default(std::string_view name) const override;
    [[nodiscard]] std::optional<std::string> default_value(std::string_view name) const override;
    // GRUB_CMDLINE_LINUX (every entry, recovery included): never wiredcap's.
    [[nodiscard]] std::vector<std::string> foreign_values(std::string_view name) const override;
    [[nodiscard]] std::string trial_places() const override;
    [[nodiscard]] std::string default_place() const override;

    // grubenv as grub-editenv lists it.
    [[nodiscard]] Expected<std::map<std::string, std::string>> env() const;
    // The first menu entry of grub.cfg (GRUB_DEFAULT=0).
    [[nodiscard]] Expected<MenuEntry> default_entry() const;

private:
    [[nodiscard]] std::optional<std::string> cmdline_value_of(std::string_view key, std::string_view name) const;
    [[nodiscard]] std::string editenv_program() const;
    [[nodiscard]] Expected<Ok> editenv(const std::vector<std::string>& args) const;
    // Why grubenv's next_entry or custom.cfg do not hold the trial just armed, or nullopt.
    [[nodiscard]] std::optional<std::string> oneshot_mismatch(const std::string& entry_text) const;
    [[nodiscard]] Expected<Ok> update_grub() const;
    // GRUB_CMDLINE_LINUX_DEFAULT's line, or why wiredcap may not edit it (an override in
    // grub.d, a second assignment, a shell expansion: see shell_assignment.hpp).
    [[nodiscard]] Expected<std::optional<ShellAssignment>> cmdline_default_line() const;
    [[nodiscard]] Expected<Ok> edit_cmdline_default(std::string_view name,
                                                    std::optional<std::string_view> value) const;
    SystemRoot root_;
};

}  // namespace wiredcap::linux_amd
