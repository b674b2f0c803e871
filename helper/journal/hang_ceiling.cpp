#include "journal/hang_ceiling.hpp"

#include <map>
#include <utility>
#include <vector>

#include "journal/record_fields.hpp"

namespace wiredcap::journal {
namespace {

// The last store of a value for boot, if it overrode the hang ceiling: hangs already known then
// (from boots other than the store's) were overridden by a person and do not bind that value.
struct Waiver {
    std::size_t index;
    std::string boot;
};

bool is_store_record(std::string_view line, std::string_view command, std::string_view event) {
    return command == "persist" && (event == "persisted" || event == "unchanged") && line.find("\"to_mib\":") != line.npos;
}

// A Linux trial's hang (to_pages of page_size bytes) in whole MiB, rounded down: a ceiling is
// never rounded up past what hung.
std::optional<std::uint64_t> linux_hang_mib(std::string_view line) {
    const auto pages = number_after(line, "to_pages"), size = number_after(line, "page_size");
    if (!pages || !size || *size == 0 || *pages > UINT64_MAX / *size) return std::nullopt;
    return *pages * *size >> 20;
}

// A value that hung, and where in the journal it was found.
struct HangAt {
    std::uint64_t value;
    std::string boot;
    std::size_t index;  // of its latest intent or apply: the journal's order, not its clock
};

// The journal replayed for hangs: ramp steps never confirmed nor reverted, writes outside a ramp
// never read back, and suspects a person said hung; each with its place in the file.
class HangScan {
public:
    void line(std::string_view line) {
        const std::size_t index = records_++;
        const std::string_view event = string_after(line, "event"), command = string_after(line, "command");
        const std::string boot(string_after(line, "boot"));
        const auto to = number_after(line, "to_mib");
        if (is_store_record(line, command, event)) {
            waiver_.reset();  // a store without the override keeps every hang binding
            if (line.find(",\"ignore_hang_ceiling\":true") != line.npos) waiver_ = Waiver{index, boot};
            return;
        }
        const bool root = number_after(line, "uid") == 0u;
        // Only root lifts a ceiling: a member's forget would lift root's hangs too (ttm-* records
        // are wiredcap-system's, root's program, whatever uid it stamps).
        if (((command == "forget-hang" && root) || command == "ttm-forget-hang") && event == "forgotten")
            forgotten_before_ = index;
        // The boot guard's trip: a boot that applied the value never got healthy.
        if (command == "boot" && event == "tripped" && to) verdicts_.push_back(HangAt{*to, "", index});
        if (command == "verdict" && (event == "hung" || event == "not-hung") && to)
            answer(Answer{index, event == "hung", root}, string_after(line, "reason"), *to);
        // Linux: a trial that wiredcap-system judged hung binds at once, like a verdict.
        if (command.starts_with("ttm-") && event == "hung")
            if (const auto mib = linux_hang_mib(line)) verdicts_.push_back(HangAt{*mib, "", index});
        // The kernel answered in this boot: every write before it in the boot was read back.
        const bool read_back = line.find(",\"readback_mib\":") != line.npos;
        if (read_back) std::erase_if(unread_, [&](const HangAt& w) { return w.boot == boot; });
        const std::string run(run_of(line));
        note_change(line, command, event, boot, run.empty(), index);
        if (run.empty() && command == "apply" && event == "intent" && to) unread_.push_back(HangAt{*to, boot, index});
        // The boot action's write, at risk until its boot settles it: the guard's `healthy`, a
        // revert, a failed write the kernel answered, a plain reset (it forgets the stored value).
        // Binding before the guard's trip is recorded: the switch or a reset may come first.
        const bool settled = command == "boot" ? event == "healthy" || event == "revert_applied" ||
                                                     (event == "write_failed" && read_back)
                                               : command == "reset" && (event == "applied" || event == "unchanged");
        if (run.empty() && settled) std::erase_if(boot_writes_, [&](const HangAt& w) { return w.boot == boot; });
        if (run.empty() && settled && command == "reset") reset_at_[boot] = index;
        if (run.empty() && command == "boot" && event == "intent" && to) boot_writes_.push_back(HangAt{*to, boot, index});
        if (!run.empty()) note_run(line, runs_[run], event, boot, index);
        const auto step = number_after(line, "step");
        if (run.empty() || !step) return;
        auto& s = steps_[{run, *step}];
        // A revert that found its target in force is written `unchanged`, naming that target.
        const bool target_in_force = event == "unchanged" && to && *to != s.at.value;
        if (event == "confirmed" || event == "revert_applied" || target_in_force) s.resolved = true;
        else if (command == "apply" && to && (event == "intent" || event == "applied" || event == "unchanged" ||
                                              event == "mismatch" || event == "write_failed"))
            s = Step{HangAt{*to, boot, index}, false, true};
    }

