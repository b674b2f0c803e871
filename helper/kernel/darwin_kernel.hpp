// The real backend: sysctlbyname(3) on macOS, Apple Silicon.
//
// NOT RUN HERE. wiredcap is developed on Linux without a Mac: this code is compiled (and
// cross-compiled with zig c++ -target aarch64-macos, plain libc only, no SDK frameworks) but has
// never executed. Everything it does is specified in docs/design.md section 2; the simulated Mac
// (sim_kernel.hpp) models the same behaviour and is what the tests run.
#pragma once

#ifdef __APPLE__

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/kernel/kernel.hpp"

namespace wiredcap::kernel {

class DarwinKernel final : public Kernel {
public:
    [[nodiscard]] std::string_view backend_name() const override;  // "darwin"

    // iogpu.wired_limit_mb, in the width the kernel reports (4 or 8 bytes). ENOENT (macOS 13
    // or older, or not Apple Silicon): key_missing.
    [[nodiscard]] KernelResult<units::MiB> read_wired_limit() override;
    // Written in the kernel's own width; a value that width cannot hold is refused, never
    // truncated. EPERM: not_permitted.
    [[nodiscard]] KernelResult<Ok> write_wired_limit(units::MiB value) override;
    [[nodiscard]] KernelResult<units::Bytes> read_memsize() override;     // hw.memsize
    [[nodiscard]] KernelResult<std::string> read_boot_id() override;     // kern.bootsessionuuid
    // clock_gettime(CLOCK_UPTIME_RAW), whole seconds: awake time since boot. Not
    // CLOCK_MONOTONIC_RAW, which keeps counting during sleep: a value that hangs the machine does
    // so while it is awake, so only awake time is evidence that the value is healthy.
    [[nodiscard]] KernelResult<std::chrono::seconds> read_uptime() override;
    // host_statistics64(mach_host_self(), HOST_VM_INFO64) wire_count x vm_kernel_page_size
    // (16 KiB on Apple Silicon), as vm_stat counts "Pages wired down".
    [[nodiscard]] KernelResult<units::Bytes> read_wired_now() override;
    // iogpu.wired_lwm_mb, iogpu.dynamic_lwm, iogpu.disable_wired_collector and
    // debug.iogpu.wired_limit (bytes, Ventura), in that order; nullopt where a key cannot be
    // read. None of them is ever written: there is no code path that could.
    [[nodiscard]] std::vector<RelatedKey> read_related() override;
};

}  // namespace wiredcap::kernel

#endif  // __APPLE__
