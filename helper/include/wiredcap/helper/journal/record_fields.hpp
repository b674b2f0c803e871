// Reading the journal back: the file, read once per command (helper::Action::journal_text), its
// records line by line, and fields out of one record. Every check the helper makes on the
// journal (hang_ceiling, confirmation, own_apply, run_bound) scans that one text.
//
// The helper reads only what it wrote itself (journal.hpp's format, written by json_writer), so
// it matches that format exactly instead of parsing JSON: keys are fixed ASCII, numbers are
// plain digits, and the strings read here (ids, times, event and command words) never contain
// an escape.
#pragma once

#include "wiredcap/journal/record.hpp"

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap::journal {

// Years of ramps fit in a few MiB; anything larger is not a journal the helper wrote.
inline constexpr std::size_t kMaxJournalBytes = 64 * 1024 * 1024;

// The journal file's text (a trusted read: owned by `owner`, not writable by others, at most
// kMaxJournalBytes); empty when there is no journal yet.
[[nodiscard]] Expected<std::string> read_journal(const std::string& path, uid_t owner);

// Whether `line` is a record of the schema this helper writes ({"v":1,...}).
[[nodiscard]] bool is_v1_record(std::string_view line);

// Calls `f` with each record of journal text, in file order. A torn last line (no newline) is
// not a record, nor is a line of another schema.
template <class F>
void for_each_record(std::string_view text, F&& f) {
    for (auto nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n')) {
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (is_v1_record(line)) f(line);
    }
}

// The digits after `"key":` in `line`, as a number.
[[nodiscard]] std::optional<std::uint64_t> number_after(std::string_view line, std::string_view key);

// The string after `"key":"` in `line`; empty when absent.
[[nodiscard]] std::string_view string_after(std::string_view line, std::string_view key);

// The run id of a record ([A-Za-z0-9-]{1,64}); empty when it has none.
[[nodiscard]] std::string_view run_of(std::string_view line);

// The record's fields as the classifier takes them (wiredcap/journal/record.hpp), views into
// `line`. A record without its uid counts as no one's (never root's). A line cut short by a
// crash, then closed by a later append (no closing brace), is none: the CLI's reader skips it
// too, so both feed the classifier the same records (ramp.ReadersAgree).
[[nodiscard]] std::optional<EntryView> record_of(std::string_view line);

}  // namespace wiredcap::journal
