// Whether the running system is one the Linux backend is for: an AMD GPU driver loaded and a
// TTM whose pages_limit it can set. Read from the system (sysfs), never guessed from the
// distribution or the CPU's name: `wiredcap status`, `set`, `reset` and `recover` take the
// Linux backend on "/" only when this says so (docs/linux.md, "One front-end").
#pragma once

#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd {

// /sys/module/amdgpu exists, and /sys/module/{ttm,amdttm,amd_ttm}/parameters/pages_limit does.
[[nodiscard]] bool is_amd_ttm_host(const SystemRoot& root);

}  // namespace wiredcap::linux_amd
