// The boot state: the value `wiredcap persist` stored for boot, and the boot guard that makes the
// LaunchDaemon's boot action try it once per boot and never twice after a boot that did not
// survive it (docs/design.md section 2: re-applying at boot turns one hang into a boot loop).
//
// One small root-owned file next to the journal, written only by the helper, replaced atomically
// (temporary file, flush, rename, flush of the directory) under the helper's exclusive
// lock (journal/helper_lock.hpp), so a reader sees the old state or the
// new one and two helpers never interleave:
//
//   # wiredcap boot state: written by wiredcap-helper; do not edit (see wiredcap-helper(8))
//   value_mib=98304
//   basis=confirmed                 confirmed | unconfirmed (persist --unconfirmed)
//   persisted_time=1764410000       unix seconds
//   guard=trying                    armed | trying | healthy | tripped | failed
//   guard_boot=<boot id>            the boot the guard state belongs to (armed: the boot it was
//                                   stored in, applied from the next one on; - if unknown)
//   guard_time=1764410031           unix seconds of the last guard change
//   applied_uptime_s=31             uptime when the boot action applied the value; - if it did not
//   reason=-                        why the guard tripped or failed; - otherwise
//   start_mib=161792                persist --unconfirmed only: the effective cap when it was
//                                   stored, where the boot action's one step counts from
//   start_source=given by uid 0     where start_mib came from: the caller's --effective, its
//                                   claim, never a measurement (older files: metal |
//                                   simulated-metal | given, the caller's word as it was)
//   start_said=simulated-metal      the source the caller named for it (--effective-source)
//
// The start_ lines are written only when the start is known; files written before they existed
// end at reason= and are read as before (their one step counts from the band's min); files
// written before start_said existed end at start_source.
// Parsing is exact: these lines in this order, nothing else. Anything else is an error, and the
// boot action then applies nothing.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::boot {

enum class Guard { armed, trying, healthy, tripped, failed };

[[nodiscard]] std::string_view guard_name(Guard g);

struct State {
    units::MiB value = units::MiB::zero();
    bool confirmed = true;               // false: stored with --unconfirmed
    std::int64_t persisted_time = 0;
    Guard guard = Guard::armed;
    std::string guard_boot;              // empty: unknown (armed only)
    std::int64_t guard_time = 0;
    std::optional<std::int64_t> applied_uptime_s;
    std::string reason;                  // printable ASCII, no newline; empty when none
    std::optional<units::MiB> start;     // the effective cap at persist time (--unconfirmed)
    std::string start_source;            // with start: where it came from
    std::string start_said;              // with start: the source the caller named

    friend bool operator==(const State&, const State&) = default;
};

[[nodiscard]] std::string serialize(const State& s);
[[nodiscard]] Expected<State> parse(std::string_view text);

// Reads the state without locking (for `read`): nullopt when nothing is stored.
[[nodiscard]] Expected<std::optional<State>> read(const std::string& path, uid_t owner);

// The state file's directory, opened as a trusted directory, for one command's
// read-modify-write. Open it only under the helper's lock (journal/helper_lock.hpp, taken by the
// journal's Writer): that lock, not one on this directory, keeps two helpers apart, because
// anyone can open this directory (0755) and would hold a lock on it as long as they liked.
class Store {
public:
    [[nodiscard]] static Expected<Store> open(const std::string& path, uid_t owner);
    [[nodiscard]] Expected<std::optional<State>> load() const;
    [[nodiscard]] Expected<Ok> save(const State& s) const;
    // true when there was a state to remove.
    [[nodiscard]] Expected<bool> remove() const;
    // Whether anything is at the state's path (a file, or whatever else someone put there).
    [[nodiscard]] bool present() const;

private:
    Store(UniqueFd dir, std::string path, std::string name, uid_t owner)
        : dir_(std::move(dir)), path_(std::move(path)), name_(std::move(name)), owner_(owner) {}
    UniqueFd dir_;
    std::string path_;
    std::string name_;
    uid_t owner_;
};

}  // namespace wiredcap::boot
