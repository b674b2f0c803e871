#include "wiredcap/simulator/sim_state.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <chrono>
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "wiredcap/unique_fd.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::kernel::sim {
namespace {

namespace fs = std::filesystem;
using units::Bytes;
using units::MiB;
using units::quote_input;

// ---------------------------------------------------------------------------------------------
// Values. Each reader returns the problem with the text, or nullopt when it was stored.

using Problem = std::optional<std::string>;

constexpr std::string_view kAbsent = "absent";

// Canonical decimal only: digits, no sign, no leading zero, no spaces. Our own writer never
// produces anything else, so anything else is damage or a hand edit gone wrong.
std::optional<std::uint64_t> parse_u64(std::string_view s) {
    if (s.empty() || (s.size() > 1 && s[0] == '0')) return std::nullopt;
    for (char c : s)
        if (c < '0' || c > '9') return std::nullopt;
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
    return v;
}

std::optional<std::int64_t> parse_i64(std::string_view s) {
    const bool negative = !s.empty() && s[0] == '-';
    const auto magnitude = parse_u64(negative ? s.substr(1) : s);
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
    if (!magnitude) return std::nullopt;
    if (!negative) {
        if (*magnitude > kMax) return std::nullopt;
        return static_cast<std::int64_t>(*magnitude);
    }
    if (*magnitude == 0 || *magnitude > kMax + 1) return std::nullopt;  // "-0" is not canonical
    return -static_cast<std::int64_t>(*magnitude - 1) - 1;  // reaches INT64_MIN without overflow
}

std::string not_a_count(std::string_view v) {
    return quote_input(v) + " is not a whole number (decimal digits, no sign, no leading zero)";
}

Problem read_value(std::uint64_t& out, std::string_view v) {
    const auto n = parse_u64(v);
    if (!n) return not_a_count(v);
    out = *n;
    return std::nullopt;
}

Problem read_value(std::int64_t& out, std::string_view v) {
    const auto n = parse_i64(v);
    if (!n) return quote_input(v) + " is not a signed whole number (e.g. 0, 512, -512)";
    out = *n;
    return std::nullopt;
}

template <class Q>
Problem read_value(units::Quantity<Q>& out, std::string_view v) {
    std::uint64_t n = 0;
    if (auto p = read_value(n, v)) return p;
    const auto q = units::Quantity<Q>::from_count(n);
    if (!q) return quote_input(v) + " is too large: its size in bytes does not fit in 64 bits";
    out = *q;
    return std::nullopt;
}

Problem read_value(bool& out, std::string_view v) {
    if (v != "0" && v != "1") return quote_input(v) + " is not 0 or 1";
    out = v == "1";
    return std::nullopt;
}

Problem read_value(std::optional<std::uint64_t>& out, std::string_view v) {
    if (v == kAbsent) {
        out.reset();
        return std::nullopt;
    }
    std::uint64_t n = 0;
    if (read_value(n, v)) return quote_input(v) + " is neither a whole number nor 'absent'";
    out = n;
    return std::nullopt;
}

Problem read_value(std::vector<MiB>& out, std::string_view v) {
    out.clear();
    while (!v.empty()) {
        const auto comma = v.find(',');
        const auto item = v.substr(0, comma);
        MiB value = MiB::zero();
        if (auto p = read_value(value, item))
            return "entry " + std::to_string(out.size() + 1) + ": " + *p;
        if (out.size() == kHistoryCap)
            return "more than " + std::to_string(kHistoryCap) + " entries";
        out.push_back(value);
        if (comma == std::string_view::npos) break;
        v.remove_prefix(comma + 1);
        if (v.empty()) return "ends with a comma";
    }
    return std::nullopt;
}

Problem read_profile(std::string& out, std::string_view v) {
    if (find_profile(v) == nullptr)
        return "unknown profile " + quote_input(v) + " (known: " + profile_names() + ")";
    out = v;
    return std::nullopt;
}

Problem read_launchd(std::string& out, std::string_view v) {
    if (v != "none" && v != "loaded" && v != "not-loaded" && v != "not-installed" &&
        v != "disabled")
        return quote_input(v) + " is not none, loaded, not-loaded, not-installed or disabled";
    out = v;
    return std::nullopt;
}

bool is_upper_hex(char c) { return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'F'); }

// kern.bootsessionuuid's shape: 8-4-4-4-12 upper-case hex digits.
bool is_boot_id(std::string_view v) {
    if (v.size() != 36) return false;
    for (std::size_t i = 0; i < v.size(); ++i) {
        const bool dash_here = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash_here ? v[i] != '-' : !is_upper_hex(v[i])) return false;
    }
    return true;
}

