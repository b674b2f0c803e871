#include "wiredcap/linux/host.hpp"

namespace wiredcap::linux_amd {

bool is_amd_ttm_host(const SystemRoot& root) {
    return root.exists("/sys/module/amdgpu") &&
           (root.exists("/sys/module/ttm/parameters/pages_limit") ||
            root.exists("/sys/module/amdttm/parameters/pages_limit") ||
            root.exists("/sys/module/amd_ttm/parameters/pages_limit"));
}

}  // namespace wiredcap::linux_amd
