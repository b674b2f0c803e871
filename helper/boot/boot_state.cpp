#include "wiredcap/helper/boot/boot_state.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/helper/journal/owned_by_root.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/durable_write.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::boot {
namespace {

constexpr std::string_view kHeader = "# wiredcap boot state: written by wiredcap-helper; do not edit (see wiredcap-helper(8))";
// Every key, in file order.
constexpr std::array<std::string_view, 11> kKeys{"value_mib",  "basis",      "persisted_time",   "guard",
                                                 "guard_boot", "guard_time", "applied_uptime_s", "reason",
                                                 "start_mib",  "start_source", "start_said"};
// Where older files end: before start_mib (written before the start_ lines existed) and before
// start_said (before docs/design.md §8).
constexpr std::array<std::size_t, 2> kOlderEnds{8, 10};
constexpr std::array<std::string_view, 5> kGuardNames{"armed", "trying", "healthy", "tripped", "failed"};  // Guard's order; not a journal word: boot.state's guard
constexpr std::size_t kMaxStateBytes = 4096;

// "-" stands for an empty text (guard_boot, reason).
std::string or_dash(const std::string& s) { return s.empty() ? "-" : s; }
std::string from_dash(std::string_view s) { return s == "-" ? "" : std::string(s); }

std::optional<std::int64_t> whole_number(std::string_view s) {
    std::int64_t n = 0;
    if (s.empty() || (s.size() > 1 && s[0] == '0') || s[0] == '-' || s[0] == '+') return std::nullopt;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return n;
}

// A count of MiB above zero, as value_mib and start_mib hold.
std::optional<units::MiB> positive_mib(std::string_view s) {
    const auto count = whole_number(s);
    return count && *count > 0 ? units::MiB::from_count(static_cast<std::uint64_t>(*count)) : std::nullopt;
}

bool printable(std::string_view s) {
    for (const char c : s)
        if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) return false;
    return true;
}

// The values of kKeys in order (empty for keys past where an older file ends), or why the text
// is not exactly the format above.
Expected<std::array<std::string_view, kKeys.size()>> split_lines(std::string_view text) {
    std::array<std::string_view, kKeys.size()> values{};
    auto next_line = [&text]() -> std::optional<std::string_view> {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) return std::nullopt;
        const auto line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        return line;
    };
    if (next_line() != kHeader) return Error{"first line is not the boot state header"};
    for (std::size_t i = 0; i < kKeys.size(); ++i) {
        if (text.empty() && std::find(kOlderEnds.begin(), kOlderEnds.end(), i) != kOlderEnds.end()) return values;
        const auto line = next_line();
        const std::string prefix = std::string(kKeys[i]) + "=";
        if (!line || line->substr(0, prefix.size()) != prefix)
            return Error{"line " + std::to_string(i + 2) + " is not '" + prefix + "...'"};
        values[i] = line->substr(prefix.size());
        if (values[i].empty() || !printable(values[i])) return Error{"bad value for " + std::string(kKeys[i])};
    }
    if (!text.empty()) return Error{"text after the last key"};
    return values;
}

// "given by uid N": the caller's --effective, a claim (docs/design.md §8); the bare words are from
// files written before, which stored the caller's word as the source.
bool known_start_source(std::string_view s) {
    constexpr std::string_view kGiven = "given by uid ";
    if (s.substr(0, kGiven.size()) == kGiven) return whole_number(s.substr(kGiven.size())).has_value();
    return s == "metal" || s == "simulated-metal" || s == "given";
}

}  // namespace

std::string_view guard_name(Guard g) {
    const auto i = static_cast<std::size_t>(g);
    return i < kGuardNames.size() ? kGuardNames[i] : "unknown";
}

std::string serialize(const State& s) {
    const std::array<std::string, kKeys.size()> values{
        std::to_string(s.value.count()), s.confirmed ? journal::basis::confirmed : journal::basis::unconfirmed, std::to_string(s.persisted_time),
        std::string(guard_name(s.guard)), or_dash(s.guard_boot), std::to_string(s.guard_time),
        s.applied_uptime_s ? std::to_string(*s.applied_uptime_s) : "-", or_dash(s.reason),
        s.start ? std::to_string(s.start->count()) : "", s.start_source, s.start_said};
    // The start_ lines only with a start; start_said only when the caller named a source.
    const std::size_t keys = !s.start ? kOlderEnds[0] : s.start_said.empty() ? kOlderEnds[1] : kKeys.size();
    std::string t = std::string(kHeader) + "\n";
    for (std::size_t i = 0; i < keys; ++i) t += std::string(kKeys[i]) + "=" + values[i] + "\n";
    return t;
}

