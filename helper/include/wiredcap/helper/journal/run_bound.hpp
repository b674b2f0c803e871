// How many runs a caller other than root may hold open, and how long one may grow (docs/design.md §8).
// Run ids are the caller's choice, and compaction keeps every run that is not closed (an `end`,
// and each step settled by its own records: system/journal/compaction.hpp): without a bound, a
// group member's applies with fresh ids, or one run's endless records, would fill the journal
// to journal::kMemberBound and keep other members out until root acts. So, in this boot, a
// caller other than root may hold at most kMaxOpenRuns runs that are not closed, and a run at
// most kMaxRunRecords of its records; past either, the helper refuses the command (exit 4,
// journaled without the run). A ramp is one run of well under a hundred steps; a run left open
// by a ramp that died is closed by `wiredcap recover` (after `wiredcap reset` for a step at risk)
// or, from the next boot on, by the compaction.
//
// A run is also its opener's, in its boot: the hang scan (hang_ceiling.hpp) and the compaction
// follow a run by its id and step, whoever wrote the record, so a member's apply, confirm or
// revert in root's run (or in its own run of an earlier boot) would settle or replace a step
// that hung there. A caller other than root may name a run holding another uid's records or
// an earlier boot's only to `end` it (what `wiredcap recover` does with a run left open).
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace wiredcap::journal {

inline constexpr std::size_t kMaxOpenRuns = 4;
inline constexpr std::size_t kMaxRunRecords = 1024;

struct CallersRun {
    std::string_view run;   // the run the command names
    uid_t uid;              // the caller's
    std::string_view boot;  // the current boot
    bool ending = false;    // the command is `end`, which may name any run
};

struct RunUse {
    std::size_t open_others = 0;  // the caller's runs in this boot, other than `run`, not closed
    std::size_t records = 0;      // the caller's records of `run` in this boot
    bool anothers = false;        // `run` holds a record of another uid or of another boot
    bool other_uid = false;       // `run` holds a record of another uid
};

// Over journal text (record_fields.hpp: read_journal).
[[nodiscard]] RunUse run_use(std::string_view journal_text, const CallersRun& c);

// Why a command of the caller's in `c.run` would pass the bound, or nothing.
[[nodiscard]] std::optional<std::string> run_bound_refusal(const RunUse& use, const CallersRun& c);

}  // namespace wiredcap::journal
