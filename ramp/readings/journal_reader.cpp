// Reads the helper's journal. The journal is the ramp's memory across a hang, so a damaged
// line must not hide the lines around it: each line stands alone, a bad one is skipped with
// a warning, and only a torn last line (a crash mid-write) is dropped without complaint.
#include "readings/journal_reader.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "readings/journal_fast_line.hpp"
#include "readings/json_value.hpp"
#include "wiredcap/unique_fd.hpp"

namespace wiredcap::journal_view {
namespace {

// A journal grows by a few hundred bytes per change; 64 MiB is decades of use. Anything
// larger is not a journal this program should load into memory.
constexpr std::size_t kMaxJournalBytes = std::size_t{64} << 20;

// The schema this reader understands (helper/journal/journal.hpp: kSchemaVersion).
constexpr std::uint64_t kSchemaVersion = 1;

std::string at_line(std::size_t line, const std::string& why) { return "line " + std::to_string(line) + ": " + why; }

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
    if (*v != kSchemaVersion) return Error{"schema version " + std::to_string(*v) + " is not supported (only 1)"};
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
    for (auto [key, field] : {std::pair{"from_mib", &e.from}, std::pair{"to_mib", &e.to},
                              std::pair{"readback_mib", &e.readback}, std::pair{"effective_mib", &e.effective}}) {
        auto m = optional_mib(o, key);
        if (!m) return m.error();
        *field = *m;
    }
    auto reason = optional_string(o, "reason");
    if (!reason) return reason.error();
    e.reason = reason->value_or("");
    for (auto [key, field] : {std::pair{"by", &e.by}, std::pair{"effective_source", &e.effective_source}}) {
        auto text = optional_string(o, key);
        if (!text) return text.error();
        *field = text->value_or("");
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

// One line of the file (without its newline) and whether a newline ended it.
struct Line {
    std::string_view text;
    bool terminated = false;
};

std::vector<Line> split_lines(std::string_view text) {
    std::vector<Line> lines;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        if (nl == std::string_view::npos) {
            lines.push_back(Line{text.substr(start), false});
            break;
        }
        lines.push_back(Line{text.substr(start, nl - start), true});
        start = nl + 1;
    }
    return lines;
}

void read_line(const Line& l, std::size_t number, bool last, Contents& out) {
    // The helper's own lines, read without the full parser; anything else goes through it.
    if (auto plain = read_plain_record(l.text, number)) {
        out.entries.push_back(std::move(*plain));
        return;
    }
    auto value = json::parse(l.text);
    if (!value) {
        // The helper writes each record with one write(2); a crash can cut the last one short.
        // Such a line is expected and carries nothing: drop it, but say that it was there.
        if (last && !l.terminated) {
            out.torn_tail = true;
            return;
        }
        out.warnings.push_back(at_line(number, "skipped: " + value.error().message));
        return;
    }
    auto entry = to_entry(*value, number);
    if (!entry) {
        out.warnings.push_back(at_line(number, "skipped: " + entry.error().message));
        return;
    }
    out.entries.push_back(std::move(*entry));
}

std::string errno_text(int err) { return std::strerror(err); }

Error too_large(const std::string& path) {
    return Error{"the journal " + path + " is larger than " + std::to_string(kMaxJournalBytes >> 20) +
                 " MiB; refusing to read it (archive it and start a new one)"};
}

// Reads all of `fd` (a regular file), refusing more than kMaxJournalBytes. The size is
// checked while reading too, as the helper may append in the meantime.
Expected<std::string> read_all(int fd, const std::string& path) {
    std::string data;
    char buf[65536];
    for (;;) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{"cannot read the journal " + path + ": " + errno_text(errno)};
        if (n == 0) return data;
        data.append(buf, static_cast<std::size_t>(n));
        if (data.size() > kMaxJournalBytes) return too_large(path);
    }
}

// Checks the opened descriptor, not the path: what was opened is what is read.
Expected<Ok> check_opened(int fd, const std::string& path) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{"cannot examine the journal " + path + ": " + errno_text(errno)};
    if (!S_ISREG(st.st_mode)) return Error{"the journal " + path + " is not a regular file; refusing it"};
    if (static_cast<std::uint64_t>(st.st_size) > kMaxJournalBytes) return too_large(path);
    return Ok{};
}

}  // namespace

Expected<Entry> parse_record(std::string_view line, std::size_t number) {
    auto value = json::parse(line);
    if (!value) return value.error();
    return to_entry(*value, number);
}

Contents parse_journal(std::string_view text) {
    Contents out;
    const auto lines = split_lines(text);
    out.entries.reserve(lines.size());
    for (std::size_t i = 0; i < lines.size(); ++i) read_line(lines[i], i + 1, i + 1 == lines.size(), out);
    return out;
}

Expected<Contents> read_journal(const std::string& path) {
    // O_NONBLOCK: opening a FIFO planted at the path must not wait for a writer. O_NOFOLLOW:
    // the journal is read where it is, not wherever a link points.
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY));
    if (!fd.valid()) {
        const int err = errno;
        if (err == ENOENT) return Contents{};  // no journal yet: nothing has ever been changed
        if (err == ELOOP) return Error{"the journal " + path + " is a symbolic link; refusing it"};
        return Error{"cannot open the journal " + path + ": " + errno_text(err)};
    }
    if (auto ok = check_opened(fd.get(), path); !ok) return ok.error();
    auto text = read_all(fd.get(), path);
    if (!text) return text.error();
    return parse_journal(*text);
}

}  // namespace wiredcap::journal_view
