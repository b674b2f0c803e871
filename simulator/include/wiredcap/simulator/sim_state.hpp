// The state of the simulated Mac, and the file that keeps it between processes.
//
// The file is text, one `key=value` per line, `#` comments and blank lines allowed, every key
// exactly once, every line ending in a newline (a missing final newline means a torn file).
// Parsing is strict: an unknown key, a duplicate, a missing key or a malformed value is an error
// that names the line. Keys, in the order they are written:
//
//   profile                    name of the profile the machine was made from (sim_profiles.hpp)
//   memsize_bytes              hw.memsize
//   default_cap_mib            effective cap while the knob is 0 (what Metal then reports)
//   wired_limit_mb_present     0/1: whether iogpu.wired_limit_mb exists (0 on Ventura)
//   knob_mib                   iogpu.wired_limit_mb as last written; 0 = OS default
//   value_width                4 or 8: byte width of the kernel's integer for the knob
//   boot_id                    kern.bootsessionuuid: 8-4-4-4-12 upper-case hex digits
//   boot_count                 1 for a fresh machine, +1 per simulated reboot
//   boot_time                  unix seconds at the simulated boot (signed, like time_t): the
//                              host's real time when the machine was made or last rebooted
//   uptime_advanced_s          seconds `wiredcap-sim advance` added to the uptime since that
//                              boot; 0 after a boot. Uptime = max(0, now - boot_time) + this
//                              (see uptime_at), so a test can let hours pass in no time
//   hang_above_mib             a write above this hangs the machine; 0 = never hangs
//   hung                       0/1: hung until a simulated reboot
//   fault_write_refused        0/1: every write of the knob fails
//   fault_readback_offset_mib  signed: a read returns knob + offset (clamped at 0)
//   fault_key_missing          0/1: iogpu.wired_limit_mb behaves as if absent
//   fault_stall_write_ms       every write of the knob first sleeps this long, BEFORE the knob
//                              changes; 0 = no stall, at most kMaxStallMs
//   fault_stall_after_write_ms an accepted write sleeps this long AFTER the knob has changed,
//                              before it returns; 0 = no stall, at most kMaxStallMs
//   wired_lwm_mb, dynamic_lwm, disable_wired_collector, debug_wired_limit_bytes
//                              the related read-only keys: a number, or `absent`
//   writes                     number of successful writes of the knob
//   history                    the values written, oldest first, comma-separated MiB counts,
//                              the last 256 only; empty when nothing was written
//   wired_bytes                memory wired now, system-wide (what host_statistics64's wire_count
//                              times the page size gives on a Mac): memsize/32 on a fresh machine
//                              and after each boot; `wiredcap-sim wired SIZE` sets it, e.g. to
//                              model wired memory stranded by a killed process
//   clock_pinned               0/1: 1 = no real time passes on the simulated machine: the
//                              uptime is uptime_advanced_s alone, so two runs of a test see the
//                              same uptime whatever the host's clock did between them
//   launchd                    the simulated launchd's word on the boot action's LaunchDaemon:
//                              none (no launchd: a fresh machine), loaded, not-loaded (its
//                              plist there), not-installed (no plist: a Homebrew install), or
//                              disabled (loaded but switched off), so that what wiredcap says of
//                              each state can be shown for each macOS release
//
// Every change is a locked read-modify-write that replaces the file atomically (see
// update_state), so a reader never sees a torn file and concurrent writers lose no update.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/simulator/sim_profiles.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::kernel::sim {

inline constexpr std::size_t kHistoryCap = 256;

// The longest stall a fault may ask for: ten minutes. The stalls exist so that a test can kill
// the process that is writing the knob at an exact point (docs/design.md section 6, crash points);
// a longer one is a typo, not a test.
inline constexpr std::uint64_t kMaxStallMs = 600'000;

