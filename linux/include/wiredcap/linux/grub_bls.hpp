// GRUB booting Boot Loader Specification entries (Fedora, RHEL: GRUB_ENABLE_BLSCFG=true, the
// `blscfg` command in grub.cfg's 10_linux section), as wiredcap uses it:
//
// One-shot: a type #1 entry /boot/loader/entries/wiredcap-trial.conf (the default entry's
// lines, its `options` with the parameter), whose menu id blscfg makes from the file name, and
// next_entry=wiredcap-trial in grubenv (set with grub-editenv, as grub2-reboot does). 00_header
// boots next_entry once and clears it before the kernel runs. Read back before it counts.
// Default: grubenv's saved_entry names the default entry (GRUB_DEFAULT=saved, Fedora's
// setting; grub2-set-default). Made default as `grubby --update-kernel=ALL --args=NAME=VALUE`
// does (grubby(8); since grubby 8.40-64 it also updates /etc/kernel/cmdline, which
// kernel-install reads for new kernels): every entry's `options`, and /etc/kernel/cmdline
// when it exists. grubby is not on Debian, so wiredcap edits those files itself, then reads
// the default entry back. `grub2-mkconfig --update-bls-cmdline` rewrites every entry's options
// from GRUB_CMDLINE_LINUX and drops the value: the after-boot read-back reports that.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/linux/boot_loader.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kBlsEntries = "/boot/loader/entries";
inline constexpr std::string_view kBlsTrialId = "wiredcap-trial";

// Whether grub.cfg's text runs `blscfg` (on a line of its own, as 10_linux writes it).
[[nodiscard]] bool runs_blscfg(const std::string& cfg);

class GrubBls final : public BootLoader {
public:
    // dir: where grub.cfg and grubenv are (/boot/grub2 on Fedora).
    GrubBls(SystemRoot root, std::string dir) : root_(std::move(root)), dir_(std::move(dir)) {}

    [[nodiscard]] std::string_view name() const override { return "GRUB with BLS entries"; }
    [[nodiscard]] std::optional<std::string> unusable() const override;
    [[nodiscard]] Expected<Ok> schedule(std::string_view name,
                                        std::string_view value) const override;
    [[nodiscard]] Expected<bool> oneshot_armed() const override;
    [[nodiscard]] Expected<std::vector<std::string>> cancel() const override;
    [[nodiscard]] Expected<Ok> make_default(std::string_view name,
                                            std::string_view value) const override;
    [[nodiscard]] Expected<Ok> remove_default(std::string_view name) const override;
    [[nodiscard]] std::optional<std::string> default_value(std::string_view name) const override;
    [[nodiscard]] std::vector<std::string> foreign_values(std::string_view name) const override;
    [[nodiscard]] std::string trial_places() const override;
    [[nodiscard]] std::string default_place() const override;

    // The default entry's path (saved_entry's), or why there is none wiredcap can follow.
    [[nodiscard]] Expected<std::string> default_entry() const;

private:
    [[nodiscard]] std::string env_path() const { return dir_ + "/grubenv"; }
    [[nodiscard]] std::string trial_path() const;
    // The entries wiredcap's default edits: every *.conf but the trial's, and
    // /etc/kernel/cmdline when it exists.
    [[nodiscard]] std::vector<std::string> default_files() const;
    // Sets (value) or removes `name` in every default file whose current value is `only_if`
    // (any, when nullopt); each file as it was before, for an undo.
    [[nodiscard]] Expected<std::vector<std::pair<std::string, std::string>>> edit_all(
        std::string_view name, std::optional<std::string_view> value,
        std::optional<std::string> only_if) const;
    SystemRoot root_;
    std::string dir_;
};

}  // namespace wiredcap::linux_amd
