// wiredcap-sim: the developer's and the tests' hands on the simulated Mac.
//
// wiredcap and wiredcap-helper see the simulated machine only through the Kernel interface, as
// they would see a real Mac. This tool does what a real Mac does not let you do: make a new
// machine, reboot it, make it misbehave, and look at everything it recorded. It is not installed
// and never runs privileged.
//
// Plain argv parsing rather than CLI11: a negative read-back offset ("-512MiB") must be an
// argument, not an option.
#include <charconv>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <iostream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "wiredcap/simulator/default_state_path.hpp"
#include "wiredcap/simulator/sim_kernel.hpp"
#include "wiredcap/simulator/sim_profiles.hpp"
#include "wiredcap/simulator/sim_state.hpp"
#include "wiredcap/units/duration.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"

namespace {

namespace fs = std::filesystem;
namespace sim = wiredcap::kernel::sim;
using wiredcap::Error;
using wiredcap::Expected;
using wiredcap::Ok;
using wiredcap::kernel::SimKernel;
using wiredcap::units::MiB;

using Args = std::span<const std::string_view>;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

constexpr std::string_view kUsage = R"(usage: wiredcap-sim [--state FILE] COMMAND [ARGS]

Drives the simulated Mac that wiredcap uses where there is no real one. FILE defaults to the
state file wiredcap itself uses; a missing file is a fresh machine of the default profile.

Commands:
  init [--profile NAME]                 a new machine (default profile: m2ultra-192)
  reboot                                new boot id, knob back to 0, no longer hung, uptime
                                        from 0 again
  show [--json]                         the whole state, as key=value lines or one JSON object
  fault write-refused on|off            every write of the knob fails
  fault readback-offset [-]SIZE|off     reading the knob returns it plus SIZE (or minus)
  fault key-missing on|off              iogpu.wired_limit_mb behaves as if absent
  fault stall-write MS|off              each write sleeps MS milliseconds before the knob changes
  fault stall-after-write MS|off        each accepted write sleeps MS milliseconds after the knob
                                        changed, before it returns (the writer has not seen it yet)
  width 4|8                             byte width of the kernel's integer for the knob
  hang-above SIZE|off                   a write above SIZE hangs the machine until a reboot
  default-cap SIZE                      the OS default's cap (Metal's figure while the knob is 0)
  wired SIZE                            memory wired now (after a boot: RAM/32), e.g. stranded
                                        by a killed process
  history                               the values written, oldest first, one per line
  sysctl SIZE                           a write of the knob from outside wiredcap, as root's
                                        sysctl -w iogpu.wired_limit_mb=N: no journal record
  metal                                 what Metal's recommendedMaxWorkingSetSize would say
  advance DURATION                      let DURATION of awake time pass at once: the uptime
                                        grows by it (e.g. to test a boot guard's healthy_after)
  uptime                                seconds awake since the simulated boot, as the kernel
                                        backend reads it (real time passing plus any advance)
  clock pinned|host                     pinned: no real time passes, the uptime moves only by
                                        advance (for tests that compare whole outputs between
                                        runs); host: real time passes (a new machine's default)
  launchd none|loaded|not-loaded|not-installed|disabled
                                        what the simulated launchd says of org.wiredcap.boot:
                                        none (no launchd, a new machine's default), loaded,
                                        not loaded (its plist there), not installed (no plist,
                                        as after a Homebrew install), or loaded and switched off

SIZE always has a unit: B kB MB GB TB KiB MiB GiB TiB (e.g. 180GiB); a bare number is an error.
MS is a whole number of milliseconds, 1 to 600000, without a unit (e.g. 5000); 'off' ends a stall.
DURATION is digits and a unit, s or m (e.g. 90s, 10m), 1s to 24 hours; a bare number is an error.
Exit status: 0 done, 1 failed (the message says why), 2 usage error.
)";

int failed(const std::string& message) {
    std::cerr << "wiredcap-sim: " << message << "\n";
    return kExitFailed;
}

int usage_error(const std::string& message) {
    std::cerr << "wiredcap-sim: " << message << "\n(run 'wiredcap-sim --help' for usage)\n";
    return kExitUsage;
}

int finish(const Expected<Ok>& result) { return result ? kExitOk : failed(result.error().message); }

std::string profile_list() {
    constexpr std::size_t kColumn = 14;
    std::string out = "Profiles:\n";
    for (const auto& p : sim::all_profiles()) {
        const std::size_t pad = p.name.size() < kColumn ? kColumn - p.name.size() : 1;
        out +=
            "  " + std::string(p.name) + std::string(pad, ' ') + std::string(p.description) + "\n";
    }
    return out;
}

std::optional<bool> on_off(std::string_view word) {
    if (word == "on") return true;
    if (word == "off") return false;
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------
// JSON for `show --json`: the state file's keys, with numbers as numbers, 0/1 flags as booleans,
// an absent related key as null and the history as an array of MiB counts.

std::string json_string(std::string_view s) {
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "\"";
    for (char c : s) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            out += "\\u00";
            out += kHex[u >> 4];
            out += kHex[u & 0xF];
        } else {
            out += c;
        }
    }
    return out + "\"";
}

std::string json_value(bool v) { return v ? "true" : "false"; }
std::string json_value(std::uint64_t v) { return std::to_string(v); }
std::string json_value(std::int64_t v) { return std::to_string(v); }
std::string json_value(const std::optional<std::uint64_t>& v) {
    return v ? std::to_string(*v) : "null";
}

std::string json_history(const std::vector<MiB>& history) {
    std::string out = "[";
    for (std::size_t i = 0; i < history.size(); ++i)
        out += (i == 0 ? "" : ",") + std::to_string(history[i].count());
    return out + "]";
}

std::string state_json(const sim::SimState& s) {
    const std::vector<std::pair<std::string_view, std::string>> members{
        {"profile", json_string(s.profile)},
        {"memsize_bytes", json_value(s.memsize.count())},
        {"default_cap_mib", json_value(s.default_cap.count())},
        {"wired_limit_mb_present", json_value(s.wired_limit_mb_present)},
        {"knob_mib", json_value(s.knob.count())},
        {"value_width", json_value(std::uint64_t{s.value_width})},
        {"boot_id", json_string(s.boot_id)},
        {"boot_count", json_value(s.boot_count)},
        {"boot_time", json_value(s.boot_time)},
        {"uptime_advanced_s", json_value(s.uptime_advanced_s)},
        {"hang_above_mib", json_value(s.hang_above.count())},
        {"hung", json_value(s.hung)},
        {"fault_write_refused", json_value(s.fault_write_refused)},
        {"fault_readback_offset_mib", json_value(s.fault_readback_offset_mib)},
        {"fault_key_missing", json_value(s.fault_key_missing)},
        {"fault_stall_write_ms", json_value(s.fault_stall_write_ms)},
        {"fault_stall_after_write_ms", json_value(s.fault_stall_after_write_ms)},
        {"wired_lwm_mb", json_value(s.related.wired_lwm_mb)},
        {"dynamic_lwm", json_value(s.related.dynamic_lwm)},
        {"disable_wired_collector", json_value(s.related.disable_wired_collector)},
        {"debug_wired_limit_bytes", json_value(s.related.debug_wired_limit_bytes)},
        {"writes", json_value(s.writes)},
        {"history", json_history(s.history)},
        {"clock_pinned", json_value(s.clock_pinned)},
        {"launchd", json_string(s.launchd)},
    };
    std::string out = "{";
    for (std::size_t i = 0; i < members.size(); ++i)
        out += (i == 0 ? "" : ",") + json_string(members[i].first) + ":" + members[i].second;
    return out + "}";
}

// ---------------------------------------------------------------------------------------------
// Commands. Each gets the state file and the words after its name.

int cmd_init(const fs::path& state, Args args) {
    std::string_view profile = sim::kDefaultProfileName;
    if (args.size() == 2 && args[0] == "--profile") {
        profile = args[1];
    } else if (args.size() == 1 && args[0].starts_with("--profile=")) {
        profile = args[0].substr(std::string_view("--profile=").size());
    } else if (!args.empty()) {
        return usage_error("init takes only --profile NAME");
    }
    return finish(SimKernel::init(state, profile));
}

int cmd_reboot(const fs::path& state, Args args) {
    if (!args.empty()) return usage_error("reboot takes no arguments");
    return finish(SimKernel::reboot(state));
}

int cmd_show(const fs::path& state, Args args) {
    const bool json = args.size() == 1 && args[0] == "--json";
    if (!args.empty() && !json) return usage_error("show takes only --json");
    auto s = sim::load_state(state);
    if (!s) return failed(s.error().message);
    std::cout << (json ? state_json(*s) + "\n" : sim::serialize_state(*s));
    return kExitOk;
}

// "[-|+]SIZE" as a signed MiB count. The size parser takes no sign (a size never has one), so
// the direction is read here and only the magnitude goes to the parser.
Expected<std::int64_t> signed_mib(std::string_view text) {
    const bool negative = !text.empty() && text[0] == '-';
    if (!text.empty() && (text[0] == '-' || text[0] == '+')) text.remove_prefix(1);
    auto size = wiredcap::units::parse_size_as<MiB>(text);
    if (!size) return size.error();
    // A MiB count is below 2^44 (its bytes fit in 64 bits), so it fits an int64 either way.
    const auto magnitude = static_cast<std::int64_t>(size->count());
    return negative ? -magnitude : magnitude;
}

// MS for a stall: canonical decimal digits (no sign, no leading zero, no unit), 1 to
// kMaxStallMs. Zero is spelled 'off', so each setting has one spelling.
Expected<std::uint64_t> stall_ms(std::string_view text) {
    const auto bad = [&](const std::string& why) {
        return Error{wiredcap::units::quote_input(text) + " " + why};
    };
    if (text.empty()) return bad("is not a number of milliseconds");
    if (text == "0") return bad("is no stall: use off");
    if (text[0] == '0') return bad("has a leading zero");
    for (const char c : text)
        if (c < '0' || c > '9')
            return bad(
                "is not a whole number of milliseconds (digits only, no sign, no unit: e.g. 5000)");
    std::uint64_t ms = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), ms);
    if (ec != std::errc{} || end != text.data() + text.size() || ms > sim::kMaxStallMs)
        return bad("is more than " + std::to_string(sim::kMaxStallMs) +
                   " milliseconds (10 minutes)");
    return ms;
}

