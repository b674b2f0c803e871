// What the journal says about past ramps, for the CLI (docs/design.md section 6): the answers are
// the one classifier's (wiredcap/journal/classifier.hpp, shared with the helper and
// wiredcap-system); this adds reading the journal file and the wording of its answers.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::recovery {

using journal::earlier_boot;
using journal::Forgotten;
using journal::RefKind;
using journal::Report;
using journal::RunState;
using journal::StepRef;
using journal::UnresolvedRun;
using Analysis = journal::Classifier;

[[nodiscard]] Report analyse(const std::vector<journal_view::Entry>& entries,
                             std::string_view current_boot);

// The journal at `path` read and analysed record by record; what reading found besides the
// records (torn tail, skipped lines) in `notes` when given.
[[nodiscard]] Expected<Report> analyse_file(const std::string& path, std::string_view current_boot,
                                            journal_view::Notes* notes = nullptr);

// The same, kept open: recover reads the journal, records outcomes through the helper (which
// appends them), and answers on the journal as it is then. catch_up() reads only what was
// appended since (journal_view::read_journal_after), or all of it again when the file is not
// the one read (compacted since, say): the answer is the one a new reading would give.
class JournalReplay {
public:
    [[nodiscard]] static Expected<JournalReplay> read(const std::string& path,
                                                      std::string_view current_boot,
                                                      journal_view::Notes* notes = nullptr);
    [[nodiscard]] Expected<Report> catch_up();
    [[nodiscard]] Report report() const { return analysis_.finish(); }

private:
    JournalReplay(std::string path, std::string_view current_boot)
        : path_(std::move(path)), boot_(current_boot), analysis_(boot_) {}
    std::string path_;
    std::string boot_;
    Analysis analysis_;
    journal_view::Position end_;
};

// How a hang at `r` came about, to follow its value in a sentence: "hung in run R step N (T)",
// or for the boot action "was applied by the boot action at T in boot B, and that boot never
// became healthy".
[[nodiscard]] std::string hang_origin(const StepRef& r);

// The writer word in a sentence: "wiredcap's set", ... (never a command line: it is not one).
[[nodiscard]] std::string writer_text(std::string_view writer);

// "ramp_step", "boot_apply", "boot_trip", "unread_write", "answered_hung", "suspect" or
// "trial_hung" (the JSON
// `kind` of a step reference).
[[nodiscard]] std::string_view kind_name(RefKind k);

// The "end" outcome recover records for each unresolved run (nullopt: leave it alone).
[[nodiscard]] std::optional<std::string_view> outcome_to_record(RunState s);

}  // namespace wiredcap::recovery
