#include "wiredcap/system/upgrade_check.hpp"

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::system {
namespace {

// The command that settles a run in each state, in recover's words (cli/commands/recover_cmd.cpp):
// in this boot a reset puts the OS default back (after the ramp, if one runs, has ended); a run
// of an earlier boot is a person's to judge with recover.
std::optional<std::string> settle_command(recovery::RunState s) {
    switch (s) {
        case recovery::RunState::awaiting_in_this_boot:
        case recovery::RunState::revert_unproven_in_this_boot: return "wiredcap reset";
        case recovery::RunState::hung_in_earlier_boot:
        case recovery::RunState::interrupted_in_earlier_boot: return "wiredcap recover";
        case recovery::RunState::ended_without_record: return std::nullopt;  // nothing at risk
    }
    return "wiredcap recover";
}

std::string what(const recovery::UnresolvedRun& u) {
    const std::string where = "run " + u.at.run + " step " + std::to_string(u.at.step);
    switch (u.state) {
        case recovery::RunState::awaiting_in_this_boot:
            return where + " awaits confirmation in this boot";
        case recovery::RunState::revert_unproven_in_this_boot:
            return where + " was not shown reverted";
        default: return where + " is unresolved from an earlier boot";
    }
}

helper::Result answer(ExitCode code, JsonObject o, const std::string& error) {
    o.boolean("ok", code == ExitCode::ok).num("exit", static_cast<std::uint64_t>(to_int(code)));
    if (!error.empty()) o.str("error", error);
    return helper::Result{code, o.text(), error};
}

}  // namespace

helper::Result upgrade_check(helper::Context& ctx, const Args& args) {
    if (!args.empty()) return usage_error("upgrade-check takes no arguments");
    JsonObject o;
    o.num("v", 1).str("command", "upgrade-check");
    const auto boot = ctx.kernel.read_boot_id();
    auto report = recovery::analyse_file(
        ctx.journal_path, boot ? std::string_view(*boot) : std::string_view("unknown"));
    if (!report)
        return answer(ExitCode::journal_failed, std::move(o),
                      "cannot read the journal: " + report.error().message);
    std::string open, runs;
    for (const auto& u : report->unresolved) {
        const auto settle = settle_command(u.state);
        if (!settle) continue;
        JsonObject r;
        r.str("run", u.at.run).num("step", u.at.step).str("what", what(u)).str("settle", *settle);
        runs += (runs.empty() ? "" : ",") + r.text();
        open += (open.empty() ? "" : "; ") + what(u) + " (settle it: " + *settle + ")";
    }
    o.raw_array("open", "[" + runs + "]");
    if (open.empty()) return answer(ExitCode::ok, std::move(o), "");
    return answer(ExitCode::unresolved_journal, std::move(o), open);
}

}  // namespace wiredcap::system
