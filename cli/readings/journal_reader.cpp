// Reads the helper's journal. The journal is the ramp's memory across a hang, so a damaged
// line must not hide the lines around it: each line stands alone, a bad one is skipped with
// a warning, and only a torn last line (a crash mid-write) is dropped without complaint.
#include "wiredcap/cli/readings/journal_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "wiredcap/cli/readings/journal_fast_line.hpp"
#include "wiredcap/cli/readings/json_value.hpp"
#include "wiredcap/unique_fd.hpp"

namespace wiredcap::journal_view {
namespace {

// A journal grows by a few hundred bytes per change; 64 MiB is decades of use. Anything
// larger is not a journal this program should load into memory.
constexpr std::size_t kMaxJournalBytes = std::size_t{64} << 20;

// The schema this reader understands (helper/include/wiredcap/helper/journal/journal.hpp: kSchemaVersion).
constexpr std::uint64_t kSchemaVersion = 1;

std::string at_line(std::size_t line, const std::string& why) {
    return "line " + std::to_string(line) + ": " + why;
}

// The field `key` as a string: absent (nullopt) is fine, any other type is an error.
Expected<std::optional<std::string>> optional_string(const json::Value& o, std::string_view key) {
    const json::Value* v = json::get(o, key);
    if (v == nullptr) return std::optional<std::string>();
    if (const std::string* s = json::as_string(*v)) return std::optional<std::string>(*s);
    return Error{"\"" + std::string(key) + "\" is not a string"};
}

Expected<std::optional<std::uint64_t>> optional_count(const json::Value& o, std::string_view key) {
    const json::Value* v = json::get(o, key);
    if (v == nullptr) return std::optional<std::uint64_t>();
    if (auto n = json::as_u64(*v)) return std::optional<std::uint64_t>(*n);
    return Error{"\"" + std::string(key) + "\" is not a non-negative whole number"};
}

// A size in MiB: a count that fits the type (MiB::from_count refuses what does not).
Expected<std::optional<units::MiB>> optional_mib(const json::Value& o, std::string_view key) {
    auto n = optional_count(o, key);
    if (!n) return n.error();
    if (!n->has_value()) return std::optional<units::MiB>();
    auto mib = units::MiB::from_count(**n);
    if (!mib) return Error{"\"" + std::string(key) + "\" is out of range for MiB"};
    return std::optional<units::MiB>(*mib);
}

Expected<std::string> required_string(const json::Value& o, std::string_view key) {
    auto s = optional_string(o, key);
    if (!s) return s.error();
    if (!s->has_value()) return Error{"\"" + std::string(key) + "\" is missing"};
    return **s;
}

Expected<std::uint64_t> required_count(const json::Value& o, std::string_view key) {
    auto n = optional_count(o, key);
    if (!n) return n.error();
    if (!n->has_value()) return Error{"\"" + std::string(key) + "\" is missing"};
    return **n;
}

// The identifying fields every record carries.
Expected<Ok> read_header(const json::Value& o, Entry& e) {
    auto v = required_count(o, "v");
    if (!v) return v.error();
    if (*v != kSchemaVersion)
        return Error{"schema version " + std::to_string(*v) + " is not supported (only 1)"};
    e.v = static_cast<int>(*v);
    for (auto [key, field] : {std::pair{"time", &e.time}, std::pair{"boot", &e.boot},
                              std::pair{"command", &e.command}, std::pair{"event", &e.event}}) {
        auto s = required_string(o, key);
        if (!s) return s.error();
        *field = std::move(*s);
    }
    auto uid = required_count(o, "uid");
    if (!uid) return uid.error();
    e.uid = *uid;
    return Ok{};
}

// The optional ramp and size fields. Absent stays absent: the helper never writes 0 for
// "unknown", and neither may a reader invent one.
Expected<Ok> read_details(const json::Value& o, Entry& e) {
    auto run = optional_string(o, "run");
    if (!run) return run.error();
    e.run = std::move(*run);
    auto step = optional_count(o, "step");
    if (!step) return step.error();
    e.step = *step;
    for (auto [key, field] :
         {std::pair{"from_mib", &e.from}, std::pair{"to_mib", &e.to},
          std::pair{"readback_mib", &e.readback}, std::pair{"effective_mib", &e.effective}}) {
        auto m = optional_mib(o, key);
        if (!m) return m.error();
        *field = *m;
    }
    for (auto [key, field] :
         {std::pair{"to_pages", &e.to_pages}, std::pair{"page_size", &e.page_size}}) {
        auto n = optional_count(o, key);
        if (!n) return n.error();
        *field = *n;
    }
    auto reason = optional_string(o, "reason");
    if (!reason) return reason.error();
    e.reason = reason->value_or("");
    for (auto [key, field] :
         {std::pair{"by", &e.by}, std::pair{"effective_source", &e.effective_source}}) {
        auto text = optional_string(o, key);
        if (!text) return text.error();
        *field = text->value_or("");
    }
    if (const json::Value* b = json::get(o, "ignore_hang_ceiling")) {
        const auto flag = json::as_bool(*b);
        if (!flag) return Error{"\"ignore_hang_ceiling\" is not true or false"};
        e.ignore_hang_ceiling = *flag;
    }
    return Ok{};
}

Expected<Entry> to_entry(const json::Value& o, std::size_t line) {
    if (!o.is_object()) return Error{"the record is not a JSON object"};
    Entry e;
    e.line = line;
    if (auto h = read_header(o, e); !h) return h.error();
    if (auto d = read_details(o, e); !d) return d.error();
    return e;
}

// Cuts text, fed in pieces as it is read, into lines, and reads each as it is complete: no copy
// of the file and no list of its lines is kept (a 1.5 MiB journal held whole, with an Entry per
// line, was most of `status`'s memory and time: bench/journal_scale.sh).
class LineFeed {
public:
    LineFeed(const RecordSink& sink, Notes& notes, std::size_t lines_before = 0)
        : sink_(sink), notes_(notes), lines_(lines_before) {}

