// The journal: an append-only file of JSON lines, one per event, that is both the ramp's memory
// across a hang-and-reboot and the audit trail of everything the helper did or refused.
//
// Record (schema version 1):
//   {"v":1,"time":"2026-11-29T08:40:00Z","boot":"<boot id>","uid":501,"command":"apply",
//    "event":"intent","run":"<id>","step":2,"from_mib":65536,"to_mib":98304,
//    "readback_mib":98304,"reason":"...","effective_mib":161792,
//    "effective_source":"given by uid 501","ignore_hang_ceiling":true,"by":"set",
//    "vouched":"vouched by the policy file ... (sha256 ...)","effective_said":"metal"}
// Linux's ttm-* records add pages to these fields (docs/linux.md, "The journal"); only
// wiredcap-system writes them (system/include/wiredcap/system/journal/pages_record.hpp), through Writer::append_line.
// Absent values are omitted, never written as 0. Every line is ASCII (json_writer escapes).
// Each record is written with one write(2) and flushed to stable storage (F_FULLFSYNC on
// macOS, fsync elsewhere) before the helper goes on; a torn last line left by a crash is
// closed with a newline before the next record. Readers ignore a torn last line silently and
// skip a closed torn line with a warning that names it.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/helper/journal/helper_lock.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/unique_fd.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::journal {

inline constexpr int kSchemaVersion = 1;

// The most the journal holds before it takes no more records of a caller other than root: a
// group member's flood (fresh run ids, refusals, claims) cannot grow it without limit, nor make
// root's commands read an ever larger file. Root's records are always taken (root's reset
// above all). wiredcap-system compacts the journal back (system/include/wiredcap/system/journal/upkeep.hpp) at boot
// and every minute once it passes 1 MiB; readers stay fast up to this size
// (bench/journal_scale.sh).
inline constexpr std::size_t kMemberBound = std::size_t{1536} << 10;
// One caller's share of it: its records (the ones compaction keeps, too: claims, writes outside
// a run) may fill a quarter, so one member flooding them cannot keep the others out for good.
inline constexpr std::size_t kMemberShare = kMemberBound / 4;

struct Record {
    std::string command;                   // read, apply, reset, confirm, end
    std::string event;                     // intent, applied, mismatch, write_failed, refused, ...
    std::optional<std::string> run;        // ramp run id
    std::optional<std::uint64_t> step;     // ramp step
    std::optional<units::MiB> from;        // read back before the change
    std::optional<units::MiB> to;          // requested
    std::optional<units::MiB> readback;    // read back after the change
    std::string reason;                    // why (refusals, failures, reverts); may be empty
    std::optional<units::MiB> effective = std::nullopt;  // the effective cap the caller passed
    std::string effective_source = {};     // always a claim: "given by uid N" (the helper cannot
                                           // read Metal; the caller's word is not a measurement)
    bool ignore_hang_ceiling = false;      // the person overrode the hang ceiling
    std::string by = {};                   // which wiredcap command asked (apply --by WORD)
    std::string vouched = {};              // the policy that vouched for the value (policy::vouched_by)
    std::string effective_said = {};       // where the caller said it came from: metal |
                                           // simulated-metal | given (its word, kept for the record)
};

// Who and where, stamped on every record.
struct Stamp {
    std::string boot_id;  // "unknown" when it could not be read
    uid_t uid;
};

// "2026-11-29T08:40:00Z": UTC, no TZ lookup, no locale.
[[nodiscard]] std::string utc_iso8601(std::int64_t unix_time);

// The record as a JSON object, keys in the journal's order (more may follow: pages_record.hpp);
// to_json_line is its line.
[[nodiscard]] JsonObject to_json(const Record& r, const Stamp& s, std::int64_t unix_time);
[[nodiscard]] std::string to_json_line(const Record& r, const Stamp& s, std::int64_t unix_time);

// After a write of `line` at the end of the file `fd` (then `size` bytes) was cut short:
// truncates the file back to `size` if all it holds past `size` is the start of `line`. A reset
// that went on without the helper's lock may have appended after the part written, and its
// record is not this helper's to cut (it stays, after a torn line that readers skip).
void take_back_partial_write(int fd, off_t size, std::string_view line);

struct Upkeep;  // system/include/wiredcap/system/journal/upkeep.hpp

class Writer {
public:
    // Opens (creating if needed, mode 0644) the journal at `path`. Its directory is created
    // (0755) when missing, inside a trusted parent; directory and file pass trusted:: checks.
    [[nodiscard]] static Expected<Writer> open(const std::string& path, uid_t owner);

    // Appends one record and flushes it to disk. An error means the record may not be on disk:
    // the caller must not touch the kernel. A record that would cross the process's file-size
    // limit (RLIMIT_FSIZE, which a caller hands over) is refused before a byte is written.
    // Flush::later: written, not flushed; the next flushed record takes it to disk with it (one
    // fsync flushes the whole file). For what nothing depends on after a crash (Action::record).
    // Bound::none: a change in the safe direction (a reset's intent), recorded past a member's
    // bound and share: every change is journaled, and each such one undoes a bounded raise.
    // The line is a record's whole line (to_json_line's, or a longer one of wiredcap-system's),
    // made for the caller `uid`.
    enum class Flush { now, later };
    enum class Bound { member, none };
    [[nodiscard]] Expected<Ok> append_line(const std::string& line, uid_t uid, Flush flush = Flush::now,
                                           Bound b = Bound::member);

    // wiredcap-system's upkeep (system/include/wiredcap/system/journal/upkeep.hpp), root's alone, compacts the journal
    // through the Writer's directory and file and puts the compacted file in its place.
    friend Expected<Upkeep> keep_up(Writer& w, const Stamp& s, bool always, std::chrono::milliseconds lock_wait);

    // Takes the helper's lock (helper_lock.hpp) in the journal's directory, waiting at most
    // `wait`; held until the Writer is gone. Everything the command changes happens under it.
    [[nodiscard]] Expected<Ok> lock(std::chrono::milliseconds wait);
    [[nodiscard]] bool locked() const { return lock_.has_value(); }

    // Under the lock: whether anything but this Writer's own records reached the journal since
    // it took the lock. Only a reset that went on without the lock appends then (its intent is
    // on disk before its write), so a locked command that sees this does not write over it.
    [[nodiscard]] bool appended_by_another();

private:
    Writer(UniqueFd dir, UniqueFd fd, std::string path, trusted::SplitPath where, uid_t owner)
        : dir_(std::move(dir)), fd_(std::move(fd)), path_(std::move(path)), where_(std::move(where)),
          owner_(owner) {}
    [[nodiscard]] Expected<off_t> size() const;
    Expected<Ok> close_torn_line();
    Expected<Ok> follow_a_compaction(const std::string& line);
    // Reopens the journal if its name no longer refers to the file this Writer holds: true if it
    // did. An error is open()'s own: each caller says in what situation it failed.
    Expected<bool> reopen_if_moved();
    UniqueFd dir_;
    UniqueFd fd_;
    std::string path_;
    trusted::SplitPath where_;  // path_'s directory and name
    uid_t owner_;
    std::optional<Lock> lock_;
    off_t own_end_ = -1;       // under the lock: where this Writer's last record ended
    bool foreign_ = false;     // another's bytes were seen before or between its records
    bool appended_ = false;    // a record of this command is in: its later ones (outcomes)
                               // are taken past the member bound and share, never half a step
};

}  // namespace wiredcap::journal
