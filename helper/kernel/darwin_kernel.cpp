// NOT RUN HERE: see darwin_kernel.hpp. The whole file is empty on anything but Apple platforms.
#ifdef __APPLE__

#include "darwin_kernel.hpp"

// sysctl.h needs types.h first on Darwin.
#include <sys/types.h>
#include <sys/sysctl.h>
#include <mach/mach.h>  // host_statistics64, mach_host_self, vm_kernel_page_size
#include <time.h>  // clock_gettime, CLOCK_UPTIME_RAW (macOS 10.12+)
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <exception>
#include <limits>
#include <optional>
#include <system_error>

namespace wiredcap::kernel {
namespace {

using Kind = KernelError::Kind;

constexpr const char* kWiredLimit = "iogpu.wired_limit_mb";  // MiB; the only key ever written
constexpr const char* kMemsize = "hw.memsize";               // bytes, uint64
constexpr const char* kBootSession = "kern.bootsessionuuid";  // string
// Shown, never written. debug.iogpu.wired_limit counts bytes (reportedly; unconfirmed), so a MiB
// count written there would be a wildly wrong cap: there is deliberately no way to write it.
constexpr std::array<const char*, 4> kRelated{"iogpu.wired_lwm_mb", "iogpu.dynamic_lwm",
                                              "iogpu.disable_wired_collector", "debug.iogpu.wired_limit"};

// Kernel methods must not throw; only allocation can fail below them, and that becomes a
// KernelError of the kind the caller already handles for that call.
template <class Body>
auto guarded(Kind kind, Body&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::exception& e) {
        return KernelError{kind, std::string("internal error: ") + e.what()};
    }
}

KernelError from_errno(const char* name, int err, Kind otherwise) {
    const std::string text = std::string(name) + ": " + std::generic_category().message(err);
    if (err == ENOENT) return KernelError{Kind::key_missing, text + " (no such sysctl on this Mac)"};
    // EPERM is what a non-root write gets; EACCES is treated alike so a sandbox refusal is not
    // mistaken for a kernel fault. As root it is something else, and "needs root" would send
    // the person the wrong way.
    if (err == EPERM || err == EACCES) {
        if (::geteuid() != 0) return KernelError{Kind::not_permitted, text + " (writing it needs root)"};
        return KernelError{Kind::not_permitted,
                           text + " although wiredcap-helper runs as root: macOS itself refused (a sandbox, a "
                                  "configuration profile, or a macOS version that does not allow it); "
                                  "tools/mac-smoke collects what to report"};
    }
    return KernelError{otherwise, text};
}

// The byte width of an integer sysctl: the type is undocumented, so ask, and accept only the
// two widths an integer can have.
KernelResult<std::size_t> integer_width(const char* name, Kind otherwise) {
    std::size_t len = 0;
    if (::sysctlbyname(name, nullptr, &len, nullptr, 0) != 0) return from_errno(name, errno, otherwise);
    if (len != sizeof(std::uint32_t) && len != sizeof(std::uint64_t))
        return KernelError{Kind::read_failed, std::string(name) + ": the kernel reports a " + std::to_string(len) +
                                                  "-byte value; expected a 4- or 8-byte integer"};
    return len;
}

template <class U>
KernelResult<std::uint64_t> read_as(const char* name) {
    U value = 0;
    std::size_t len = sizeof value;
    if (::sysctlbyname(name, &value, &len, nullptr, 0) != 0) return from_errno(name, errno, Kind::read_failed);
    if (len != sizeof value)
        return KernelError{Kind::read_failed, std::string(name) + ": the value changed width while being read"};
    return std::uint64_t{value};
}

// An unsigned integer sysctl in whichever width the kernel uses, widened to 64 bits.
KernelResult<std::uint64_t> read_integer(const char* name) {
    auto width = integer_width(name, Kind::read_failed);
    if (!width) return width.error();
    return *width == sizeof(std::uint32_t) ? read_as<std::uint32_t>(name) : read_as<std::uint64_t>(name);
}

// Writes iogpu.wired_limit_mb, and only it: the name is fixed here, not a parameter.
template <class U>
KernelResult<Ok> write_wired_limit_as(units::MiB value) {
    if (value.count() > std::numeric_limits<U>::max())
        return KernelError{Kind::write_refused, std::string(kWiredLimit) + ": " + std::to_string(value.count()) +
                                                    " MiB does not fit the kernel's " + std::to_string(sizeof(U)) +
                                                    "-byte integer; nothing was written"};
    U raw = static_cast<U>(value.count());  // fits: checked above
    if (::sysctlbyname(kWiredLimit, nullptr, nullptr, &raw, sizeof raw) != 0)
        return from_errno(kWiredLimit, errno, Kind::write_refused);
    return Ok{};
}

}  // namespace

