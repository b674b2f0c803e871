// What the helper's `read` says about the machine, as typed values that keep their source.
// A value the helper could not read stays empty, with the reason; it is never filled in.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "wiredcap/cli/readings/helper_client.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

template <class T>
struct Reading {
    std::optional<T> value;
    std::string source;  // "kernel", "kernel read-back", "policy file /etc/wiredcap.conf", ...
    std::string error;   // why there is no value
};

struct PolicyView {
    units::MiB min = units::MiB::zero();
    units::MiB max = units::MiB::zero();
    units::MiB reserve = units::MiB::zero();
    units::MiB max_step = units::MiB::zero();
    std::optional<std::string> group;
    std::optional<std::uint64_t>
        healthy_after_s;  // the boot guard's healthy_after (not reported: unknown)
    std::string source;   // "policy file /etc/wiredcap.conf" or "built-in default"
    std::vector<std::string> warnings;
    std::optional<units::MiB> vouched;  // the root's vouched value: exempt from max_step
    std::string vouched_note;
    std::string sha256;  // of the policy file (empty: built-in band, or not reported)
};

// The boot guard's states (helper/include/wiredcap/helper/boot/boot_state.hpp): the LaunchDaemon's boot action tries a
// stored value once per boot and never again after a boot that did not become healthy.
enum class GuardState { armed, trying, healthy, tripped, failed };

// What the helper's `read` says about the value stored for boot (`boot_guard`). Each member is
// only what the helper reported; a missing member stays empty, never a made-up default.
struct BootGuard {
    std::string source;            // "boot state file /var/db/wiredcap/boot.state"
    std::string switch_path;       // the disable switch
    std::optional<bool> disabled;  // something exists at switch_path (nullopt: not reported)
    // The stored value. nullopt with `error` empty: nothing is stored. nullopt with `error`: the
    // state file could not be read, so whether anything is stored is unknown.
    std::optional<units::MiB> persisted;
    std::string error;
    std::optional<bool> confirmed;  // basis: confirmed in a ramp, or --unconfirmed
    std::string persisted_time;
    std::optional<GuardState> guard;  // nullopt: not reported or not a known state
    std::string guard_name;           // as reported, for an unknown state's message
    std::string guard_boot;           // the boot the guard state belongs to (empty while armed)
    std::string guard_time;           // when the guard state last changed
    std::optional<std::uint64_t> applied_uptime_s;  // uptime at the boot action's apply
    std::optional<std::uint64_t> healthy_after_s;   // the policy's healthy_after (when it loads)
    std::string reason;                             // tripped/failed: why
};

struct MachineReadings {
    std::string backend;  // "darwin" or "simulated"
    Reading<units::MiB> knob;
    Reading<units::Bytes> memsize;
    Reading<units::Bytes> wired_now;  // memory wired now, system-wide (kernel)
    Reading<std::string> boot_id;
    Reading<std::chrono::seconds> uptime;  // awake time since boot
    std::optional<BootGuard> boot_guard;   // nullopt: the helper did not report one
    std::vector<std::pair<std::string, Reading<std::string>>> related;
    std::optional<PolicyView> policy;
    std::string policy_error;
    bool may_change = false;
    std::string may_change_why;
    int helper_exit = 0;
    [[nodiscard]] bool simulated() const { return backend == "simulated"; }
};

// Runs `wiredcap-helper read`. Fails only when the helper gave no usable answer at all.
[[nodiscard]] Expected<MachineReadings> read_machine(const HelperClient& helper);

// The parsing half of read_machine: the helper's `read` line (and its exit code) as readings.
[[nodiscard]] MachineReadings readings_of(const json::Value& read_line, int helper_exit);

// The helper's `boot_guard` object; nullopt when it is absent or not an object.
[[nodiscard]] std::optional<BootGuard> boot_guard_of(const json::Value* o);

[[nodiscard]] std::optional<GuardState> guard_state_of(std::string_view name);
[[nodiscard]] std::string_view guard_state_name(GuardState g);

}  // namespace wiredcap::cli
