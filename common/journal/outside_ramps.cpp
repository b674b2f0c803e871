// Writes outside a ramp, replayed from the journal in file order (outside_ramps.hpp).
#include "wiredcap/journal/outside_ramps.hpp"

#include "wiredcap/journal/vocabulary.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <optional>

namespace wiredcap::journal {
namespace {

using units::MiB;

bool is_write_outside_ramp(const EntryView& e) {
    return !e.run && (is_word(e.command, command::apply) || is_word(e.command, command::boot));
}

// What ends the risk of the boot action's write in its boot: the boot guard's `healthy`, a
// revert read back, a failed write with the kernel answering, or a plain reset (which also
// forgets the stored value, so no guard will ever trip on it).
bool settles_boot_write(const EntryView& e) {
    if (is_word(e.command, command::reset))
        return is_word(e.event, event::applied) || is_word(e.event, event::unchanged);
    return is_word(e.event, event::healthy) || is_word(e.event, event::revert_applied) ||
           (is_word(e.event, event::write_failed) && e.readback);
}

// A record that says what the knob holds after a change (or an attempt at one): the kernel was
// read back. The boot guard's own records (healthy, ...) read it too, but change nothing.
bool is_change_read_back(const EntryView& e) {
    if (!e.readback || (!is_word(e.command, command::apply) &&
                        !is_word(e.command, command::reset) && !is_word(e.command, command::boot)))
        return false;
    return is_word(e.event, event::applied) || is_word(e.event, event::mismatch) ||
           is_word(e.event, event::write_failed) || e.event.starts_with(event::revert_prefix);
}

// Whether a read-back write raised the GPU's cap: measured against the effective cap the caller
// passed (knob at 0), else the knob before it. Unknown counts as raised: never round toward danger.
bool raised(const EntryView& e) {
    const MiB now = *e.readback;
    if (e.effective) return now > *e.effective;
    if (e.from && e.from->count() != 0) return now > *e.from;
    return true;
}

bool is_suspect_candidate(const EntryView& e) {
    return !e.run && is_word(e.command, command::apply) && is_word(e.event, event::applied) &&
           e.readback && e.readback->count() != 0 && raised(e);
}

// A Linux trial's value in whole MiB: its pages times their size, rounded down (as
// wiredcap-system's hang ceiling, journal/hang_ceiling.cpp: a ceiling is never rounded up past
// what hung), else to_mib. A value that is not whole MiB has no to_mib.
std::optional<MiB> trial_mib(const EntryView& e) {
    if (e.to_pages && e.page_size && *e.page_size != 0 && *e.to_pages <= UINT64_MAX / *e.page_size)
        return MiB::from_count(*e.to_pages * *e.page_size >> 20);
    return e.to;
}

StepRef ref_of(const EntryView& e, MiB value, RefKind kind) {
    StepRef r{"", 0, value, std::string(e.time), std::string(e.boot), kind};
    r.writer = writer_of(e);
    r.uid = e.uid;
    if (e.effective && (!e.from || e.from->count() == 0)) r.claimed_from = e.effective;
    return r;
}

}  // namespace

OutsideRampScan::OutsideRampScan(std::string_view current_boot) : current_(current_boot) {}

void OutsideRampScan::add(const EntryView& e, std::size_t order) {
    // The kernel answered in this boot: every write before it in the boot was read back.
    if (e.readback) std::erase_if(unread_, [&](const Write& w) { return w.ref.boot == e.boot; });
    if (is_write_outside_ramp(e) && is_word(e.event, event::intent) && e.to && e.to->count() != 0 &&
        !is_word(e.command, command::boot))
        unread_.push_back(Write{order, ref_of(e, *e.to, RefKind::unread_write)});
    if (!e.run && (is_word(e.command, command::boot) || is_word(e.command, command::reset)))
        add_boot_write(e, order);
    if (is_change_read_back(e)) {
        if (is_suspect_candidate(e))
            last_change_[std::string(e.boot)] =
                Write{order, ref_of(e, *e.readback, RefKind::suspect)};
        else if (auto it = last_change_.find(e.boot); it != last_change_.end())
            last_change_.erase(it);
    }
    // A verdict names the boot the suspect was in force in (its reason) and the value.
    if (is_word(e.command, command::verdict) &&
        (is_word(e.event, event::hung) || is_word(e.event, event::not_hung)) && e.to)
        answer(Verdict{order, is_word(e.event, event::hung), e.uid == 0}, e.reason, *e.to);
    // Linux: a try-once trial wiredcap-system judged hung (its boot ended without a
    // confirmation): a hang from that record on, like a person's verdict.
    if (e.command.starts_with(command::ttm_prefix) && is_word(e.event, event::hung))
        if (const auto value = trial_mib(e))
            trials_.push_back(Write{order, ref_of(e, *value, RefKind::trial_hung)});
    // Only root lifts a ceiling: the classifier never hands on another's forget-hang
    // (is_roots_word_alone); ttm-* records are wiredcap-system's, root's program, whatever uid it stamps.
    if ((is_word(e.command, command::forget_hang) ||
         is_word(e.command, command::ttm_forget_hang)) &&
        is_word(e.event, event::forgotten))
        forgotten_ = Forgotten{order, e.to.value_or(MiB::zero()), std::string(e.time), e.uid,
                               std::string(e.reason)};
}

// Root's answer decides a suspect; a member's `hung` counts until root answers (its `not-hung`
// never reaches here: is_roots_word_alone).
void OutsideRampScan::answer(const Verdict& v, std::string_view boot, MiB value) {
    auto [it, added] = verdicts_.try_emplace({std::string(boot), value.count()}, v);
    if (!added && (v.root || !it->second.root)) it->second = v;
}

// The boot action's write is at risk until its boot settles it (settles_boot_write), not only
// until it is read back: the boot guard's own rule, so the hang binds before the guard's next
// run records the trip, which may never come (the boot switch, or a reset that forgot the value).
void OutsideRampScan::add_boot_write(const EntryView& e, std::size_t order) {
    if (settles_boot_write(e))
        std::erase_if(boot_writes_, [&](const Write& w) { return w.ref.boot == e.boot; });
    else if (is_word(e.command, command::boot) && is_word(e.event, event::applied))
        for (Write& w : boot_writes_)
            if (w.ref.boot == e.boot) w.ref.kind = RefKind::boot_apply;  // read back: in force
    if (is_word(e.command, command::boot) && is_word(e.event, event::intent) && e.to &&
        e.to->count() != 0)
        boot_writes_.push_back(Write{order, ref_of(e, *e.to, RefKind::unread_write)});
}

OutsideRamps OutsideRampScan::result() const {
    OutsideRamps out;
    for (const Write& w : boot_writes_)
        if (earlier_boot(w.ref.boot, current_)) out.hangs.emplace_back(w.order, w.ref);
    for (const Write& w : unread_)
        if (earlier_boot(w.ref.boot, current_)) out.hangs.emplace_back(w.order, w.ref);
    for (const Write& w : trials_) out.hangs.emplace_back(w.order, w.ref);
    for (const auto& [boot, w] : last_change_) {
        if (!earlier_boot(boot, current_)) continue;
        auto v = verdicts_.find({boot, w.ref.value.count()});
        if (v == verdicts_.end()) {
            out.suspects.push_back(w.ref);
        } else if (v->second.hung) {
            StepRef hung = w.ref;
            hung.kind = RefKind::answered_hung;
            out.hangs.emplace_back(v->second.order, std::move(hung));  // a hang from the answer on
        }
    }
    std::sort(out.suspects.begin(), out.suspects.end(),
              [](const StepRef& a, const StepRef& b) { return a.time < b.time; });
    out.forgotten = forgotten_;
    return out;
}

bool OutsideRampScan::may_answer(std::string_view boot, MiB value, bool root) const {
    const auto w = last_change_.find(boot);
    if (w == last_change_.end() || w->second.ref.value != value || !earlier_boot(boot, current_))
        return false;
    const auto v = verdicts_.find({std::string(boot), value.count()});
    return root || v == verdicts_.end() || !v->second.root;
}

void OutsideRampScan::add_in_use(std::vector<std::size_t>& orders) const {
    for (const auto* writes : {&unread_, &boot_writes_, &trials_})
        for (const Write& w : *writes) orders.push_back(w.order);
    for (const auto& [boot, w] : last_change_) {
        orders.push_back(w.order);
        if (auto v = verdicts_.find({boot, w.ref.value.count()}); v != verdicts_.end())
            orders.push_back(v->second.order);
    }
    if (forgotten_) orders.push_back(forgotten_->order);
}

std::string writer_of(const EntryView& e) {
    if (is_word(e.command, command::boot)) return writer::boot_action;
    if (e.command.starts_with(command::ttm_prefix)) return writer::linux_trial;
    // Only root's helper can know its caller is wiredcap's set; another caller's --by is its word.
    if (is_word(e.command, command::apply) && is_word(e.by, writer::set))
        return e.uid == 0 ? writer::set : writer::set_claim;
    return writer::helper_apply;
}

bool earlier_boot(std::string_view boot, std::string_view current_boot) {
    auto unknown = [](std::string_view b) { return b.empty() || b == kUnknownBoot; };
    return !unknown(boot) && !unknown(current_boot) && boot != current_boot;
}

}  // namespace wiredcap::journal