    [[nodiscard]] std::optional<units::MiB> lowest(std::string_view current_boot, bool stored_value) const {
        std::optional<units::MiB> low;
        auto consider = [&](const HangAt& h, bool before_this_boot) {
            // The OS default (0) is no value that can hang: a reset, as recover reads it.
            if (!before_this_boot || h.value == 0 || (stored_value && waived(h)) || h.index < forgotten_before_) return;
            if (!low || h.value < low->count()) low = units::MiB::from_count(h.value);
        };
        auto earlier = [&](const HangAt& h) { return !h.boot.empty() && h.boot != current_boot; };
        // Per run, as recover reads it: its highest step at risk, unless an `end` settles it.
        for (auto it = steps_.begin(); it != steps_.end();) {
            const std::string run = it->first.first;
            const Step *at_risk = nullptr, *top = nullptr;
            for (; it != steps_.end() && it->first.first == run; ++it) {
                if (!it->second.forward) continue;
                top = &it->second;
                if (!it->second.resolved && !reset_since(top->at)) at_risk = top;
            }
            const Run& r = runs_.at(run);
            if (r.ended_hung && at_risk) consider(at_risk->at, true);
            const bool settled = r.ended && (!at_risk || r.end_settles(at_risk->at));
            if (!r.ended_hung && !settled && at_risk && at_risk == top) consider(at_risk->at, earlier(at_risk->at));
        }
        for (const auto& w : unread_) consider(w, earlier(w));
        for (const auto& w : boot_writes_) consider(w, earlier(w));
        for (const auto& v : verdicts_) consider(v, true);  // a person's word: binding at once
        for (const auto& [boot, w] : last_change_) {
            const auto a = answers_.find({boot, w.value});
            if (a != answers_.end() && a->second.hung)
                consider(HangAt{w.value, "", a->second.index}, earlier_boot(boot, current_boot));
        }
        return low;
    }