    void feed(std::string_view piece) {
        for (;;) {
            // Most lines are the helper's: read where they lie, the reading finding their end.
            if (carry_.empty())
                if (const std::size_t n = read_helper_line(piece, lines_ + 1, entry_); n != 0) {
                    ++lines_;
                    sink_(entry_);
                    piece.remove_prefix(n + 1);
                    continue;
                }
            const auto nl = piece.find('\n');
            if (nl == std::string_view::npos) break;
            if (carry_.empty()) {
                read_line(piece.substr(0, nl), true);
            } else {
                carry_.append(piece.substr(0, nl));
                read_line(carry_, true);
                carry_.clear();
            }
            piece.remove_prefix(nl + 1);
        }
        carry_.append(piece);
    }

    // The end of the file: what is left is a last line without its newline.
    void finish() {
        if (!carry_.empty()) read_line(carry_, false);
        ended_whole_ = carry_.empty();
        carry_.clear();
    }

    [[nodiscard]] std::size_t lines() const { return lines_; }
    [[nodiscard]] bool ended_whole() const { return ended_whole_; }

private:
    void read_line(std::string_view text, bool terminated) {
        const std::size_t number = ++lines_;
        // The helper's own lines, read without the full parser; anything else goes through it.
        if (read_plain_record(text, number, entry_)) {
            sink_(entry_);
            return;
        }
        auto value = json::parse(text);
        if (!value) {
            // The helper writes each record with one write(2); a crash can cut the last one
            // short. Such a line is expected and carries nothing: drop it, but say that it was
            // there. Only the last line can lack its newline.
            if (!terminated) {
                notes_.torn_tail = true;
                return;
            }
            notes_.warnings.push_back(at_line(number, "skipped: " + value.error().message));
            return;
        }
        auto entry = to_entry(*value, number);
        if (!entry) {
            notes_.warnings.push_back(at_line(number, "skipped: " + entry.error().message));
            return;
        }
        sink_(view_of(*entry));
    }

    const RecordSink& sink_;
    Notes& notes_;
    std::string carry_;  // the start of a line whose end is in the next piece
    std::size_t lines_ = 0;
    bool ended_whole_ = true;  // the text read ended with a newline (or was empty)
    EntryView entry_;          // reused line after line
};

std::string errno_text(int err) { return std::strerror(err); }

Error too_large(const std::string& path) {
    return Error{"the journal " + path + " is larger than " +
                 std::to_string(kMaxJournalBytes >> 20) +
                 " MiB; refusing to read it (archive it and start a new one)"};
}

// Feeds all of `fd` (a regular file) to `lines`, refusing more than kMaxJournalBytes. The size
// is checked while reading too, as the helper may append in the meantime.
Expected<std::uint64_t> read_all(int fd, const std::string& path, LineFeed& lines,
                                 std::uint64_t total = 0) {
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{"cannot read the journal " + path + ": " + errno_text(errno)};
        if (n == 0) break;
        total += static_cast<std::uint64_t>(n);
        if (total > kMaxJournalBytes) return too_large(path);
        lines.feed(std::string_view(buf, static_cast<std::size_t>(n)));
    }
    lines.finish();
    return total;
}

// Checks the opened descriptor, not the path: what was opened is what is read.
Expected<Ok> check_opened(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0)
        return Error{"cannot examine the journal " + path + ": " + errno_text(errno)};
    if (!S_ISREG(st.st_mode))
        return Error{"the journal " + path + " is not a regular file; refusing it"};
    if (static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes) return too_large(path);
    return Ok{};
}

}  // namespace

