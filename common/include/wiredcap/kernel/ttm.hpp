// The kernel interface on Linux AMD APUs: TTM's `pages_limit` and the amdgpu driver's view.
//
// The Mac's knob (kernel.hpp) is a sysctl written at run time. Linux's is a module parameter of
// TTM (`ttm.pages_limit`, or `amdttm.pages_limit` / `amd_ttm.pages_limit` where AMD's DKMS
// driver ships its own copy: older amdgpu-dkms names it amdttm, ROCm's newer one amd_ttm),
// counted in pages of PAGE_SIZE and read once, when amdgpu initialises (drivers/gpu/drm/ttm/
// ttm_tt.c, ttm_tt_mgr_init; drivers/gpu/drm/amd/amdgpu/amdgpu_ttm.c, amdgpu_ttm_init). So this
// interface only reads: every value with its source, and unknown where the file is absent. The
// change itself goes through the boot loader (linux/, docs/linux.md).
//
// One implementation reads the files of a running system under a root directory
// (linux/sysfs_ttm.hpp): "/" on a real machine, a simulator's tree in the tests.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/units/pages.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::kernel {

// amd-smi probes the same three, in the order amdttm, amd_ttm, ttm (ROCm/amdsmi,
// amdsmi_cli/amdsmi_helpers.py, read_pending_gtt_pages). Which one amdgpu uses decides the
// parameter's name: the module name, `.pages_limit`.
enum class TtmModule { ttm, amdttm, amd_ttm };

[[nodiscard]] constexpr std::string_view module_name(TtmModule m) noexcept {
    return m == TtmModule::ttm ? "ttm" : m == TtmModule::amdttm ? "amdttm" : "amd_ttm";
}

// One reading: the value, or nullopt with `note` saying why; `source` names the file it came
// from (or the rule, for a derived value).
template <class T>
struct Sourced {
    std::optional<T> value;
    std::string source;
    std::string note;
};

struct TtmReadings {
    Sourced<units::PageSize> page_size;           // sysconf(_SC_PAGESIZE), or the simulator's
    bool amdgpu_loaded = false;                   // /sys/module/amdgpu exists
    Sourced<TtmModule> module;                    // note: how it was told apart
    Sourced<units::Pages> pages_limit;            // /sys/module/<module>/parameters/pages_limit
    Sourced<units::Pages> cmdline_pages_limit;    // <module>.pages_limit= on /proc/cmdline
    std::vector<std::string> ignored_parameters;  // pages_limit for the module that is not loaded
    Sourced<std::string> gttsize;                 // amdgpu.gttsize when set (MiB, deprecated)
    Sourced<units::Bytes> gtt_total;              // /sys/class/drm/card*/device/mem_info_gtt_total
    Sourced<units::Bytes> vram_total;             // .../mem_info_vram_total: the BIOS carve-out
    Sourced<units::Bytes> kfd_mem_bank;           // KFD topology: the GPU node's memory bank
    Sourced<units::Bytes> mem_total;              // /proc/meminfo MemTotal
    Sourced<std::string> boot_id;                 // /proc/sys/kernel/random/boot_id
    Sourced<std::string> cmdline;                 // /proc/cmdline
    Sourced<std::uint64_t> uptime_s;              // /proc/uptime, whole seconds
};

class TtmKernel {
public:
    TtmKernel() = default;
    TtmKernel(const TtmKernel&) = delete;
    TtmKernel& operator=(const TtmKernel&) = delete;
    virtual ~TtmKernel() = default;

    // "linux" or "simulated-linux": every reading is labelled with it.
    [[nodiscard]] virtual std::string_view backend_name() const = 0;
    [[nodiscard]] virtual TtmReadings read() = 0;
};

// The kernel command-line parameter that sets the limit, "ttm.pages_limit=27648000". It takes a
// page count and nothing else: a MiB or GiB here is a compile error (tests/compile_fail).
[[nodiscard]] inline std::string pages_limit_parameter(TtmModule m, units::Pages limit) {
    return std::string(module_name(m)) + ".pages_limit=" + std::to_string(limit.count());
}

}  // namespace wiredcap::kernel
