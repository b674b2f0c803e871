#include "src/dispatch.hpp"

#include "src/boot_action.hpp"
#include "src/upkeep_command.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::system {
namespace {

constexpr Subcommand kSubcommands[] = {
    {"boot-action", "",
     "the LaunchDaemon's action at boot and every minute:\n"
     "the journal's upkeep (compact past 1 MiB), then\n"
     "apply the value stored by persist once per boot;\n"
     "healthy after healthy_after of uptime; never again\n"
     "after a boot that did not get there",
     boot_action},
    {"compact", "",
     "compact the journal now (boot-action does when\n"
     "it passes 1 MiB); the journal before is\n"
     "journal.jsonl.1 beside it",
     compact},
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

helper::Result usage_error(const std::string& message) {
    JsonObject o;
    o.num("v", 1).boolean("ok", false).num("exit", static_cast<std::uint64_t>(to_int(ExitCode::usage)));
    o.str("error", message);
    return helper::Result{ExitCode::usage, o.text(), message};
}

}  // namespace wiredcap::system
