// The journal read from its file and classified (wiredcap/journal/classifier.hpp), and the
// wording of the classifier's answers.
#include "wiredcap/ramp/recovery.hpp"

#include <utility>

#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::recovery {
namespace {

// A raise measured against the effective cap its caller gave is that caller's word.
std::string claim_text(const StepRef& r) {
    if (!r.claimed_from) return {};
    return " (raised from " + units::to_string(*r.claimed_from) + ", the effective cap uid " +
           std::to_string(r.uid) + " claimed)";
}

}  // namespace

Report analyse(const std::vector<journal_view::Entry>& entries, std::string_view current_boot) {
    journal::Classifier analysis(current_boot);
    for (const journal_view::Entry& e : entries) analysis.add(journal_view::view_of(e));
    return analysis.finish();
}

Expected<Report> analyse_file(const std::string& path, std::string_view current_boot,
                              journal_view::Notes* notes) {
    auto replay = JournalReplay::read(path, current_boot, notes);
    if (!replay) return replay.error();
    return replay->report();
}

Expected<JournalReplay> JournalReplay::read(const std::string& path, std::string_view current_boot,
                                            journal_view::Notes* notes) {
    JournalReplay r(path, current_boot);
    auto read = journal_view::read_journal(
        path, [&](const journal_view::EntryView& e) { r.analysis_.add(e); }, &r.end_);
    if (!read) return read.error();
    if (notes != nullptr) *notes = std::move(*read);
    return r;
}

Expected<Report> JournalReplay::catch_up() {
    const journal_view::Position from = end_;
    end_ = {};  // until this reading is done: an error midway leaves the replay to start over
    auto more = journal_view::read_journal_after(
        path_, from, [&](const journal_view::EntryView& e) { analysis_.add(e); }, &end_);
    if (!more) return more.error();
    if (!*more) {
        auto again = read(path_, boot_, nullptr);
        if (!again) return again.error();
        *this = std::move(*again);
    }
    return report();
}

std::string hang_origin(const StepRef& r) {
    switch (r.kind) {
        case RefKind::ramp_step:
            return "hung in run " + r.run + " step " + std::to_string(r.step) + " (" + r.time + ")";
        case RefKind::boot_apply:
            return "was applied by the boot action at " + r.time + " in boot " + r.boot +
                   ", and that boot never became healthy";
        case RefKind::boot_trip:
            return "was applied by the boot action in a boot that never became healthy (the boot guard found it at " +
                   r.time + " in boot " + r.boot + ")";
        case RefKind::unread_write:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " +
                   r.boot + " and never read back before the machine went down";
        case RefKind::answered_hung:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " +
                   r.boot + ", in force when the machine went down, and a person said it hung" +
                   claim_text(r);
        case RefKind::suspect:
            return "was written by " + writer_text(r.writer) + " at " + r.time + " in boot " +
                   r.boot + " and was in force when the machine went down" + claim_text(r);
        case RefKind::trial_hung:
            return "was tried for one boot by " + writer_text(r.writer) +
                   ", and that boot ended without a "
                   "confirmation (recorded " +
                   r.time + " in boot " + r.boot + ")";
    }
    return {};
}

std::string writer_text(std::string_view writer) {
    if (writer == journal::writer::set) return "wiredcap's set";
    if (writer == journal::writer::set_claim) return "wiredcap's set (its caller's word)";
    if (writer == journal::writer::boot_action) return "the boot action";
    if (writer == journal::writer::linux_trial)
        return "a Linux try-once trial (wiredcap-system ttm-trial)";
    return "wiredcap-helper's apply (run directly)";
}

std::string_view kind_name(RefKind k) {
    switch (k) {
        case RefKind::ramp_step: return "ramp_step";
        case RefKind::boot_apply: return "boot_apply";
        case RefKind::boot_trip: return "boot_trip";
        case RefKind::unread_write: return "unread_write";
        case RefKind::answered_hung: return "answered_hung";
        case RefKind::suspect: return "suspect";
        case RefKind::trial_hung: return "trial_hung";
    }
    return "unknown";
}

std::optional<std::string_view> outcome_to_record(RunState s) {
    switch (s) {
        case RunState::hung_in_earlier_boot:
        case RunState::interrupted_in_earlier_boot: return journal::outcome::hung;
        case RunState::ended_without_record: return journal::outcome::aborted;
        case RunState::awaiting_in_this_boot:
        case RunState::revert_unproven_in_this_boot: return std::nullopt;
    }
    return std::nullopt;
}

}  // namespace wiredcap::recovery
