#include "wiredcap/helper/args.hpp"

#include <algorithm>
#include <charconv>
#include <span>
#include <utility>

#include "wiredcap/units/parse.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::helper {
namespace {

constexpr std::size_t kMaxPathLength = 1024;
constexpr std::uint64_t kMaxStep = 100000;

using Args = std::vector<std::string_view>;

Error usage(const std::string& why) {
    return Error{why + " (usage: wiredcap-helper read | apply SIZE | reset | confirm | end | persist | verdict | "
                       "forget-hang)"};
}

bool valid_run_id(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
    });
}

// Digits only (no sign, no space, no leading zero), 1 to kMaxStep.
std::optional<std::uint64_t> parse_step(std::string_view s) {
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), n);
    if (ec != std::errc{} || end != s.data() + s.size() || s[0] == '0' || n > kMaxStep) return std::nullopt;
    return n;
}

// Moves past args[i] when it is `word`.
bool take(const Args& args, std::size_t& i, std::string_view word) {
    if (i >= args.size() || args[i] != word) return false;
    ++i;
    return true;
}

// The command words, one table for both directions (boot: wiredcap-system's, refused below).
constexpr std::pair<Command, std::string_view> kCommandNames[] = {
    {Command::read, "read"},       {Command::apply, "apply"},     {Command::reset, "reset"},
    {Command::confirm, "confirm"}, {Command::end, "end"},         {Command::persist, "persist"},
    {Command::boot, "boot"},       {Command::verdict, "verdict"}, {Command::forget_hang, journal::command::forget_hang}};

std::optional<Command> parse_command(std::string_view s) {
    for (const auto& [cmd, name] : kCommandNames)
        if (name == s) return cmd;
    return std::nullopt;
}

// The options whose value is a word: the field each fills and the words it takes (none: an
// id, 1 to 64 letters, digits or '-'). Nothing a caller types reaches root's journal otherwise.
struct WordOption {
    std::string_view name;
    std::optional<std::string> Invocation::*slot;
    std::span<const std::string_view> words;
};
constexpr WordOption kWordOptions[] = {
    {"--run", &Invocation::run, {}},
    {"--boot", &Invocation::boot, {}},
    {"--revert", &Invocation::revert, kRevertReasons},
    {"--outcome", &Invocation::outcome, kOutcomes},
    {"--effective-source", &Invocation::effective_source, kEffectiveSources},
    {"--by", &Invocation::by, kWriters},
    {"--answer", &Invocation::answer, kAnswers},
    {"--why", &Invocation::why, kForgetReasons}};

Expected<Ok> set_word(const WordOption& o, std::string_view v, Invocation& inv) {
    const bool id = o.words.empty();
    if (id ? !valid_run_id(v) : std::find(o.words.begin(), o.words.end(), v) == o.words.end()) {
        std::string need = id ? " 1 to 64 letters, digits or '-'" : " one of:";
        for (const auto w : o.words) need += " " + std::string(w);
        return usage(std::string(o.name) + " needs" + need);
    }
    inv.*o.slot = std::string(v);
    return Ok{};
}

// A development path option: absolute, bounded, printable.
Expected<std::string> dev_path(std::string_view name, std::string_view value) {
    const bool printable = std::all_of(value.begin(), value.end(), [](char c) {
        return static_cast<unsigned char>(c) >= 0x20 && static_cast<unsigned char>(c) < 0x7f;
    });
    if (value.empty() || value[0] != '/' || value.size() > kMaxPathLength || !printable)
        return usage(std::string(name) + " needs an absolute path of printable ASCII");
    return std::string(value);
}

// Reads the leading development options; returns the index of the command word.
Expected<std::size_t> parse_dev_options(const Args& args, DevOptions& dev) {
    std::size_t i = 0;
    while (i < args.size() && args[i].substr(0, 2) == "--") {
        const std::string_view opt = args[i];
        std::optional<std::string>* slot = opt == "--policy" ? &dev.policy
                                           : opt == "--journal" ? &dev.journal
                                           : opt == "--sim-state" ? &dev.sim_state
                                                                   : nullptr;
        if (slot == nullptr) return usage("unknown option " + units::quote_input(opt));
        if (*slot) return usage(std::string(opt) + " given twice");
        if (i + 1 >= args.size()) return usage(std::string(opt) + " needs a value");
        auto path = dev_path(opt, args[i + 1]);
        if (!path) return path.error();
        *slot = *path;
        i += 2;
    }
    return i;
}