std::string_view DarwinKernel::backend_name() const { return "darwin"; }

KernelResult<units::MiB> DarwinKernel::read_wired_limit() {
    return guarded(Kind::read_failed, []() -> KernelResult<units::MiB> {
        auto raw = read_integer(kWiredLimit);
        if (!raw) return raw.error();
        const auto mib = units::MiB::from_count(*raw);
        if (!mib)
            return KernelError{Kind::read_failed, std::string(kWiredLimit) + ": " + std::to_string(*raw) +
                                                      " MiB is larger than 64 bits of bytes"};
        return *mib;
    });
}

KernelResult<Ok> DarwinKernel::write_wired_limit(units::MiB value) {
    return guarded(Kind::write_refused, [value]() -> KernelResult<Ok> {
        auto width = integer_width(kWiredLimit, Kind::write_refused);
        if (!width) return width.error();
        return *width == sizeof(std::uint32_t) ? write_wired_limit_as<std::uint32_t>(value)
                                               : write_wired_limit_as<std::uint64_t>(value);
    });
}

KernelResult<units::Bytes> DarwinKernel::read_memsize() {
    return guarded(Kind::read_failed, []() -> KernelResult<units::Bytes> {
        auto raw = read_integer(kMemsize);
        if (!raw) return raw.error();
        return *units::Bytes::from_count(*raw);  // every 64-bit count of bytes is a Bytes
    });
}

KernelResult<std::string> DarwinKernel::read_boot_id() {
    return guarded(Kind::read_failed, []() -> KernelResult<std::string> {
        std::size_t len = 0;
        if (::sysctlbyname(kBootSession, nullptr, &len, nullptr, 0) != 0)
            return from_errno(kBootSession, errno, Kind::read_failed);
        std::string id(len, '\0');
        if (::sysctlbyname(kBootSession, id.data(), &len, nullptr, 0) != 0)
            return from_errno(kBootSession, errno, Kind::read_failed);
        id.resize(::strnlen(id.data(), len));  // the kernel counts the terminating NUL
        if (id.empty()) return KernelError{Kind::read_failed, std::string(kBootSession) + ": empty"};
        return id;
    });
}

KernelResult<std::chrono::seconds> DarwinKernel::read_uptime() {
    return guarded(Kind::read_failed, []() -> KernelResult<std::chrono::seconds> {
        struct timespec ts {};
        if (::clock_gettime(CLOCK_UPTIME_RAW, &ts) != 0)
            return KernelError{Kind::read_failed,
                               "clock_gettime(CLOCK_UPTIME_RAW): " + std::generic_category().message(errno)};
        // Time since boot cannot be negative; if the clock says so, it is not a reading.
        if (ts.tv_sec < 0)
            return KernelError{Kind::read_failed, "clock_gettime(CLOCK_UPTIME_RAW): negative uptime " +
                                                      std::to_string(ts.tv_sec) + " s"};
        return std::chrono::seconds{ts.tv_sec};  // whole seconds: the guard counts no finer
    });
}

KernelResult<units::Bytes> DarwinKernel::read_wired_now() {
    return guarded(Kind::read_failed, []() -> KernelResult<units::Bytes> {
        vm_statistics64_data_t vm{};
        mach_msg_type_number_t count = HOST_VM_INFO64_COUNT;
        const mach_port_t host = ::mach_host_self();
        const kern_return_t kr =
            ::host_statistics64(host, HOST_VM_INFO64, reinterpret_cast<host_info64_t>(&vm), &count);
        ::mach_port_deallocate(::mach_task_self(), host);
        if (kr != KERN_SUCCESS)
            return KernelError{Kind::read_failed, std::string("host_statistics64(HOST_VM_INFO64): ") + ::mach_error_string(kr)};
        const std::uint64_t pages = vm.wire_count;
        const std::uint64_t page = vm_kernel_page_size;
        if (page != 0 && pages > std::numeric_limits<std::uint64_t>::max() / page)
            return KernelError{Kind::read_failed, "host_statistics64: wire_count " + std::to_string(pages) +
                                                      " pages is more than 64 bits of bytes"};
        return *units::Bytes::from_count(pages * page);
    });
}

std::vector<RelatedKey> DarwinKernel::read_related() {
    std::vector<RelatedKey> keys;
    try {
        for (const char* name : kRelated) {
            auto v = read_integer(name);  // absent, or unreadable: nullopt (the interface has no third state)
            keys.push_back(RelatedKey{name, v ? std::optional<std::string>(std::to_string(*v)) : std::nullopt});
        }
    } catch (const std::exception&) {
        keys.clear();  // out of memory: claim nothing rather than half a list
    }
    return keys;
}

}  // namespace wiredcap::kernel

#endif  // __APPLE__
