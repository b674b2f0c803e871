// What the helper's `read` says about the machine, as typed values that keep their source.
// A value the helper could not read stays empty, with the reason; it is never filled in.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "helper_client.hpp"
#include "wiredcap/units/expected.hpp"
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
    std::string source;  // "policy file /etc/wiredcap.conf" or "built-in default"
    std::vector<std::string> warnings;
};

struct MachineReadings {
    std::string backend;  // "darwin" or "simulated"
    Reading<units::MiB> knob;
    Reading<units::Bytes> memsize;
    Reading<std::string> boot_id;
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

}  // namespace wiredcap::cli
