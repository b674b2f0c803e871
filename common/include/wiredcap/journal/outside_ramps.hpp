// Writes outside a ramp (docs/design.md section 6): `wiredcap set`, the helper's `apply` run
// directly, the boot action's apply. A ramp step is at risk until a person confirms it; such a
// write is at risk until it is read back:
//   - an intent that no record of its boot ever read back (no readback_mib after it in that
//     boot), in an earlier boot than the current one, is where the machine hung: a hang;
//   - the boot action's write, until its boot is healthy (or the write was reverted, failed
//     with the kernel answering, or a plain reset undid it), is the same: a hang once its
//     boot is over, whether or not the guard's next run recorded the trip yet;
//   - a write outside a ramp that read back correctly, raised the GPU's cap and was still in
//     force when its boot ended (no later change in that boot) is a suspect: on a real Mac the
//     hang comes when a workload wires the memory, long after the read-back. Only a person can
//     tell: their answer (`verdict` records) makes it a hang, or settles it. The boot action's
//     applies are never suspects: the boot guard judges those (healthy, or tripped).
// And a person may clear the hang ceiling (`forget-hang` records): the hangs before it stay in
// the journal as history, and no longer bind.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/journal/record.hpp"

namespace wiredcap::journal {

// Who wrote a run-less write, as a word: "set" (wiredcap set, run by root), "set-claim"
// (another caller's --by set: its word, which no one checked), "helper-apply" (the helper run
// directly, or by a wiredcap that did not name itself), "boot-action".
[[nodiscard]] std::string writer_of(const EntryView& e);

struct OutsideRamps {
    std::vector<std::pair<std::size_t, StepRef>> hangs;  // (journal order, where)
    std::vector<StepRef> suspects;                       // not answered yet
    std::optional<Forgotten> forgotten;                  // the last forget-hang
};

// The same scan one record at a time, `order` the record's 1-based position among the records
// (what the recovery replay streams the journal through, recovery.hpp: Analysis).
class OutsideRampScan {
public:
    explicit OutsideRampScan(std::string_view current_boot);  // must outlive the scan
    void add(const EntryView& e, std::size_t order);
    [[nodiscard]] OutsideRamps result() const;
    // Classifier::may_answer's answer (classifier.hpp).
    [[nodiscard]] bool may_answer(std::string_view boot, units::MiB value, bool root) const;
    // The orders of the records the answers above rest on: every other run-less write and
    // verdict may go (the compaction's keep rule).
    void add_in_use(std::vector<std::size_t>& orders) const;

private:
    struct Write {
        std::size_t order;
        StepRef ref;
    };
    void add_boot_write(const EntryView& e, std::size_t order);
    struct Verdict {
        std::size_t order;
        bool hung;
        bool root;  // root's answer: only it settles a suspect, and a member's never overrides it
    };
    void answer(const Verdict& v, std::string_view boot, units::MiB value);
    std::string_view current_;
    std::vector<Write> unread_;
    std::vector<Write> boot_writes_;  // the boot action's, not settled in their boot (yet)
    std::vector<Write> trials_;       // Linux trials recorded hung
    // Per boot: its last change, if it is a suspect. std::less<>: looked up by the record's view.
    std::map<std::string, Write, std::less<>> last_change_;
    std::map<std::pair<std::string, std::uint64_t>, Verdict> verdicts_;
    std::optional<Forgotten> forgotten_;
};

}  // namespace wiredcap::journal
