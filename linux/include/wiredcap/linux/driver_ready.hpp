// Whether the GPU driver is up enough to be read back: amdgpu loaded, its TTM module's
// pages_limit readable, and a card's mem_info_gtt_total published (amdgpu creates it when it
// binds the device, before it registers the DRM card). Until then a read-back is UNKNOWN,
// never a mismatch: amdgpu may load late (from udev, well after systemd-modules-load) or from
// the initramfs, and a read that races it must not judge a trial.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include "wiredcap/kernel/ttm.hpp"
#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd {

// Why these readings cannot be a read-back yet, or nullopt when the driver is up.
[[nodiscard]] std::optional<std::string> driver_not_up(const kernel::TtmReadings& r);

// Reads the system until the driver is up or `bound` has passed (a bounded wait, polled every
// 250 ms): true when it is up. Holds no lock, so ttm-reset is never kept waiting by it.
[[nodiscard]] bool wait_for_driver(const SystemRoot& root, std::chrono::seconds bound);

}  // namespace wiredcap::linux_amd
