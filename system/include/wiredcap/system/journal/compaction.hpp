// Keeping root's journal bounded (docs/design.md, "The journal": compaction). wiredcap-system,
// under the helper's lock, rewrites the journal with only the records whose loss would change an
// answer of its readers (the helper's checks, the boot action, status, recover) in this boot or a
// later one, and keeps the old file as the one archive generation, `journal.jsonl.1`. What it
// keeps and which runs it closes as abandoned are listed in docs/design.md; whether a step is at
// risk and which writes outside a ramp still count are the classifier's answers (step_risk.hpp,
// Classifier::outside_ramps_in_use), not this file's.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <sys/types.h>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/journal/classifier.hpp"
#include "wiredcap/journal/step_risk.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {

inline constexpr std::size_t kKeepRecent = 1000;

// The reason of the `end` a compaction writes for a run it closes as abandoned.
inline constexpr std::string_view kAbandoned = journal::outcome::abandoned;

// The decision, in two passes over the same lines: survey() each line in order, then keeps()
// for each line in the same order.
// Who compacts: the current boot (runs of other boots may be abandoned) and the stamp of the
// closing records. Without one, no run is closed as abandoned.
struct Closer {
    std::string boot;  // "unknown" closes nothing: no reboot is proved
    std::int64_t unix_time = 0;
};

class Compaction {
public:
    explicit Compaction(std::size_t keep_recent = kKeepRecent,
                        std::optional<Closer> closer = std::nullopt)
        : keep_recent_(keep_recent), closer_(std::move(closer)) {}
    void survey(std::string_view line);
    [[nodiscard]] bool keeps(std::string_view line);
    // After keeps() of the last record of a run this compaction closes as abandoned: the
    // closing record, which takes that record's place in the journal (else empty).
    [[nodiscard]] std::string closing_after(std::string_view line) const;
    // After keeps() of every line: the runs whose records were not all kept, or that this
    // compaction closed. Records added to one of them later cannot simply follow the kept ones.
    [[nodiscard]] const std::unordered_set<std::string>& not_whole() const { return not_whole_; }

private:
    struct RunInfo {
        bool ended = false;
        bool abandoned = false;      // closed by this compaction (docs/design.md: abandoned runs)
        bool must_stay = false;      // holds a latest confirmation, or a recent record
        std::size_t last_index = 0;  // of its most recent record
        std::string last_boot;       // of its most recent record
        RunSteps steps;              // whether a step is at risk, by its own records
    };
    void decide();
    [[nodiscard]] bool judge(std::string_view line);
    [[nodiscard]] bool closed(const RunInfo& r) const;
    [[nodiscard]] bool is_abandoned(const RunInfo& r) const;
    [[nodiscard]] bool recent(std::size_t index) const { return index + keep_recent_ >= surveyed_; }

    std::size_t keep_recent_;
    std::optional<Closer> closer_;
    std::unordered_map<std::string, RunInfo> runs_;
    std::map<std::uint64_t, std::string> latest_confirmation_;  // value -> the run that holds it
    std::string latest_confirmed_run_;
    std::set<std::string> boots_of_kept_runs_;
    std::unordered_set<std::string> not_whole_;
    std::size_t surveyed_ = 0;
    std::size_t judged_ = 0;
    Classifier classifier_{""};               // every record, for the run-less ones in use
    std::vector<std::size_t> line_of_order_;  // the classifier's order -> the line's index
    std::unordered_set<std::size_t> in_use_;  // run-less lines the classifier's answers rest on
    std::map<std::uint64_t, std::pair<std::size_t, std::string>>
        latest_claim_;  // uid -> its latest claim's line, run
    std::map<std::uint64_t, std::pair<std::size_t, std::string>>
        last_intent_;  // uid -> its open intent's line, boot
    std::unordered_map<std::size_t, std::size_t>
        intent_of_;                                // a run-less write's outcome -> its intent
    std::optional<std::size_t> last_linux_trial_;  // the latest ttm-trial intent's line
    bool decided_ = false;
};

// Journal text with only what a compaction keeps (a torn last line is dropped), with the closing
// records of the runs it found abandoned (with a closer).
[[nodiscard]] std::string compact_text(std::string_view text, std::size_t keep_recent = kKeepRecent,
                                       const std::optional<Closer>& closer = std::nullopt);

struct Compacted {
    UniqueFd journal;         // the new journal, open for appending
    std::size_t records = 0;  // complete lines the old journal held
    std::size_t kept = 0;     // of them, the ones the new journal holds
    bool retry = false;       // given up: records added since it was read touch a run it cut,
                              // or another compaction came first (the next upkeep tries again)
};

// A compaction in two steps, so that the helper's lock is held only for the second (docs/design.md §8:
// a journal from before compaction, 70 MiB, took 2 s, and every command waiting for the lock
// fails after 3 s). prepare_compaction reads the journal open as `fd` up to its last complete
// line and decides what to keep, without the lock: the journal only grows by whole lines at its
// end (a cut-short write is taken back only past its last newline). finish_compaction, under the
// lock, reads what was added since, and writes the kept records and those after them to the new
// journal (as compact_journal below); when an added record belongs to a run the first step did
// not keep whole, or the file is no longer the one read, it gives up (Compacted::retry).
struct Prepared {
    std::string kept;   // the kept records of the journal up to `through`, closing records included
    off_t through = 0;  // the end of its last complete line when it was read
    std::size_t records = 0;
    std::unordered_set<std::string> not_whole;
    dev_t dev = 0;
    ino_t ino = 0;
};
[[nodiscard]] Expected<Prepared> prepare_compaction(
    int fd, const std::string& path, const std::optional<Closer>& closer = std::nullopt,
    std::size_t keep_recent = kKeepRecent);
[[nodiscard]] Expected<Compacted> finish_compaction(int dir_fd, int fd, const std::string& name,
                                                    const std::string& path, const Prepared& p,
                                                    std::size_t min_saving = 0);

// Compacts the journal `name` in the directory `dir_fd`, open as `fd`; `path` names it in
// messages. Crash-safe: the kept records go to a new file (root's, flushed), the old journal is
// linked as `name.1` (the archive), and the new file is renamed over `name`, so `name` always
// holds either the whole old journal or the whole new one. Call only under the helper's lock.
// Nothing is rewritten when that would save fewer than `min_saving` bytes (Compacted::journal is
// then not valid, and the journal stays as it is).
[[nodiscard]] Expected<Compacted> compact_journal(
    int dir_fd, int fd, const std::string& name, const std::string& path,
    std::size_t min_saving = 0, const std::optional<Closer>& closer = std::nullopt);

// Whether the journal, `size` bytes, is due a compaction: past kCompactFrom. 1 MiB is about
// 7,000 records, months of ramps. wiredcap-system looks every minute (system/journal/upkeep.hpp)
// and rewrites it only when that saves at least kCompactSaving, so a journal whose kept records
// alone pass 1 MiB is not rewritten (nor its archive replaced) each minute. Callers other than
// root cannot take it past journal::kMemberBound meanwhile.
inline constexpr std::size_t kCompactFrom = std::size_t{1} << 20;
inline constexpr std::size_t kCompactSaving = std::size_t{64} << 10;
[[nodiscard]] bool compaction_due(std::size_t size);

}  // namespace wiredcap::journal