Expected<Entry> parse_record(std::string_view line, std::size_t number) {
    auto value = json::parse(line);
    if (!value) return value.error();
    return to_entry(*value, number);
}

Notes parse_journal(std::string_view text, const RecordSink& sink) {
    Notes notes;
    LineFeed lines(sink, notes);
    lines.feed(text);
    lines.finish();
    return notes;
}

Contents parse_journal(std::string_view text) {
    Contents out;
    out.entries.reserve(static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')) + 1);
    Notes notes =
        parse_journal(text, [&](const EntryView& e) { out.entries.push_back(to_entry(e)); });
    out.torn_tail = notes.torn_tail;
    out.warnings = std::move(notes.warnings);
    return out;
}

namespace {

// O_NONBLOCK: opening a FIFO planted at the path must not wait for a writer. O_NOFOLLOW: the
// journal is read where it is, not wherever a link points. An empty descriptor: no journal yet.
Expected<UniqueFd> open_journal(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (fd.valid()) return fd;
    const int err = errno;
    if (err == ENOENT) return UniqueFd();  // nothing has ever been changed
    if (err == ELOOP) return Error{"the journal " + path + " is a symbolic link; refusing it"};
    return Error{"cannot open the journal " + path + ": " + errno_text(err)};
}

Expected<Notes> read_from(int fd, const std::string& path, const RecordSink& sink,
                          const Position& start, Position* end) {
    Notes notes;
    LineFeed lines(sink, notes, start.lines);
    auto total = read_all(fd, path, lines, start.offset);
    if (!total) return total.error();
    if (end != nullptr) {
        struct stat st {};
        // Only a reading that ended on a newline can be taken up again where it stopped: a last
        // line without one was read (or dropped as torn) and is read again whole from the start.
        const bool whole = lines.ended_whole() && ::fstat(fd, &st) == 0;
        *end = whole ? Position{true, st.st_dev, st.st_ino, *total, lines.lines()} : Position{};
    }
    return notes;
}

}  // namespace

Expected<Notes> read_journal(const std::string& path, const RecordSink& sink, Position* end) {
    if (end != nullptr) *end = Position{};
    auto fd = open_journal(path);
    if (!fd) return fd.error();
    if (!fd->valid()) return Notes{};
    if (auto ok = check_opened(fd->get(), path); !ok) return ok.error();
    return read_from(fd->get(), path, sink, Position{}, end);
}

Expected<std::optional<Notes>> read_journal_after(const std::string& path, const Position& from,
                                                  const RecordSink& sink, Position* end) {
    if (end != nullptr) *end = Position{};
    if (!from.continuable) return std::optional<Notes>();
    auto fd = open_journal(path);
    if (!fd) return fd.error();
    if (!fd->valid()) return std::optional<Notes>();  // gone: whatever it is now, read it whole
    if (auto ok = check_opened(fd->get(), path); !ok) return ok.error();
    // The same file, not shorter, and a newline where the reading stopped: only then were the
    // bytes before it left as they were (the helper only appends, and takes back only its own
    // unfinished append; wiredcap-system's compaction writes a new file and renames it).
    struct stat st {};
    char before = 0;
    if (::fstat(fd->get(), &st) != 0 || st.st_dev != from.dev || st.st_ino != from.ino ||
        static_cast<std::uint64_t>(st.st_size) < from.offset)
        return std::optional<Notes>();
    if (from.offset > 0 && ::pread(fd->get(), &before, 1, static_cast<off_t>(from.offset - 1)) != 1)
        return std::optional<Notes>();
    if (from.offset > 0 && before != '\n') return std::optional<Notes>();
    if (::lseek(fd->get(), static_cast<off_t>(from.offset), SEEK_SET) < 0)
        return std::optional<Notes>();
    auto notes = read_from(fd->get(), path, sink, from, end);
    if (!notes) return notes.error();
    return std::optional<Notes>(std::move(*notes));
}

Expected<Contents> read_journal(const std::string& path) {
    Contents out;
    auto notes =
        read_journal(path, [&](const EntryView& e) { out.entries.push_back(to_entry(e)); });
    if (!notes) return notes.error();
    out.torn_tail = notes->torn_tail;
    out.warnings = std::move(notes->warnings);
    return out;
}

}  // namespace wiredcap::journal_view
