#include "wiredcap/cli/commands/journal_metrics.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <ctime>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {
namespace {

std::optional<int> digits(std::string_view s, std::size_t at, std::size_t n) {
    int v = 0;
    const char* first = s.data() + at;
    const auto [end, ec] = std::from_chars(first, first + n, v);
    if (ec != std::errc() || end != first + n) return std::nullopt;
    return v;
}

// The time of a step reference, when it is one the journal's format allows.
void timestamp(Exposition& e, std::string_view name, std::string_view help,
               const std::optional<recovery::StepRef>& r) {
    e.one(name, help, r ? unix_seconds(r->time) : std::nullopt);
}

}  // namespace

std::optional<std::uint64_t> unix_seconds(std::string_view t) {
    if (t.size() != 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' ||
        t[16] != ':' || t[19] != 'Z')
        return std::nullopt;
    const auto y = digits(t, 0, 4), mo = digits(t, 5, 2), d = digits(t, 8, 2);
    const auto h = digits(t, 11, 2), mi = digits(t, 14, 2), s = digits(t, 17, 2);
    if (!y || !mo || !d || !h || !mi || !s || *mo < 1 || *mo > 12 || *d < 1 || *d > 31 || *h > 23 ||
        *mi > 59 || *s > 60)
        return std::nullopt;
    struct tm tm {};
    tm.tm_year = *y - 1900;
    tm.tm_mon = *mo - 1;
    tm.tm_mday = *d;
    tm.tm_hour = *h;
    tm.tm_min = *mi;
    tm.tm_sec = *s;
    const std::time_t v = ::timegm(&tm);  // UTC: no TZ lookup
    if (v < 0) return std::nullopt;
    return static_cast<std::uint64_t>(v);
}

std::optional<std::uint64_t> journal_bytes(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0)
        return errno == ENOENT ? std::optional<std::uint64_t>(0) : std::nullopt;
    if (!S_ISREG(st.st_mode)) return std::nullopt;
    return static_cast<std::uint64_t>(st.st_size);
}

void journal_metrics(Exposition& e, const recovery::Report* report,
                     const std::optional<std::uint64_t>& bytes) {
    e.one("wiredcap_journal_bytes", "The journal file's size; 0 when there is none yet.", bytes);
    if (report == nullptr) return;
    const recovery::Report& j = *report;
    if (j.hang_ceiling)
        e.bytes("wiredcap_hang_ceiling_bytes",
                "The lowest value that hung this machine (the journal), if any.",
                units::Bytes(j.hang_ceiling->value));
    // A gauge, not a counter: a person's forget-hang keeps a hang in the count, but nothing
    // promises the count never falls (a compaction), and a counter that fell would read as new hangs.
    e.one("wiredcap_hangs",
          "Hangs the journal records, forgotten ones included (the ceiling is only the lowest).",
          j.hangs.size());
    if (!j.hangs.empty()) {
        timestamp(e, "wiredcap_last_hang_timestamp_seconds",
                  "When the latest hang the journal records happened.", j.hangs.back());
        e.bytes("wiredcap_last_hang_bytes", "The value of the latest hang the journal records.",
                units::Bytes(j.hangs.back().value));
    }
    timestamp(e, "wiredcap_last_confirmed_timestamp_seconds",
              "When the last change a person or the ramp's check confirmed was confirmed.",
              j.last_confirmed);
    e.one("wiredcap_journal_unresolved_runs",
          "Ramp runs the journal leaves unresolved (wiredcap recover settles them).",
          j.unresolved.size());
    e.one("wiredcap_journal_suspects",
          "Writes outside a ramp in force when their boot ended, that no person answered.",
          j.suspects.size());
}

}  // namespace wiredcap::cli
