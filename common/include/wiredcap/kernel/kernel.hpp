// The one interface through which wiredcap touches the kernel's wired-memory cap.
//
// Two backends implement it: Darwin (sysctlbyname, macOS only) and the simulated Mac (a state
// file) used on every other machine and by the tests. The cap is iogpu.wired_limit_mb, which
// counts MiB, so the write takes MiB and nothing else: passing MB, GB, bytes or pages here is a
// compile error (tests/compile_fail proves it).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::kernel {

struct KernelError {
    enum class Kind {
        key_missing,    // no such sysctl on this machine (not macOS 14+, or not Apple Silicon)
        not_permitted,  // the kernel said EPERM (not root)
        write_refused,  // any other failure of the write
        read_failed,    // a read failed or returned a value of an unexpected width
        machine_hung,   // simulator only: the simulated machine is hung until a reboot
    };
    Kind kind;
    std::string message;
};

template <class T>
using KernelResult = Expected<T, KernelError>;

// A read-only sysctl shown by `status`: its value as text, or why there is none.
struct RelatedKey {
    std::string name;
    std::optional<std::string> value;  // nullopt: not present on this machine
};

class Kernel {
public:
    Kernel() = default;
    Kernel(const Kernel&) = delete;
    Kernel& operator=(const Kernel&) = delete;
    virtual ~Kernel() = default;

    // "darwin" or "simulated": every reading is labelled with it.
    [[nodiscard]] virtual std::string_view backend_name() const = 0;

    // iogpu.wired_limit_mb; 0 MiB means "the OS default policy", not "unlimited".
    [[nodiscard]] virtual KernelResult<units::MiB> read_wired_limit() = 0;
    [[nodiscard]] virtual KernelResult<Ok> write_wired_limit(units::MiB value) = 0;

    // hw.memsize, in bytes.
    [[nodiscard]] virtual KernelResult<units::Bytes> read_memsize() = 0;
    // kern.bootsessionuuid (a simulated one on the simulator): changes at every boot.
    [[nodiscard]] virtual KernelResult<std::string> read_boot_id() = 0;
    // How long the machine has been awake since it booted: the boot guard marks a boot's value
    // healthy only after this has grown by the policy's healthy_after. Darwin: CLOCK_UPTIME_RAW,
    // which does not advance while the machine sleeps (a hang needs an awake machine). The
    // simulator: seconds since its simulated boot plus what `wiredcap-sim advance` added.
    [[nodiscard]] virtual KernelResult<std::chrono::seconds> read_uptime() = 0;
    // Memory wired now, system-wide: the pages no one can page out, the GPU's included. It shows
    // wired memory a killed process stranded, which the cap does not. Darwin:
    // host_statistics64(HOST_VM_INFO64) wire_count times the kernel's page size (what vm_stat
    // prints as "Pages wired down"). Read-only, needs no privilege.
    [[nodiscard]] virtual KernelResult<units::Bytes> read_wired_now() = 0;
    // iogpu.wired_lwm_mb, iogpu.dynamic_lwm, iogpu.disable_wired_collector,
    // debug.iogpu.wired_limit (Ventura, read-only): shown, never written.
    [[nodiscard]] virtual std::vector<RelatedKey> read_related() = 0;
};

}  // namespace wiredcap::kernel