int cmd_stall(const fs::path& state, std::string_view what, std::string_view setting) {
    const bool before = what == "stall-write";
    std::uint64_t ms = 0;
    if (setting != "off") {
        auto parsed = stall_ms(setting);
        if (!parsed) return usage_error(std::string(what) + ": " + parsed.error().message);
        ms = *parsed;
    }
    return finish(before ? SimKernel::set_fault_stall_write(state, ms)
                         : SimKernel::set_fault_stall_after_write(state, ms));
}

int cmd_fault(const fs::path& state, Args args) {
    if (args.size() != 2) return usage_error("fault takes a fault name and a setting");
    const auto what = args[0];
    const auto setting = args[1];
    if (what == "readback-offset") {
        if (setting == "off") return finish(SimKernel::set_fault_readback_offset(state, 0));
        auto offset = signed_mib(setting);
        if (!offset) return usage_error("readback-offset: " + offset.error().message);
        return finish(SimKernel::set_fault_readback_offset(state, *offset));
    }
    if (what == "stall-write" || what == "stall-after-write")
        return cmd_stall(state, what, setting);
    if (what != "write-refused" && what != "key-missing")
        return usage_error(
            "unknown fault " + wiredcap::units::quote_input(what) +
            " (known: write-refused, readback-offset, key-missing, stall-write, stall-after-write)");
    const auto on = on_off(setting);
    if (!on)
        return usage_error(std::string(what) + ": expected on or off, not " +
                           wiredcap::units::quote_input(setting));
    return finish(what == "write-refused" ? SimKernel::set_fault_write_refused(state, *on)
                                          : SimKernel::set_fault_key_missing(state, *on));
}