Problem read_boot_id(std::string& out, std::string_view v) {
    if (!is_boot_id(v))
        return quote_input(v) + " is not a boot id (8-4-4-4-12 upper-case hex digits)";
    out = v;
    return std::nullopt;
}

// A stall in milliseconds: a canonical count, 0 (none) up to kMaxStallMs.
Problem read_stall(std::uint64_t& out, std::string_view v) {
    std::uint64_t n = 0;
    if (auto p = read_value(n, v)) return p;
    if (n > kMaxStallMs)
        return quote_input(v) + " is more than " + std::to_string(kMaxStallMs) +
               " milliseconds (10 minutes)";
    out = n;
    return std::nullopt;
}

Problem read_width(unsigned& out, std::string_view v) {
    if (v != "4" && v != "8") return quote_input(v) + " is not 4 or 8 (bytes)";
    out = v == "4" ? 4U : 8U;
    return std::nullopt;
}

std::string write_value(std::uint64_t v) { return std::to_string(v); }
std::string write_value(std::int64_t v) { return std::to_string(v); }
std::string write_value(unsigned v) { return std::to_string(v); }
std::string write_value(bool v) { return v ? "1" : "0"; }
std::string write_value(const std::string& v) { return v; }
template <class Q>
std::string write_value(const units::Quantity<Q>& v) {
    return std::to_string(v.count());
}
std::string write_value(const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : std::string(kAbsent);
}
std::string write_value(const std::vector<MiB>& v) {
    std::string out;
    for (const auto& m : v) out += (out.empty() ? "" : ",") + std::to_string(m.count());
    return out;
}

// ---------------------------------------------------------------------------------------------
// The fields: one table drives parsing, the duplicate and missing-key checks, and writing, so
// the three cannot disagree about the keys or their order.

struct Field {
    std::string_view key;
    Problem (*read)(SimState&, std::string_view);
    std::string (*write)(const SimState&);
};

#define WIREDCAP_FIELD(KEY, MEMBER, READER)                                       \
    Field {                                                                       \
        KEY, [](SimState& s, std::string_view v) { return READER(s.MEMBER, v); }, \
            [](const SimState& s) { return write_value(s.MEMBER); }               \
    }

constexpr std::array kFields{
    WIREDCAP_FIELD("profile", profile, read_profile),
    WIREDCAP_FIELD("memsize_bytes", memsize, read_value),
    WIREDCAP_FIELD("default_cap_mib", default_cap, read_value),
    WIREDCAP_FIELD("wired_limit_mb_present", wired_limit_mb_present, read_value),
    WIREDCAP_FIELD("knob_mib", knob, read_value),
    WIREDCAP_FIELD("value_width", value_width, read_width),
    WIREDCAP_FIELD("boot_id", boot_id, read_boot_id),
    WIREDCAP_FIELD("boot_count", boot_count, read_value),
    WIREDCAP_FIELD("boot_time", boot_time, read_value),
    WIREDCAP_FIELD("uptime_advanced_s", uptime_advanced_s, read_value),
    WIREDCAP_FIELD("hang_above_mib", hang_above, read_value),
    WIREDCAP_FIELD("hung", hung, read_value),  // not a journal word: the simulator's state
    WIREDCAP_FIELD("fault_write_refused", fault_write_refused, read_value),
    WIREDCAP_FIELD("fault_readback_offset_mib", fault_readback_offset_mib, read_value),
    WIREDCAP_FIELD("fault_key_missing", fault_key_missing, read_value),
    WIREDCAP_FIELD("fault_stall_write_ms", fault_stall_write_ms, read_stall),
    WIREDCAP_FIELD("fault_stall_after_write_ms", fault_stall_after_write_ms, read_stall),
    WIREDCAP_FIELD("wired_lwm_mb", related.wired_lwm_mb, read_value),
    WIREDCAP_FIELD("dynamic_lwm", related.dynamic_lwm, read_value),
    WIREDCAP_FIELD("disable_wired_collector", related.disable_wired_collector, read_value),
    WIREDCAP_FIELD("debug_wired_limit_bytes", related.debug_wired_limit_bytes, read_value),
    WIREDCAP_FIELD("writes", writes, read_value),
    WIREDCAP_FIELD("history", history, read_value),
    WIREDCAP_FIELD("clock_pinned", clock_pinned, read_value),
    WIREDCAP_FIELD("wired_bytes", wired, read_value),
    WIREDCAP_FIELD("launchd", launchd, read_launchd),
};
#undef WIREDCAP_FIELD

