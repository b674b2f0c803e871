#include "wiredcap/system/upkeep_command.hpp"

#include <chrono>

#include "wiredcap/helper/journal/syslog_mirror.hpp"
#include "wiredcap/system/journal/upkeep.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::system {
namespace {

// As long as any locked command of the helper waits for the lock.
constexpr std::chrono::milliseconds kLockWait{3000};

Expected<journal::Upkeep> keep_up(helper::Context& ctx, bool always) {
    auto w = journal::Writer::open(ctx.journal_path, ctx.trusted_owner);
    if (!w) return w.error();
    auto boot = ctx.kernel.read_boot_id();
    // The lock is taken inside, after the long part (journal/upkeep.hpp).
    return journal::keep_up(*w,
                            journal::Stamp{boot ? *boot : std::string("unknown"), ctx.caller.uid},
                            always, kLockWait);
}

}  // namespace

helper::Result compact(helper::Context& ctx, const Args& args) {
    if (!args.empty()) return usage_error("compact takes no arguments");
    JsonObject o;
    o.num("v", 1).str("command", "compact");
    auto u = keep_up(ctx, true);
    if (!u) {
        o.boolean("ok", false)
            .num("exit", static_cast<std::uint64_t>(to_int(ExitCode::journal_failed)));
        o.str("error", u.error().message);
        return helper::Result{ExitCode::journal_failed, o.text(), u.error().message};
    }
    o.boolean("ok", true)
        .boolean("compacted", u->compacted);  // not a journal word: a key of the answer
    o.num("bytes_before", u->bytes_before).num("bytes_after", u->bytes_after);
    o.num("records", u->records).num("kept", u->kept);
    o.boolean("retry", u->retry).num("locked_ms", u->locked_ms);
    return helper::Result{ExitCode::ok, o.text(), ""};
}

void upkeep_if_due(helper::Context& ctx) {
    if (auto u = keep_up(ctx, false); !u)
        journal::mirror_to_syslog("wiredcap-system: " + u.error().message);
}

}  // namespace wiredcap::system