int cmd_width(const fs::path& state, Args args) {
    if (args.size() != 1 || (args[0] != "4" && args[0] != "8"))
        return usage_error("width takes 4 or 8 (bytes)");
    return finish(SimKernel::set_value_width(state, args[0] == "4" ? 4U : 8U));
}

int cmd_hang_above(const fs::path& state, Args args) {
    if (args.size() != 1) return usage_error("hang-above takes a size or off");
    if (args[0] == "off") return finish(SimKernel::set_hang_above(state, MiB::zero()));
    auto size = wiredcap::units::parse_size_as<MiB>(args[0]);
    if (!size) return usage_error("hang-above: " + size.error().message);
    return finish(SimKernel::set_hang_above(state, *size));
}

int cmd_default_cap(const fs::path& state, Args args) {
    if (args.size() != 1) return usage_error("default-cap takes a size");
    auto size = wiredcap::units::parse_size_as<MiB>(args[0]);
    if (!size) return usage_error("default-cap: " + size.error().message);
    return finish(SimKernel::set_default_cap(state, *size));
}

int cmd_wired(const fs::path& state, Args args) {
    if (args.size() != 1) return usage_error("wired takes a size");
    auto size = wiredcap::units::parse_size_as<wiredcap::units::Bytes>(args[0]);
    if (!size) return usage_error("wired: " + size.error().message);
    return finish(SimKernel::set_wired(state, *size));
}