// The options after the command: --ignore-hang-ceiling and --check alone, the others with a
// value, each at most once.
Expected<Ok> parse_ramp_options(const Args& args, std::size_t i, Invocation& inv) {
    for (; i < args.size(); i += 2) {
        const std::string_view opt = args[i];
        bool* flag = opt == "--ignore-hang-ceiling" ? &inv.ignore_hang_ceiling : opt == "--check" ? &inv.check : nullptr;
        if (flag != nullptr && !*flag) {
            *flag = true;
            i -= 1;  // a flag: the loop's step of 2 moves on by one
            continue;
        }
        const auto word = std::find_if(std::begin(kWordOptions), std::end(kWordOptions),
                                       [&](const WordOption& o) { return o.name == opt; });
        const bool is_word = word != std::end(kWordOptions);
        const bool fresh = is_word ? !(inv.*word->slot).has_value()
                                   : (opt == "--step" && !inv.step) || (opt == "--effective" && !inv.effective);
        if (!fresh) return usage("unexpected or repeated argument " + units::quote_input(opt));
        if (i + 1 >= args.size()) return usage(units::quote_input(opt) + " needs a value");
        const std::string_view v = args[i + 1];
        if (is_word) {
            if (auto r = set_word(*word, v, inv); !r) return r.error();
        } else if (opt == "--step") {
            inv.step = parse_step(v);
            if (!inv.step) return usage("--step needs a whole number from 1 to 100000");
        } else {
            auto e = units::parse_size_as<units::MiB>(v);
            if (!e) return usage("--effective: " + e.error().message);
            if (e->count() == 0) return usage("--effective must be above 0 MiB");
            inv.effective = *e;
        }
    }
    return Ok{};
}

// Which options each command takes: the first rule broken is the one reported.
Expected<Ok> check_combination(const Invocation& inv) {
    const Command c = inv.command;
    const bool ramp = inv.run.has_value(), apply = c == Command::apply, verdict = c == Command::verdict;
    const bool persist_on = c == Command::persist && !inv.off;
    const bool ramp_options = ramp || inv.revert || inv.outcome;
    const bool ramp_command = apply || c == Command::reset;
    const bool ramp_free = c == Command::persist || verdict || c == Command::forget_hang;  // boot: refused before
    const std::pair<bool, std::string> rules[] = {
        {ramp != inv.step.has_value() && c != Command::end, "--run and --step go together"},
        {inv.effective_source && !inv.effective, "--effective-source needs --effective"},
        {inv.by && !apply, "--by belongs to apply"},
        {inv.boot.has_value() != verdict || inv.answer.has_value() != verdict,
         "verdict needs --boot and --answer, and only verdict takes them"},
        {inv.why.has_value() != (c == Command::forget_hang), "forget-hang needs --why, and only it takes it"},
        {(inv.effective && !apply && !(persist_on && inv.unconfirmed)) || (inv.ignore_hang_ceiling && !apply && !persist_on),
         "--effective belongs to apply and persist --unconfirmed, --ignore-hang-ceiling to apply and persist"},
        {c == Command::read && ramp_options, "read takes no options"},
        {ramp_command && inv.outcome, "--outcome belongs to end"},
        {ramp_command && inv.revert && !ramp, "--revert needs --run and --step"},
        {c == Command::confirm && (!ramp || inv.revert || inv.outcome), "confirm needs exactly --run and --step"},
        {c == Command::end && (!ramp || !inv.outcome || inv.step || inv.revert), "end needs exactly --run and --outcome"},
        {ramp_free && ramp_options, std::string(command_name(c)) + " takes no ramp options"},
        {inv.check && !ramp_command && c != Command::persist, "--check belongs to apply, reset and persist"}};
    for (const auto& [broken, why] : rules)
        if (broken) return usage(why);
    return Ok{};
}

}  // namespace

std::string_view command_name(Command c) {
    for (const auto& [cmd, name] : kCommandNames)
        if (cmd == c) return name;
    return "unknown";
}

Expected<Invocation> parse_args(const Args& args) {
    Invocation inv;
    auto at = parse_dev_options(args, inv.dev);
    if (!at) return at.error();
    std::size_t i = *at;
    if (i >= args.size()) return usage("no command");
    const auto cmd = parse_command(args[i]);
    // The boot action is root's own program's: no caller of the helper reaches it.
    if (args[i] == "boot")
        return usage("boot is not the helper's: the LaunchDaemon runs it as wiredcap-system boot-action");
    if (!cmd) return usage("unknown command " + units::quote_input(args[i]));
    inv.command = *cmd;
    const Command c = *cmd;
    ++i;
    const bool past = c == Command::verdict || c == Command::forget_hang;  // names a value that was in force
    inv.off = c == Command::persist && take(args, i, "--off");
    if (!inv.off && (c == Command::apply || c == Command::persist || past)) {
        const std::string name(command_name(c));
        if (i >= args.size()) return usage(name + " needs a size, e.g. 237568MiB");
        auto v = units::parse_size_as<units::MiB>(args[i++]);
        if (!v) return v.error();
        if (v->count() == 0 && past) return usage(name + " needs the value that was in force, above 0 MiB");
        if (v->count() == 0) return usage(name + " 0 would mean the OS default: use " +
                         (c == Command::apply ? "reset" : "persist --off"));
        inv.value = *v;
        inv.unconfirmed = c == Command::persist && take(args, i, "--unconfirmed");
        inv.lower = inv.unconfirmed && take(args, i, "--lower");
    }
    if (auto r = parse_ramp_options(args, i, inv); !r) return r.error();
    if (auto ok = check_combination(inv); !ok) return ok.error();
    // --effective alone is a figure the caller gives: journaled as given.
    if (inv.effective && !inv.effective_source) inv.effective_source = "given";
    return inv;
}

}  // namespace wiredcap::helper