    // is_open_suspect's answer (hang_ceiling.hpp).
    [[nodiscard]] bool open_suspect(std::string_view boot, std::uint64_t value, std::string_view current_boot,
                                    bool root) const {
        const auto w = last_change_.find(std::string(boot));
        if (w == last_change_.end() || w->second.value != value || !earlier_boot(boot, current_boot)) return false;
        const auto a = answers_.find({std::string(boot), value});
        return root || a == answers_.end() || !a->second.root;
    }

private:
    // A person's answer on a suspect. Root's answer decides; a member's `hung` counts until root
    // answers, and its `not-hung` counts for nothing: it would settle what root wrote.
    struct Answer {
        std::size_t index;
        bool hung;
        bool root;
    };
    void answer(const Answer& a, std::string_view boot, std::uint64_t value) {
        auto [it, added] = answers_.try_emplace({std::string(boot), value}, a);
        if (!added && (a.root || !it->second.root) && (a.root || a.hung)) it->second = a;
        else if (added && !a.root && !a.hung) answers_.erase(it);
    }
    // Each boot's last change read back: a suspect when it is a write outside a ramp that
    // raised the GPU's cap (measured as recovery reads it: outside_ramps.hpp).
    void note_change(std::string_view line, std::string_view command, std::string_view event, const std::string& boot,
                     bool runless, std::size_t index) {
        const auto readback = number_after(line, "readback_mib");
        const bool change = command == "apply" || command == "reset" || command == "boot";
        if (!readback || !change) return;
        if (event != "applied" && event != "mismatch" && event != "write_failed" && !event.starts_with("revert_")) return;
        const auto effective = number_after(line, "effective_mib"), from = number_after(line, "from_mib");
        const bool raised = effective ? *readback > *effective : (!from || *from == 0 || *readback > *from);
        if (runless && command == "apply" && event == "applied" && *readback != 0 && raised)
            last_change_[boot] = HangAt{*readback, boot, index};
        else
            last_change_.erase(boot);
    }
    struct Step {
        HangAt at;
        bool resolved;
        bool forward = false;  // an apply's intent or outcome was recorded
    };
    // A run: whose it is, where its revert goes (the value before step 1, then the last
    // confirmed one) and its last `end`, which settles it when it read back that target in the
    // boot of the step at risk. Another uid's `end ... hung` is no one's word but its own.
    struct Run {
        std::optional<std::uint64_t> owner, target, end_readback;
        std::string end_boot;
        bool ended = false, end_failed = false, ended_hung = false;
        [[nodiscard]] bool end_settles(const HangAt& at_risk) const {
            return end_boot == at_risk.boot && !end_failed && end_readback && end_readback == target;
        }
    };
    static void note_run(std::string_view line, Run& r, std::string_view event, const std::string& boot,
                         std::size_t) {
        const auto uid = number_after(line, "uid"), from = number_after(line, "from_mib");
        if (!r.owner) r.owner = uid;
        const bool forward = event == "intent" || event == "applied" || event == "unchanged" || event == "mismatch" ||
                             event == "write_failed";
        if (!r.target && from && forward) r.target = from;
        if (event == "confirmed" && number_after(line, "readback_mib")) r.target = number_after(line, "readback_mib");
        if (event != "end") return;
        const std::string_view outcome = string_after(line, "reason");
        r.ended = true;
        r.end_readback = number_after(line, "readback_mib");
        r.end_boot = boot;
        r.end_failed = outcome == "revert_failed";
        r.ended_hung = r.ended_hung || (outcome == "hung" && (uid == 0u || uid == r.owner));
    }
    // A plain reset that took, later in the step's boot: the step was not in force when it ended.
    [[nodiscard]] bool reset_since(const HangAt& h) const {
        const auto r = reset_at_.find(h.boot);
        return r != reset_at_.end() && r->second > h.index;
    }
    [[nodiscard]] bool waived(const HangAt& h) const {
        return waiver_ && h.index < waiver_->index && h.boot != waiver_->boot;
    }
    std::map<std::pair<std::string, std::uint64_t>, Step> steps_;
    std::vector<HangAt> unread_;    // writes outside a ramp, not read back in their boot (yet)
    std::vector<HangAt> verdicts_;  // suspects a person said hung, boot guard trips
    std::vector<HangAt> boot_writes_;  // the boot action's, not settled in their boot (yet)
    std::map<std::string, Run> runs_;
    std::map<std::string, std::size_t> reset_at_;  // per boot: its last plain reset that took
    std::map<std::string, HangAt> last_change_;  // per boot: its last change, if a suspect
    std::map<std::pair<std::string, std::uint64_t>, Answer> answers_;  // per suspect (boot, value)
    std::optional<Waiver> waiver_;
    std::size_t forgotten_before_ = 0;  // hangs found before the last forget-hang do not bind
    std::size_t records_ = 0;           // scanned so far: the next record's place
};

}  // namespace

bool earlier_boot(std::string_view boot, std::string_view current_boot) {
    auto unknown = [](std::string_view b) { return b.empty() || b == "unknown"; };
    return !unknown(boot) && !unknown(current_boot) && boot != current_boot;
}

bool is_open_suspect(std::string_view text, std::string_view boot, units::MiB value, std::string_view current_boot,
                     bool root) {
    HangScan scan;
    for_each_record(text, [&scan](std::string_view line) { scan.line(line); });
    return scan.open_suspect(boot, value.count(), current_boot, root);
}

std::optional<units::MiB> find_hang_ceiling(std::string_view text, std::string_view current_boot, bool stored_value) {
    HangScan scan;
    for_each_record(text, [&scan](std::string_view line) { scan.line(line); });
    return scan.lowest(current_boot, stored_value);
}

}  // namespace wiredcap::journal
