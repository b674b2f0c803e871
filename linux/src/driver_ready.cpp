#include "wiredcap/linux/driver_ready.hpp"

#include <thread>

#include "wiredcap/linux/sysfs_ttm.hpp"

namespace wiredcap::linux_amd {

std::optional<std::string> driver_not_up(const kernel::TtmReadings& r) {
    if (!r.amdgpu_loaded) return std::string("amdgpu is not loaded (/sys/module/amdgpu)");
    if (!r.module.value) return "no TTM module: " + r.module.note;
    if (!r.pages_limit.value) return "pages_limit unreadable (" + r.pages_limit.source + ")";
    if (!r.gtt_total.value) return "no mem_info_gtt_total (" + r.gtt_total.source + ")";
    return std::nullopt;
}

bool wait_for_driver(const SystemRoot& root, std::chrono::seconds bound) {
    const auto until = std::chrono::steady_clock::now() + bound;
    for (;;) {
        if (!driver_not_up(SysfsTtmKernel(root).read())) return true;
        if (std::chrono::steady_clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(250));
    }
}

}  // namespace wiredcap::linux_amd
