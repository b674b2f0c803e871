// Simulated Linux AMD APU machines (wiredcap-sim-linux). MemTotal figures: strix-128's is the
// one amd-ttm's documentation prints for a 128 GB Strix Halo (125.65 GiB, pages_limit 16469033
// = half); the others are ESTIMATES (RAM minus a 512 MiB carve-out and about 1 GiB the firmware
// and kernel keep), and tests assert shapes, never these exact figures.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace wiredcap::sim_linux {

struct LinuxProfile {
    std::string_view name;
    std::string_view description;
    std::uint64_t mem_total_kib;     // /proc/meminfo MemTotal
    std::uint64_t vram_bytes;        // mem_info_vram_total: the BIOS carve-out
    std::string_view module;         // "ttm", "amdttm" or "amd_ttm": the one amdgpu depends on
    bool both_modules;               // ttm AND the DKMS copy present (a DKMS host)
    std::string_view extra_cmdline;  // what GRUB_CMDLINE_LINUX_DEFAULT carries besides "quiet"
    std::uint64_t page_size;         // KernelPageSize
    bool systemd_boot = false;       // systemd-boot (ESP /efi, EFI variables) instead of GRUB
    std::string_view modprobe_conf;  // /etc/modprobe.d/ttm.conf as amd-ttm writes it, or empty
    bool grub_bls = false;           // Fedora's GRUB: /boot/grub2, blscfg, /boot/loader/entries
};

[[nodiscard]] std::span<const LinuxProfile> linux_profiles() noexcept;
[[nodiscard]] const LinuxProfile* find_linux_profile(std::string_view name) noexcept;

}  // namespace wiredcap::sim_linux