Expected<State> parse(std::string_view text) {
    auto v = split_lines(text);
    if (!v) return Error{"boot state: " + v.error().message};
    const auto& [value, basis, persisted, guard, guard_boot, guard_time, applied, reason, start_mib, start_source,
                 start_said] = *v;
    State s;
    const auto mib = positive_mib(value);
    const auto t0 = whole_number(persisted), t1 = whole_number(guard_time);
    if (!mib) return Error{"boot state: bad value_mib"};
    s.value = *mib;
    if (basis != journal::basis::confirmed && basis != journal::basis::unconfirmed) return Error{"boot state: bad basis"};
    s.confirmed = basis == journal::basis::confirmed;
    if (!t0 || !t1) return Error{"boot state: bad time"};
    s.persisted_time = *t0;
    s.guard_time = *t1;
    const auto g = std::find(kGuardNames.begin(), kGuardNames.end(), guard);
    if (g == kGuardNames.end()) return Error{"boot state: bad guard"};
    s.guard = static_cast<Guard>(g - kGuardNames.begin());
    s.guard_boot = from_dash(guard_boot);
    if (s.guard != Guard::armed && s.guard_boot.empty()) return Error{"boot state: guard " + std::string(guard) + " needs its boot"};
    if (applied != "-") {
        s.applied_uptime_s = whole_number(applied);
        if (!s.applied_uptime_s) return Error{"boot state: bad applied_uptime_s"};
    }
    s.reason = from_dash(reason);
    if (!start_mib.empty()) {
        s.start = positive_mib(start_mib);
        if (!s.start) return Error{"boot state: bad start_mib"};
        if (!known_start_source(start_source)) return Error{"boot state: bad start_source"};
        s.start_source = std::string(start_source);
        s.start_said = std::string(start_said);
    }
    return s;
}

Expected<std::optional<State>> read(const std::string& path, uid_t owner) {
    auto text = trusted::read_file(path, owner, kMaxStateBytes);
    if (!text) return text.error();
    if (!text->has_value()) return std::optional<State>{};
    auto s = parse(**text);
    if (!s) return Error{path + ": " + s.error().message};
    return std::optional<State>{std::move(*s)};
}

Expected<Store> Store::open(const std::string& path, uid_t owner) {
    auto split = trusted::split_path(path);
    if (!split) return split.error();
    auto dir = trusted::open_dir(split->dir, owner);
    if (!dir) return Error{"boot state: " + dir.error().message};
    if (!dir->has_value()) return Error{"boot state directory " + split->dir + " does not exist"};
    return Store(std::move(**dir), path, split->name, owner);
}

Expected<std::optional<State>> Store::load() const { return read(path_, owner_); }

Expected<Ok> Store::save(const State& s) const {
    const std::string tmp = name_ + ".new";
    UniqueFd fd(::openat(dir_.get(), tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!fd.valid()) return Error{"cannot write " + path_ + ".new: " + std::strerror(errno)};
    if (auto own = journal::own_by_root(fd.get(), path_ + ".new"); !own) return own;
    if (auto w = write_all(fd.get(), serialize(s), path_ + ".new"); !w) return w;
    if (auto f = flush_to_disk(fd.get(), path_ + ".new"); !f) return f;
    if (::renameat(dir_.get(), tmp.c_str(), dir_.get(), name_.c_str()) != 0)
        return Error{"cannot replace " + path_ + ": " + std::strerror(errno)};
    return flush_to_disk(dir_.get(), path_);  // the rename itself must survive a power cut
}

Expected<bool> Store::remove() const {
    if (::unlinkat(dir_.get(), name_.c_str(), 0) != 0) {
        if (errno == ENOENT) return false;
        return Error{"cannot remove " + path_ + ": " + std::strerror(errno)};
    }
    if (auto f = flush_to_disk(dir_.get(), path_); !f) return f.error();
    return true;
}

bool Store::present() const {
    struct stat st {};
    return ::fstatat(dir_.get(), name_.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0 || errno != ENOENT;
}

}  // namespace wiredcap::boot
