#include "wiredcap/cli/commands/hang_answers.hpp"

#include <unistd.h>

#include <iostream>
#include <ostream>

#include "wiredcap/ramp/typed_answer.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

constexpr const char* kWhyWords = "macos-update, hardware-change or other-cause";

std::string mib_arg(units::MiB v) { return std::to_string(v.count()) + "MiB"; }

// One answer typed on the terminal: hung, not-hung, or later (Enter). "yes" (it hung) records a
// hang ceiling, which keeps the cap down: harmless, so "y" is taken too. "not-hung" lifts what
// a suspect holds back, so it is taken as "no" or "not-hung", never as a bare "n".
std::optional<std::string> ask_suspect(std::ostream& say, bool say_is_terminal) {
    const Question q{
        "Did the machine hang with it in force? Type hung (or yes), not-hung (or no), or press Enter "
        "to decide later: ",
        {{"hung", journal::event::hung},  // not a journal word: what a person types
         {"yes", journal::event::hung},
         {"y", journal::event::hung},
         {"not-hung", journal::event::not_hung},  // not a journal word: what a person types
         {"no", journal::event::not_hung},
         {"n", ""},
         {"", "later"},
         {"later", "later"}},
        "type hung (or yes), not-hung (or no), or press Enter to decide later.",
        "a machine that did not hang is answered no or not-hung in full (the answer lifts the "
        "suspect), or press Enter to decide later."};
    auto answer = ask_word(std::cin, say, say_is_terminal, q);
    if (answer == "later") return std::nullopt;
    return answer;
}

}  // namespace

std::optional<std::string> check_recover_request(const RecoverRequest& req) {
    if (req.forget_hang && !req.why) return std::string("--forget-hang needs --why: ") + kWhyWords;
    if (!req.forget_hang && req.why) return std::string("--why belongs to --forget-hang");
    if (req.why && *req.why != "macos-update" && *req.why != "hardware-change" &&
        *req.why != "other-cause")
        return "--why needs " + std::string(kWhyWords) + " (got " + units::quote_input(*req.why) +
               ")";
    return std::nullopt;
}

std::optional<std::size_t> answer_suspects(const CliContext& ctx, const recovery::Report& rep,
                                           const RecoverRequest& req, int tty_in_fd,
                                           std::ostream& say) {
    std::size_t open = 0;
    for (const auto& s : rep.suspects) {
        say << "Suspect: " << units::describe(s.value) << " " << recovery::hang_origin(s)
            << ". It is a suspect because it raised the cap outside a ramp (no person or check confirmed it) "
               "and was in force when the machine went down: it read back correctly, but a hang usually comes "
               "later, when a workload wires the memory, and how long it was in force is not recorded, so "
               "wiredcap cannot tell a hang from a planned restart. A person's answer settles it: hung if the "
               "machine hung with it, not-hung if the restart was planned (a reboot you or your tooling ran).\n";
        std::optional<std::string> answer = req.answer;
        if (!answer && !ctx.json && ::isatty(tty_in_fd) != 0)
            answer = ask_suspect(say, ::isatty(STDOUT_FILENO) != 0);
        if (!answer) {
            ++open;
            continue;
        }
        const HelperReply r =
            ctx.helper.run({"verdict", mib_arg(s.value), "--boot", s.boot, "--answer", *answer});
        if (!r.ok()) {
            say << "  could not record the answer: " << r.error << "\n";
            return std::nullopt;
        }
        say << (*answer == journal::event::hung
                    ? "  Recorded: it hung. It binds as a hang ceiling from now on.\n"
                    : "  Recorded: it did not hang.\n");
    }
    if (open != 0)
        say << "Nothing is recorded for " << open << " suspect" << (open == 1 ? "" : "s")
            << " until a person answers: wiredcap recover --hung, or wiredcap recover --not-hung\n";
    return open;
}

ExitCode forget_hang(const CliContext& ctx, const recovery::Report& rep, const RecoverRequest& req,
                     int tty_in_fd, std::ostream& say) {
    if (!rep.hang_ceiling) {
        say << "No hang ceiling binds: nothing to forget.\n";
        return ExitCode::ok;
    }
    const auto& c = *rep.hang_ceiling;
    const std::string what = units::describe(c.value) + " " + recovery::hang_origin(c);
    if (!req.yes) {
        if (ctx.json || ::isatty(tty_in_fd) == 0) {
            return fail(ctx.err, "recover", ExitCode::usage, "forgetting the hang ceiling (", what,
                        ") needs confirmation; no terminal to ask on, so pass --yes");
        }
        const std::string text =
            "Forget the hang ceiling: " + what +
            "? Later writes may go at or above it again. Type yes to continue: ";
        const auto answer =
            ask_word(std::cin, say, ::isatty(STDOUT_FILENO) != 0,
                     yes_or_no(text, "this lets the cap go at or above a value that hung"));
        if (answer != "yes") {
            say << "not forgotten\n";
            return ExitCode::declined;
        }
    }
    // Every hang below the ceiling is forgotten too: the record clears all hangs before it.
    const HelperReply r =
        ctx.helper.run({journal::command::forget_hang, mib_arg(c.value), "--why", *req.why});
    if (!r.ok()) {
        return fail(ctx.err, "recover",
                    r.code() == ExitCode::ok ? ExitCode::internal_error : r.code(),
                    "could not record forgetting the hang ceiling: ", r.error);
    }
    say << "Forgot the hang ceiling " << units::describe(c.value) << " (" << *req.why
        << "); the hang stays in the journal as history.\n";
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
