// systemd-boot as wiredcap uses it (the Boot Loader Specification and systemd-boot's EFI
// variables, https://uapi-group.org/specifications/specs/boot_loader_specification/ and
// systemd-boot(7)):
//
// One-shot: a type #1 entry `wiredcap-trial.conf` in <ESP>/loader/entries (the default
// entry's lines, its `options` with the parameter), and the EFI variable LoaderEntryOneShot
// naming it. systemd-boot reads that variable and removes it before it starts the kernel, so
// a hang boots the default entry next time. On a real machine the variable is set with
// `bootctl set-oneshot` (bootctl knows efivarfs' immutable flags); in a scratch root its own
// usr/bin/bootctl if it has one, else the simulated efivarfs file is written directly (4 bytes
// of attributes, then UTF-16LE, NUL terminated), which is the format efivarfs exposes. Either
// way the variable and the entry are read back before the trial counts as scheduled.
// Default: the default entry's `options` line, and /etc/kernel/cmdline when it exists, so that
// kernel-install carries the parameter into entries for new kernels.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/linux/boot_loader.hpp"

namespace wiredcap::linux_amd {

inline constexpr std::string_view kEfiVars = "/sys/firmware/efi/efivars";
inline constexpr std::string_view kLoaderGuid = "4a67b082-0a4c-41cf-b6c7-440b29bb8c4f";
inline constexpr std::string_view kKernelCmdline = "/etc/kernel/cmdline";
inline constexpr std::string_view kSdTrialEntry = "wiredcap-trial.conf";

// The string of an efivarfs file: UTF-16LE after the 4 attribute bytes, ASCII only; nullopt
// when the variable is absent or holds anything else.
[[nodiscard]] std::optional<std::string> read_efi_string(const SystemRoot& root,
                                                         std::string_view name);
// A Boot Loader Specification entry's text with `name` removed from every `options` line and,
// when `value` is given, `name=value` on the last one (appended as an `options` line if none).
[[nodiscard]] std::string with_options(const std::string& entry, std::string_view name,
                                       std::optional<std::string_view> value);
// The value of `key` in a BLS entry or loader.conf ("options root=... ro" -> "root=... ro"),
// the last one when it repeats; nullopt when absent.
[[nodiscard]] std::optional<std::string> key_value(const std::string& text, std::string_view key);
// The efivarfs file content for `value` (attributes NV|BS|RT).
[[nodiscard]] std::string efi_string_bytes(std::string_view value);

class SystemdBoot final : public BootLoader {
public:
    explicit SystemdBoot(SystemRoot root) : root_(std::move(root)) {}

    [[nodiscard]] std::string_view name() const override { return "systemd-boot"; }
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

    // The ESP holding loader/loader.conf (/efi, /boot/efi or /boot), or nullopt.
    [[nodiscard]] std::optional<std::string> esp() const;
    // The default entry's file name: LoaderEntryDefault, else loader.conf's `default` (an exact
    // name only, not a pattern); nullopt with `why` otherwise.
    [[nodiscard]] std::optional<std::string> default_entry(std::string* why = nullptr) const;

private:
    [[nodiscard]] Expected<Ok> set_oneshot(std::string_view id) const;
    [[nodiscard]] Expected<Ok> edit_options(const std::string& path, std::string_view name,
                                            std::optional<std::string_view> value) const;
    SystemRoot root_;
};

}  // namespace wiredcap::linux_amd
