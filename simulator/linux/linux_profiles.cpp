#include "linux_profiles.hpp"

#include <array>

namespace wiredcap::sim_linux {
namespace {

constexpr std::uint64_t kMiB = 1ULL << 20;

constexpr std::array kProfiles{
    LinuxProfile{"strix-128", "Framework Desktop, Ryzen AI Max+ 395, 128 GB, ttm", 131752264,
                 512 * kMiB, "ttm", false, "", 4096, false, ""},
    LinuxProfile{"strix-64", "GMKtec EVO-X2, Ryzen AI Max+ 395, 64 GB, ttm (estimate)", 65011712,
                 512 * kMiB, "ttm", false, "", 4096, false, ""},
    LinuxProfile{"phoenix-32", "laptop, Ryzen 7 7840U, 32 GB, ttm (estimate)", 32112640, 512 * kMiB,
                 "ttm", false, "", 4096, false, ""},
    LinuxProfile{"amdttm-128",
                 "HP Z2 Mini G1a, 128 GB, AMD's DKMS driver: amdttm; stray ttm settings", 131752264,
                 512 * kMiB, "amdttm", true, "ttm.pages_limit=20971520", 4096, false,
                 "options ttm pages_limit=26214400\n"},
    LinuxProfile{
        "amd-ttm-128",
        "Framework Desktop, 128 GB, ROCm's newer DKMS driver: amd_ttm beside the kernel's ttm",
        131752264, 512 * kMiB, "amd_ttm", true, "", 4096, false, ""},
    LinuxProfile{"strix-128-sdboot", "Framework Desktop, 128 GB, ttm, systemd-boot (EFI variables)",
                 131752264, 512 * kMiB, "ttm", false, "", 4096, true, ""},
    LinuxProfile{"fedora-128",
                 "Framework Desktop, 128 GB, ttm, Fedora: GRUB with BLS entries (grubby's layout)",
                 131752264, 512 * kMiB, "ttm", false, "", 4096, false, "", true},
    LinuxProfile{"gttsize-64", "Ryzen AI Max 390, 64 GB, amdgpu.gttsize=57344 left set (estimate)",
                 65011712, 512 * kMiB, "ttm", false, "amdgpu.gttsize=57344", 4096, false, ""},
};

}  // namespace

std::span<const LinuxProfile> linux_profiles() noexcept { return kProfiles; }

const LinuxProfile* find_linux_profile(std::string_view name) noexcept {
    for (const auto& p : kProfiles)
        if (p.name == name) return &p;
    return nullptr;
}

}  // namespace wiredcap::sim_linux