struct SimState {
    std::string profile;
    units::Bytes memsize = units::Bytes::zero();
    units::MiB default_cap = units::MiB::zero();
    bool wired_limit_mb_present = true;
    units::MiB knob = units::MiB::zero();
    // 4 by default: a MiB count suggests the kernel keeps it in a 32-bit int, but that is
    // unconfirmed, so the Darwin backend accepts either width and the tests cover both.
    unsigned value_width = 4;
    std::string boot_id;
    std::uint64_t boot_count = 1;
    std::int64_t boot_time = 0;
    std::uint64_t uptime_advanced_s = 0;
    units::MiB hang_above = units::MiB::zero();
    bool hung = false;
    bool fault_write_refused = false;
    std::int64_t fault_readback_offset_mib = 0;
    bool fault_key_missing = false;
    std::uint64_t fault_stall_write_ms = 0;
    std::uint64_t fault_stall_after_write_ms = 0;
    RelatedValues related;
    std::uint64_t writes = 0;
    std::vector<units::MiB> history;
    bool clock_pinned = false;
    units::Bytes wired = units::Bytes::zero();
    std::string launchd = "none";

    friend bool operator==(const SimState&, const SimState&) = default;
};

// Memory wired on an idle machine of this size, after a boot: memsize / 32, in whole 16 KiB
// pages (a model, not a measurement: macOS wires a few GiB for itself).
[[nodiscard]] units::Bytes idle_wired(units::Bytes memsize) noexcept;

// A machine of that profile just out of the box: knob 0, no faults (no stalls either), never
// hangs, width 4, a new boot id, booted now (unix_now) with nothing advanced. Fails only when
// /dev/urandom cannot be read.
[[nodiscard]] Expected<SimState> fresh_state(const Profile& profile);

// A new kern.bootsessionuuid-looking id (random version-4 UUID, upper case), from
// /dev/urandom: boot ids must not repeat across runs, which a seeded rand() cannot promise.
[[nodiscard]] Expected<std::string> new_boot_id();

// The host's real time in unix seconds: the simulated machine's clock is the host's clock.
[[nodiscard]] std::int64_t unix_now() noexcept;

// The simulated machine's uptime at `now_unix_s`: max(0, now - boot_time) + uptime_advanced_s,
// or uptime_advanced_s alone while the clock is pinned.
// A boot_time in the future (the host clock was set back) counts as no time passed, not as a
// negative uptime. Pure, and exact: an uptime too large for std::chrono::seconds is an error,
// never a wrapped or clamped number.
[[nodiscard]] Expected<std::chrono::seconds> uptime_at(const SimState& state,
                                                       std::int64_t now_unix_s);

// Whether the kernel's integer of `width` bytes (4 or 8) can hold the MiB count.
[[nodiscard]] bool fits_width(units::MiB value, unsigned width) noexcept;

// The key=value lines, in the documented order, without comments.
[[nodiscard]] std::string serialize_state(const SimState& state);

// Strict parse of a whole file's text; the error names the line and the problem.
[[nodiscard]] Expected<SimState> parse_state(std::string_view text);

// The state at `path`. A missing file is a fresh machine of the default profile, created on
// the spot so that its boot id stays the same for every later reader.
[[nodiscard]] Expected<SimState> load_state(const std::filesystem::path& path);

// Locked read-modify-write: `change` edits the state and returns whether to save it. The lock
// (flock LOCK_EX on `<path>.lock`, a 0600 file only its creator can open; waited for at most 5 s)
// is held from the read until the new text has replaced it (temp file in the same directory,
// fsync, rename), so concurrent updates serialise instead of overwriting.
[[nodiscard]] Expected<Ok> update_state(const std::filesystem::path& path,
                                        const std::function<bool(SimState&)>& change);

// Replaces whatever is at `path` (even an unreadable state) with `state`, under the same lock.
[[nodiscard]] Expected<Ok> replace_state(const std::filesystem::path& path, const SimState& state);

}  // namespace wiredcap::kernel::sim
