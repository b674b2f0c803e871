// The TtmKernel of a running Linux system, read from its files under a SystemRoot.
//
// Sources (docs/linux.md cites them):
//   page size     sysconf(_SC_PAGESIZE) on "/"; a simulated root gives its own in
//                 /proc/self/smaps ("KernelPageSize: N kB"), as a real kernel also does
//   module        /sys/module/{amdttm,amd_ttm,ttm}/parameters/pages_limit, told apart by
//                 /sys/module/<m>/holders/amdgpu (amdgpu's dependency) when two exist
//   pages_limit   /sys/module/<m>/parameters/pages_limit (ttm_tt.c: 0644, pages)
//   gttsize       /sys/module/amdgpu/parameters/gttsize (MiB, -1 = unset; amdgpu_drv.c)
//   GTT, VRAM     /sys/class/drm/card<N>/device/mem_info_{gtt,vram}_total (bytes; amdgpu_gtt_mgr.c,
//                 amdgpu_vram_mgr.c)
//   KFD bank      /sys/class/kfd/kfd/topology/nodes/<n>/mem_banks/<b>/properties, size_in_bytes of
//                 the first node that has a GPU (simd_count > 0 in its properties)
//   MemTotal      /proc/meminfo (kB, which the kernel means as KiB)
#pragma once

#include <string>

#include "wiredcap/kernel/ttm.hpp"
#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd {

class SysfsTtmKernel final : public kernel::TtmKernel {
public:
    explicit SysfsTtmKernel(SystemRoot root) : root_(std::move(root)) {}
    [[nodiscard]] std::string_view backend_name() const override {
        return root_.is_real() ? "linux" : "simulated-linux";
    }
    [[nodiscard]] kernel::TtmReadings read() override;

private:
    SystemRoot root_;
};

}  // namespace wiredcap::linux_amd