int cmd_history(const fs::path& state, Args args) {
    if (!args.empty()) return usage_error("history takes no arguments");
    auto s = sim::load_state(state);
    if (!s) return failed(s.error().message);
    for (const auto& v : s->history) std::cout << wiredcap::units::to_string(v) << "\n";
    return kExitOk;
}

int cmd_sysctl(const fs::path& state, Args args) {
    if (args.size() != 1) return usage_error("sysctl takes a size");
    auto size = wiredcap::units::parse_size_as<MiB>(args[0]);
    if (!size) return usage_error("sysctl: " + size.error().message);
    SimKernel kernel(state);
    auto written = kernel.write_wired_limit(*size);
    if (!written) return failed(written.error().message);
    return kExitOk;
}

int cmd_metal(const fs::path& state, Args args) {
    if (!args.empty()) return usage_error("metal takes no arguments");
    SimKernel kernel(state);
    auto working_set = kernel.simulated_metal_working_set();
    if (!working_set) return failed(working_set.error().message);
    std::cout << wiredcap::units::to_string(*working_set) << "\n";
    return kExitOk;
}

int cmd_advance(const fs::path& state, Args args) {
    if (args.size() != 1) return usage_error("advance takes a duration (e.g. 10m)");
    auto by = wiredcap::units::parse_duration(args[0]);
    if (!by) return usage_error("advance: " + by.error().message);
    return finish(SimKernel::advance_uptime(state, *by));
}

// Read through the Kernel interface, as the helper reads it: a hung machine answers nothing.
int cmd_uptime(const fs::path& state, Args args) {
    if (!args.empty()) return usage_error("uptime takes no arguments");
    SimKernel kernel(state);
    auto uptime = kernel.read_uptime();
    if (!uptime) return failed(uptime.error().message);
    std::cout << uptime->count() << "\n";
    return kExitOk;
}

int cmd_clock(const fs::path& state, Args args) {
    if (args.size() != 1 || (args[0] != "pinned" && args[0] != "host"))
        return usage_error("clock takes pinned or host");
    return finish(SimKernel::set_clock_pinned(state, args[0] == "pinned"));
}

int cmd_launchd(const fs::path& state, Args args) {
    if (args.size() != 1)
        return usage_error("launchd takes none, loaded, not-loaded, not-installed or disabled");
    return finish(SimKernel::set_launchd(state, args[0]));
}

struct Command {
    std::string_view name;
    int (*run)(const fs::path&, Args);
};

constexpr Command kCommands[] = {
    {"init", cmd_init},
    {"reboot", cmd_reboot},
    {"show", cmd_show},
    {"fault", cmd_fault},
    {"width", cmd_width},
    {"hang-above", cmd_hang_above},
    {"default-cap", cmd_default_cap},
    {"wired", cmd_wired},
    {"history", cmd_history},
    {"sysctl", cmd_sysctl},
    {"metal", cmd_metal},
    {"advance", cmd_advance},
    {"uptime", cmd_uptime},
    {"clock", cmd_clock},
    {"launchd", cmd_launchd},
};

int run(Args words) {
    std::optional<fs::path> state;
    while (!words.empty() && words[0].starts_with("-")) {
        const auto w = words[0];
        if (w == "--help" || w == "-h") {
            std::cout << kUsage << "\n" << profile_list();
            return kExitOk;
        }
        if (w == "--state" && words.size() >= 2) {
            state = fs::path(words[1]);
            words = words.subspan(2);
        } else if (w.starts_with("--state=")) {
            state = fs::path(w.substr(std::string_view("--state=").size()));
            words = words.subspan(1);
        } else {
            return usage_error("unknown option " + wiredcap::units::quote_input(w));
        }
        if (state->empty()) return usage_error("--state needs a file name");
    }
    if (words.empty()) return usage_error("no command given");
    const fs::path path = state ? *state : fs::path(wiredcap::kernel::default_sim_state_path());
    for (const auto& c : kCommands)
        if (c.name == words[0]) return c.run(path, words.subspan(1));
    return usage_error("unknown command " + wiredcap::units::quote_input(words[0]));
}

}  // namespace

int main(int argc, char** argv) {
    try {
        const std::vector<std::string_view> words(argv + (argc > 0 ? 1 : 0), argv + argc);
        return run(words);
    } catch (const std::exception& e) {
        return failed(std::string("internal error: ") + e.what());
    }
}
