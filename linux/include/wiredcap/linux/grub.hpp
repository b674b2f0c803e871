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
// GRUB_DEFAULT=0 or GRUB_DEFAULT=saved: with saved, 00_header boots grubenv's saved_entry
// when no next_entry is armed, so the trial copies the saved entry and a hang boots it again;
// the default's value goes where update-grub puts it into every 10_linux entry, the saved
// one included (a saved recovery or custom entry, which does not carry it, is refused).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/shell_assignment.hpp"
#include "wiredcap/linux/system_root.hpp"
#include "wiredcap/expected.hpp"

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

// A submenu an entry is in: how GRUB's default names it (title, id or position).
struct MenuRef {
    std::string title;
    std::string id;
    int index = 0;  // its position among its menu's items, submenus counted (GRUB numbers so)
};

struct MenuEntry {
    std::string title;
    std::string id;                  // --id, or empty
    int index = 0;                   // position among its menu's items, submenus counted
    std::vector<MenuRef> submenus;   // the submenus it is in, outermost first; empty: top level
    std::string section;             // the grub.d script that wrote it ("10_linux"), if marked
    std::vector<std::string> lines;  // the body between the braces
    std::string image;               // the `linux` line's kernel image
    std::string linux_args;          // the `linux` line's words after the kernel image
};

// Every menu entry of a grub.cfg, those in submenus too, in order.
[[nodiscard]] std::vector<MenuEntry> parse_menu_tree(std::string_view cfg);
// The top-level menu entries of a grub.cfg only.
[[nodiscard]] std::vector<MenuEntry> parse_menu_entries(std::string_view cfg);
// The entry GRUB's `default` names: "N", a title or an id, with ">" between submenu levels
// ("1>2", "Advanced options for Debian GNU/Linux>gnulinux-6.12.38-amd64-advanced-..."), as
// grub-set-default and GRUB_DEFAULT take them; empty means "0". nullopt when none matches.
[[nodiscard]] std::optional<MenuEntry> resolve_menu_entry(const std::vector<MenuEntry>& tree,
                                                          std::string_view spec);

// grubenv at `env` (a path under root), as grub-editenv lists it / after `grub-editenv env ARGS`.
// The machine's own grub-editenv runs (a scratch root's if it has one, else the host's).
[[nodiscard]] Expected<std::map<std::string, std::string>> grub_env(const SystemRoot& root,
                                                                    std::string_view env);
[[nodiscard]] Expected<Ok> grub_editenv(const SystemRoot& root, std::string_view env,
                                        const std::vector<std::string>& args);
// Why GRUB could not clear next_entry in grubenv under `dir` at boot (btrfs, ZFS, LVM, LUKS,
// md RAID), or nullopt.
[[nodiscard]] std::optional<std::string> grubenv_unkept(const SystemRoot& root,
                                                        std::string_view dir);

class Grub final : public BootLoader {
public:
    explicit Grub(SystemRoot root) : root_(std::move(root)) {}

    [[nodiscard]] std::string_view name() const override { return "GRUB"; }
    [[nodiscard]] std::optional<std::string> unusable() const override;
    [[nodiscard]] Expected<Ok> schedule(std::string_view name,
                                        std::string_view value) const override;
    [[nodiscard]] Expected<bool> oneshot_armed() const override;
    [[nodiscard]] Expected<std::vector<std::string>> cancel() const override;
    // GRUB_CMDLINE_LINUX_DEFAULT in /etc/default/grub, then update-grub.
    [[nodiscard]] Expected<Ok> make_default(std::string_view name,
                                            std::string_view value) const override;
    [[nodiscard]] Expected<Ok> remove_default(std::string_view name) const override;
    [[nodiscard]] std::optional<std::string> default_value(std::string_view name) const override;
    // GRUB_CMDLINE_LINUX (every entry, recovery included): never wiredcap's.
    [[nodiscard]] std::vector<std::string> foreign_values(std::string_view name) const override;
    [[nodiscard]] std::string trial_places() const override;
    [[nodiscard]] std::string default_place() const override;

    // grubenv as grub-editenv lists it.
    [[nodiscard]] Expected<std::map<std::string, std::string>> env() const;
    // The entry GRUB boots by default: the first (GRUB_DEFAULT=0), or with GRUB_DEFAULT=saved
    // the one grubenv's saved_entry names (grub-set-default; unset: the first).
    [[nodiscard]] Expected<MenuEntry> default_entry() const;

private:
    [[nodiscard]] std::optional<std::string> cmdline_value_of(std::string_view key,
                                                              std::string_view name) const;
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
