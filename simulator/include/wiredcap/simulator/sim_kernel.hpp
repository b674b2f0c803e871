// The simulated Mac: a Kernel whose machine lives in a state file (sim_state.hpp).
//
// It is the backend on every machine that is not a Mac and the workhorse of the tests, so it
// models macOS as docs/design.md section 2 describes it: the knob counts MiB, 0 is the OS default
// (not "unlimited"), the default cap is per machine, a reboot gives a new boot id and resets the
// knob, and the kernel's integer is 4 or 8 bytes wide. On top of that it can misbehave on
// purpose: refuse writes, read back a different value, lack the key, or hang above a value. And
// it can be slow on purpose: stall a write before or after the knob changes, so a test can kill
// the writing process (the helper) at an exact point of intent -> write -> read back -> applied
// without the helper itself having any test hook.
//
// Every call re-reads the state file, so several processes (helper, wiredcap, wiredcap-sim,
// tests) see one machine. No exception leaves a Kernel method: failures are KernelErrors.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/kernel/kernel.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::kernel {

class SimKernel final : public Kernel {
public:
    explicit SimKernel(std::filesystem::path state_path);

    [[nodiscard]] std::string_view backend_name() const override;  // "simulated"

    // Hung: machine_hung. Key absent (Ventura profile, or the key-missing fault): key_missing.
    // Otherwise the knob, plus the read-back fault's offset (never below 0).
    [[nodiscard]] KernelResult<units::MiB> read_wired_limit() override;
    // Refused (no state change) when hung, key absent, write-refused fault, or a value the
    // kernel's integer cannot hold (EINVAL on a real Mac). Otherwise the knob is set and the
    // write counted and recorded; a value above hang_above_mib is accepted and then hangs the
    // machine, as a real one hangs after the sysctl has returned.
    // Stall faults: every call first sleeps fault_stall_write_ms, before the state is locked or
    // the knob touched (whatever the outcome will be); an accepted write then sleeps
    // fault_stall_after_write_ms after the new knob is in the file, before returning. The state
    // file is never locked while sleeping, so wiredcap-sim and readers go on meanwhile.
    [[nodiscard]] KernelResult<Ok> write_wired_limit(units::MiB value) override;
    [[nodiscard]] KernelResult<units::Bytes> read_memsize() override;
    [[nodiscard]] KernelResult<std::string> read_boot_id() override;
    // Seconds since the simulated boot (host time) plus what advance_uptime added: see
    // sim::uptime_at. Hung: machine_hung. A state that cannot be read, or an uptime too large
    // for 64-bit seconds (a hand-edited file): read_failed.
    [[nodiscard]] KernelResult<std::chrono::seconds> read_uptime() override;
    // All four related keys, in a fixed order, each with nullopt where this machine lacks it
    // (only the Ventura profile has debug.iogpu.wired_limit). Empty when the machine is hung or
    // its state cannot be read: the interface has no error channel here, and an empty list
    // claims nothing.
    [[nodiscard]] std::vector<RelatedKey> read_related() override;
    // The state's wired_bytes. Hung: machine_hung.
    [[nodiscard]] KernelResult<units::Bytes> read_wired_now() override;

    // What MTLDevice.recommendedMaxWorkingSetSize would report: it follows the knob exactly
    // (the default cap while the knob is 0), not the faulty read-back, so a test can see the
    // difference between what the sysctl says and what Metal does.
    [[nodiscard]] KernelResult<units::MiB> simulated_metal_working_set();

    [[nodiscard]] const std::filesystem::path& state_path() const noexcept { return path_; }

    // Controls for wiredcap-sim and the tests; a real Mac has none of them, so they are not
    // part of Kernel. Each is one locked update of the state file.

    // A new machine of that profile, replacing whatever the file held.
    [[nodiscard]] static Expected<Ok> init(const std::filesystem::path& state_path,
                                           std::string_view profile_name);
    // New boot id, boot_count + 1, knob back to 0 (the OS default), no longer hung, booted now
    // with nothing advanced (uptime starts again from 0). Faults, width and hang_above stay: they
    // belong to the machine, not to the boot.
    [[nodiscard]] static Expected<Ok> reboot(const std::filesystem::path& state_path);
    // Lets `by` of awake time pass at once: the uptime grows by `by`, nothing else changes (a
    // hung machine stays hung). Refused, changing nothing, when `by` is negative (time does not
    // run backwards) or the uptime would no longer fit in 64-bit seconds.
    [[nodiscard]] static Expected<Ok> advance_uptime(const std::filesystem::path& state_path,
                                                     std::chrono::seconds by);
    [[nodiscard]] static Expected<Ok> set_fault_write_refused(
        const std::filesystem::path& state_path, bool on);
    [[nodiscard]] static Expected<Ok> set_fault_readback_offset(
        const std::filesystem::path& state_path, std::int64_t offset_mib);
    [[nodiscard]] static Expected<Ok> set_fault_key_missing(const std::filesystem::path& state_path,
                                                            bool on);
    // Stalls in milliseconds, 0 = none; refused above sim::kMaxStallMs (10 minutes).
    [[nodiscard]] static Expected<Ok> set_fault_stall_write(const std::filesystem::path& state_path,
                                                            std::uint64_t ms);
    [[nodiscard]] static Expected<Ok> set_fault_stall_after_write(
        const std::filesystem::path& state_path, std::uint64_t ms);
    // 4 or 8; refused while the current knob would not fit the new width.
    [[nodiscard]] static Expected<Ok> set_value_width(const std::filesystem::path& state_path,
                                                      unsigned width);
    // A write above `above` hangs the machine; zero: it never hangs.
    // Pinned: no real time passes on the simulated machine (the uptime moves only by `advance`),
    // so tests that compare whole outputs between runs see the same uptime. Unpinned: the
    // simulated clock is the host's.
    [[nodiscard]] static Expected<Ok> set_clock_pinned(const std::filesystem::path& state_path,
                                                       bool pinned);
    [[nodiscard]] static Expected<Ok> set_hang_above(const std::filesystem::path& state_path,
                                                     units::MiB above);
    // The OS default's cap (what Metal reports while the knob is 0), for a machine whose default
    // differs from its profile's; above 0 and below the memory size.
    [[nodiscard]] static Expected<Ok> set_default_cap(const std::filesystem::path& state_path,
                                                      units::MiB cap);

    // Memory wired now (read_wired_now); at most the memory size.
    [[nodiscard]] static Expected<Ok> set_wired(const std::filesystem::path& state_path,
                                                units::Bytes wired);

    // The simulated launchd's state of the boot action's daemon (sim_state.hpp, key launchd).
    [[nodiscard]] static Expected<Ok> set_launchd(const std::filesystem::path& state_path,
                                                  std::string_view state);

private:
    std::filesystem::path path_;
};

}  // namespace wiredcap::kernel