constexpr std::size_t kFieldCount = std::tuple_size_v<decltype(kFields)>;

std::optional<std::size_t> field_index(std::string_view key) {
    for (std::size_t i = 0; i < kFieldCount; ++i)
        if (kFields[i].key == key) return i;
    return std::nullopt;
}

Error line_error(std::size_t line, const std::string& what) {
    return Error{"line " + std::to_string(line) + ": " + what};
}

// What is true of a state beyond each value being well formed.
Problem consistency_problem(const SimState& s) {
    if (!fits_width(s.knob, s.value_width))
        return "knob_mib " + std::to_string(s.knob.count()) + " does not fit value_width " +
               std::to_string(s.value_width);
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// Files.

// State files are a few kilobytes; anything far larger is not one.
constexpr std::size_t kMaxFileSize = 64 * 1024;
// Each retry means another process replaced the file meanwhile, so progress is made; the
// bound only turns a pathological loop into an error.
constexpr int kMaxAttempts = 1000;

using Fd = UniqueFd;

Error sys_error(const std::string& what, const fs::path& path, int err) {
    return Error{what + " " + path.string() + ": " + std::generic_category().message(err)};
}

Expected<std::string> read_all(int fd, const fs::path& path) {
    std::string text;
    std::array<char, 4096> buf{};
    for (;;) {
        const ssize_t n = ::read(fd, buf.data(), buf.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sys_error("cannot read", path, errno);
        if (n == 0) return text;
        text.append(buf.data(), static_cast<std::size_t>(n));
        if (text.size() > kMaxFileSize)
            return Error{path.string() + ": larger than " + std::to_string(kMaxFileSize) +
                         " bytes: not a state file"};
    }
}

Expected<Ok> write_all(int fd, std::string_view text, const fs::path& path) {
    while (!text.empty()) {
        const ssize_t n = ::write(fd, text.data(), text.size());
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return sys_error("cannot write", path, errno);
        text.remove_prefix(static_cast<std::size_t>(n));
    }
    return Ok{};
}

fs::path directory_of(const fs::path& path) {
    return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// Best effort: the rename is atomic whether or not the directory entry reaches the disk now;
// syncing it only makes the new state survive a power cut, which a simulator can do without.
void sync_directory(const fs::path& path) {
    const Fd dir(::open(directory_of(path).c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    if (dir.valid()) ::fsync(dir.get());
}

// A complete file with `text`, mode 0644 whatever the umask, beside `path` (same directory, so
// same file system, so rename and link are atomic). Returns its name; removed again on failure.
Expected<std::string> write_temp_beside(const fs::path& path, std::string_view text) {
    std::string name =
        (directory_of(path) / ("." + path.filename().string() + ".tmp-XXXXXX")).string();
    const Fd fd(::mkostemp(name.data(), O_CLOEXEC));
    if (!fd.valid()) return sys_error("cannot create a temporary file beside", path, errno);
    auto fail = [&](Error e) {
        ::unlink(name.c_str());
        return e;
    };
    if (::fchmod(fd.get(), 0644) != 0) return fail(sys_error("cannot chmod", name, errno));
    if (auto w = write_all(fd.get(), text, name); !w) return fail(w.error());
    if (::fsync(fd.get()) != 0) return fail(sys_error("cannot fsync", name, errno));
    return name;
}

constexpr std::string_view kFileHeader =
    "# wiredcap simulated Mac: the state of one simulated machine.\n"
    "# Replaced atomically by every change; change it with wiredcap-sim, not an editor.\n";

std::string file_text(const SimState& state) {
    return std::string(kFileHeader) + serialize_state(state);
}

Expected<Ok> write_replacing(const fs::path& path, const SimState& state) {
    auto temp = write_temp_beside(path, file_text(state));
    if (!temp) return temp.error();
    if (::rename(temp->c_str(), path.c_str()) != 0) {
        const int err = errno;
        ::unlink(temp->c_str());
        return sys_error("cannot rename a new state over", path, err);
    }
    sync_directory(path);
    return Ok{};
}

// A fresh default machine at `path`, unless some other process created one first: link()
// refuses an existing name, so the file appears complete or not at all, never empty.
// A missing state directory (first use of the default /var/lib/wiredcap) is created too, one
// level only, like a new machine's disk: its parent must already exist.
Expected<Ok> create_fresh(const fs::path& path) {
    auto state = fresh_state(default_profile());
    if (!state) return state.error();
    if (::mkdir(directory_of(path).c_str(), 0755) != 0 && errno != EEXIST)
        return sys_error("cannot create the directory of", path, errno);
    auto temp = write_temp_beside(path, file_text(*state));
    if (!temp) return temp.error();
    const int rc = ::link(temp->c_str(), path.c_str());
    const int err = errno;
    ::unlink(temp->c_str());
    if (rc != 0 && err != EEXIST) return sys_error("cannot create", path, err);
    sync_directory(path);
    return Ok{};
}

// The state file, opened for reading, created first if missing. O_NOFOLLOW: a symbolic link
// planted at the path is refused, not followed; O_NONBLOCK: a FIFO there cannot block us.
Expected<Fd> open_state(const fs::path& path) {
    for (int attempt = 0; attempt < kMaxAttempts; ++attempt) {
        Fd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK));
        if (!fd.valid() && errno == ENOENT) {
            if (auto created = create_fresh(path); !created) return created.error();
            continue;
        }
        if (!fd.valid() && errno == ELOOP)
            return Error{path.string() + ": is a symbolic link; refusing to follow it"};
        if (!fd.valid()) return sys_error("cannot open", path, errno);
        struct stat st {};
        if (::fstat(fd.get(), &st) != 0) return sys_error("cannot stat", path, errno);
        if (!S_ISREG(st.st_mode)) return Error{path.string() + ": not a regular file"};
        return fd;
    }
    return Error{path.string() + ": keeps disappearing while being created"};
}

// The lock for updates of the state at `path`: a sidecar file `<path>.lock` that only its
// creator can open (0600) and that is never replaced. Not the state file itself: that is
// readable by everyone, so any user could open it and hold a lock on it, and a root helper
// would wait on them -- a real Mac's sysctl has no lock a user can take. The wait is bounded.
Expected<Fd> lock_state(const fs::path& path) {
    const fs::path lock = path.string() + ".lock";
    Fd fd(::open(lock.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK, 0600));
    if (!fd.valid()) return sys_error("cannot open", lock, errno);
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
        if (errno != EWOULDBLOCK && errno != EINTR) return sys_error("cannot lock", lock, errno);
        if (std::chrono::steady_clock::now() >= deadline)
            return Error{lock.string() + ": still locked after 5 s"};
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    return fd;
}

// An unreadable state names the file and the way out (a state file written by an older
// wiredcap lacks keys added since).
Error in_file(const fs::path& path, const Error& e) {
    return Error{path.string() + ": " + e.message +
                 "; to start a fresh simulated Mac: wiredcap-sim --state " + path.string() +
                 " init"};
}

}  // namespace

// ---------------------------------------------------------------------------------------------

bool fits_width(MiB value, unsigned width) noexcept {
    return width == 8 || value.count() <= std::numeric_limits<std::uint32_t>::max();
}

Expected<std::string> new_boot_id() {
    const fs::path source = "/dev/urandom";
    const Fd fd(::open(source.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return sys_error("cannot open", source, errno);
    std::array<unsigned char, 16> raw{};
    std::size_t got = 0;
    while (got < raw.size()) {
        const ssize_t n = ::read(fd.get(), raw.data() + got, raw.size() - got);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return sys_error("cannot read", source, n < 0 ? errno : EIO);
        got += static_cast<std::size_t>(n);
    }
    raw[6] = static_cast<unsigned char>((raw[6] & 0x0F) | 0x40);  // version 4: random
    raw[8] = static_cast<unsigned char>((raw[8] & 0x3F) | 0x80);  // RFC 4122 variant
    static constexpr char kHex[] = "0123456789ABCDEF";
    std::string id;
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (i == 4 || i == 6 || i == 8 || i == 10) id += '-';
        id += kHex[raw[i] >> 4];
        id += kHex[raw[i] & 0x0F];
    }
    return id;
}

std::int64_t unix_now() noexcept {
    using std::chrono::seconds;
    return std::chrono::duration_cast<seconds>(std::chrono::system_clock::now().time_since_epoch())
        .count();
}

Expected<std::chrono::seconds> uptime_at(const SimState& state, std::int64_t now_unix_s) {
    using Rep = std::chrono::seconds::rep;
    constexpr auto kMax = static_cast<std::uint64_t>(std::numeric_limits<Rep>::max());
    // now - boot_time in unsigned arithmetic: when now is later, the true difference lies in
    // 1 .. 2^64 - 1, which the modular subtraction gives exactly whatever the two signs are.
    // A pinned clock lets no real time pass: the uptime is what `advance` added, exactly.
    const bool time_passed = !state.clock_pinned && now_unix_s > state.boot_time;
    const std::uint64_t elapsed = time_passed ? static_cast<std::uint64_t>(now_unix_s) -
                                                    static_cast<std::uint64_t>(state.boot_time)
                                              : 0;
    if (elapsed > kMax || state.uptime_advanced_s > kMax - elapsed)
        return Error{"the uptime (" + std::to_string(elapsed) + " s since boot_time " +
                     std::to_string(state.boot_time) + ", plus uptime_advanced_s " +
                     std::to_string(state.uptime_advanced_s) + ") does not fit in 64-bit seconds"};
    return std::chrono::seconds{static_cast<Rep>(elapsed + state.uptime_advanced_s)};
}

units::Bytes idle_wired(units::Bytes memsize) noexcept {
    constexpr std::uint64_t kPage = 16384;
    return *units::Bytes::from_count(memsize.count() / 32 / kPage * kPage);
}

Expected<SimState> fresh_state(const Profile& profile) {
    auto boot_id = new_boot_id();
    if (!boot_id) return boot_id.error();
    SimState s;
    s.profile = profile.name;
    s.memsize = profile.memsize;
    s.default_cap = profile.default_cap;
    s.wired_limit_mb_present = profile.has_wired_limit_mb;
    s.boot_id = *boot_id;
    s.boot_time = unix_now();  // booted just now, nothing advanced yet
    s.uptime_advanced_s = 0;
    s.related = profile.related;
    s.fault_stall_write_ms = 0;  // a new machine answers at once
    s.fault_stall_after_write_ms = 0;
    s.wired = idle_wired(s.memsize);
    return s;
}

std::string serialize_state(const SimState& state) {
    std::string out;
    for (const auto& f : kFields) out += std::string(f.key) + "=" + f.write(state) + "\n";
    return out;
}

Expected<SimState> parse_state(std::string_view text) {
    if (text.empty()) return Error{"the file is empty (a torn or truncated state file)"};
    SimState s;
    std::array<std::size_t, kFieldCount> seen_on{};  // line of each key; 0 = not seen yet
    std::size_t line_no = 0;
    while (!text.empty()) {
        ++line_no;
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos)
            return line_error(line_no,
                              "no newline at the end: the file is torn (truncated while written)");
        const auto line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (line.empty() || line[0] == '#') continue;
        const auto eq = line.find('=');
        if (eq == std::string_view::npos)
            return line_error(line_no, "expected key=value, found " + quote_input(line));
        const auto key = line.substr(0, eq);
        const auto i = field_index(key);
        if (!i) return line_error(line_no, "unknown key " + quote_input(key));
        if (seen_on[*i] != 0)
            return line_error(line_no, "duplicate key " + quote_input(key) + " (first on line " +
                                           std::to_string(seen_on[*i]) + ")");
        seen_on[*i] = line_no;
        if (auto p = kFields[*i].read(s, line.substr(eq + 1)))
            return line_error(line_no, std::string(key) + ": " + *p);
    }
    for (std::size_t i = 0; i < kFieldCount; ++i)
        if (seen_on[i] == 0)
            return Error{"missing key '" + std::string(kFields[i].key) +
                         "' (a truncated file, or one an older wiredcap-sim wrote?)"};
    if (auto p = consistency_problem(s)) return Error{*p};
    return s;
}

Expected<SimState> load_state(const fs::path& path) {
    // No lock: the file is only ever replaced whole by rename, so whatever this open finds is a
    // complete state, the one before or the one after any concurrent update.
    auto fd = open_state(path);
    if (!fd) return fd.error();
    auto text = read_all(fd->get(), path);
    if (!text) return text.error();
    auto state = parse_state(*text);
    if (!state) return in_file(path, state.error());
    return state;
}

Expected<Ok> update_state(const fs::path& path, const std::function<bool(SimState&)>& change) {
    auto lock = lock_state(path);  // held until this function returns, after the rename
    if (!lock) return lock.error();
    auto fd = open_state(path);  // under the lock: the current state, not one renamed away
    if (!fd) return fd.error();
    auto text = read_all(fd->get(), path);
    if (!text) return text.error();
    auto parsed = parse_state(*text);
    if (!parsed) return in_file(path, parsed.error());
    SimState state = std::move(parsed).value();
    if (!change(state)) return Ok{};
    return write_replacing(path, state);
}

Expected<Ok> replace_state(const fs::path& path, const SimState& state) {
    auto fd = lock_state(path);
    if (!fd) return fd.error();
    return write_replacing(path, state);
}

}  // namespace wiredcap::kernel::sim
