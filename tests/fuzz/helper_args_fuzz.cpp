// libFuzzer target for the helper's argument handling: the bytes are argv[1..] of the
// privileged helper, NUL-separated as they lie in memory after execve (a NUL ends each
// argument; a final NUL is optional; at most kMaxArgs arguments, the rest is ignored). Whatever
// the arguments, parse_args must not crash or throw, must only accept an invocation its
// commands can run as is (check_invocation), and must say what was wrong in printable ASCII.
// Built with -fsanitize=fuzzer under clang; replayed over the corpus as an ordinary test in
// every build (replay_main.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/helper/args.hpp"
#include "wiredcap/units/format.hpp"

#include "fuzz_checks.hpp"

namespace {

using wiredcap::fuzz::printable_message;
using wiredcap::fuzz::require;
using namespace wiredcap;
using helper::Command;
using helper::Invocation;

constexpr std::size_t kMaxArgs = 16;

bool run_id_ok(std::string_view s) {
    if (s.empty() || s.size() > 64) return false;
    return std::all_of(s.begin(), s.end(), [](char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
               c == '-';
    });
}

bool dev_path_ok(const std::optional<std::string>& p) {
    return !p || (!p->empty() && p->front() == '/' && p->size() <= 1024 && printable_message(*p));
}

template <std::size_t N>
bool one_of(const std::string& s, const std::string_view (&words)[N]) {
    return std::find(std::begin(words), std::end(words), s) != std::end(words);
}

// The canonical command line for an accepted invocation.
std::vector<std::string> argv_of(const Invocation& inv) {
    std::vector<std::string> out;
    if (inv.dev.policy) out.insert(out.end(), {"--policy", *inv.dev.policy});
    if (inv.dev.journal) out.insert(out.end(), {"--journal", *inv.dev.journal});
    if (inv.dev.sim_state) out.insert(out.end(), {"--sim-state", *inv.dev.sim_state});
    out.emplace_back(helper::command_name(inv.command));
    if (inv.off) out.emplace_back("--off");
    if (inv.value) out.push_back(units::to_string(*inv.value));
    if (inv.unconfirmed) out.emplace_back("--unconfirmed");
    if (inv.run) out.insert(out.end(), {"--run", *inv.run});
    if (inv.step) out.insert(out.end(), {"--step", std::to_string(*inv.step)});
    if (inv.revert) out.insert(out.end(), {"--revert", *inv.revert});
    if (inv.outcome) out.insert(out.end(), {"--outcome", *inv.outcome});
    if (inv.boot) out.insert(out.end(), {"--boot", *inv.boot});
    if (inv.answer) out.insert(out.end(), {"--answer", *inv.answer});
    if (inv.why) out.insert(out.end(), {"--why", *inv.why});
    if (inv.by) out.insert(out.end(), {"--by", *inv.by});
    return out;
}

bool same(const Invocation& a, const Invocation& b) {
    return a.command == b.command && a.value == b.value && a.off == b.off &&
           a.unconfirmed == b.unconfirmed && a.run == b.run && a.step == b.step &&
           a.revert == b.revert && a.outcome == b.outcome && a.boot == b.boot &&
           a.answer == b.answer && a.why == b.why && a.by == b.by && a.dev.policy == b.dev.policy &&
           a.dev.journal == b.dev.journal && a.dev.sim_state == b.dev.sim_state;
}

void check_invocation(const Invocation& inv) {
    // Each command carries exactly what it needs.
    const bool ramp = inv.run.has_value() && inv.step.has_value();
    switch (inv.command) {
        case Command::read:
            require(!inv.value && !inv.run && !inv.step && !inv.revert && !inv.outcome);
            break;
        case Command::apply:
            require(inv.value.has_value() && inv.value->count() > 0);
            require(inv.run.has_value() == inv.step.has_value() && !inv.outcome &&
                    (!inv.revert || ramp));
            break;
        case Command::reset:
            require(!inv.value && inv.run.has_value() == inv.step.has_value() && !inv.outcome &&
                    (!inv.revert || ramp));
            break;
        case Command::confirm: require(!inv.value && ramp && !inv.revert && !inv.outcome); break;
        case Command::end:
            require(!inv.value && inv.run && inv.outcome && !inv.step && !inv.revert);
            break;
        case Command::persist:
            require(inv.off != inv.value.has_value() &&
                    (!inv.unconfirmed || inv.value.has_value()));
            require(!inv.run && !inv.step && !inv.revert && !inv.outcome);
            break;
        case Command::boot:
            require(!inv.value && !inv.off && !inv.unconfirmed && !inv.run && !inv.step &&
                    !inv.revert && !inv.outcome);
            break;
        case Command::verdict:
            require(inv.value.has_value() && inv.boot && inv.answer &&
                    one_of(*inv.answer, helper::kAnswers));
            require(run_id_ok(*inv.boot) && !inv.run && !inv.step && !inv.revert && !inv.outcome);
            break;
        case Command::forget_hang:
            require(inv.value.has_value() && inv.why && one_of(*inv.why, helper::kForgetReasons));
            require(!inv.run && !inv.step && !inv.revert && !inv.outcome);
            break;
    }
    if (inv.command != Command::verdict) require(!inv.boot && !inv.answer);
    if (inv.command != Command::forget_hang) require(!inv.why);
    if (inv.by) require(inv.command == Command::apply && one_of(*inv.by, helper::kWriters));
    if (inv.command != Command::persist) require(!inv.off && !inv.unconfirmed);
    if (inv.value) require(inv.value->count() > 0);
    // Each value is from its fixed set or shape.
    if (inv.run) require(run_id_ok(*inv.run));
    if (inv.step) require(*inv.step >= 1 && *inv.step <= 100000);
    if (inv.revert) require(one_of(*inv.revert, helper::kRevertReasons));
    if (inv.outcome) require(one_of(*inv.outcome, helper::kOutcomes));
    require(dev_path_ok(inv.dev.policy) && dev_path_ok(inv.dev.journal) &&
            dev_path_ok(inv.dev.sim_state));

    // The canonical command line for it is accepted and means the same.
    const auto canonical = argv_of(inv);
    const auto again =
        helper::parse_args(std::vector<std::string_view>(canonical.begin(), canonical.end()));
    require(again.has_value() && same(*again, inv));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::string_view rest(reinterpret_cast<const char*>(data), size);
    std::vector<std::string_view> args;
    while (!rest.empty() && args.size() < kMaxArgs) {
        const auto nul = rest.find('\0');
        args.push_back(rest.substr(0, nul));
        rest.remove_prefix(nul == std::string_view::npos ? rest.size() : nul + 1);
    }
    const auto inv = helper::parse_args(args);
    if (!inv) {
        const std::string& message = inv.error().message;
        require(!message.empty() && printable_message(message));
        return 0;
    }
    check_invocation(*inv);
    return 0;
}
