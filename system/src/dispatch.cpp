#include "wiredcap/system/dispatch.hpp"

#include "wiredcap/system/boot_action.hpp"
#ifdef WIREDCAP_LINUX_BACKEND
#include "wiredcap/system/ttm_commands.hpp"
#endif
#include "wiredcap/system/upgrade_check.hpp"
#include "wiredcap/system/upkeep_command.hpp"
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
    {"upgrade-check", "",
     "exit 10 while a ramp step awaits confirmation or\n"
     "a run is unresolved (the package's preinstall\n"
     "asks before it replaces the helper)",
     upgrade_check},
#ifdef WIREDCAP_LINUX_BACKEND
    // Linux AMD APUs: the try-once trial of TTM's pages_limit (docs/linux.md).
    {"ttm-trial", "SIZE",  // not a journal word: wiredcap-system's verb
     "schedule ONE boot with <ttm|amdttm|amd_ttm>.pages_limit\n"
     "through GRUB's one-shot entry",
     ttm_trial},
    {"ttm-after-boot", "[--wait-driver S]",  // not a journal word: wiredcap-system's verb
     "once amdgpu is up (udev, systemd): read a trial\n"
     "boot back, or remember a trial that did not\n"
     "settle as a hang ceiling",
     ttm_after_boot},
    {"ttm-confirm", "[--check CMD ...]",  // not a journal word: wiredcap-system's verb
     "on the trial boot: make its value the default\n"
     "entry's (update-grub)",
     ttm_confirm},
    {"ttm-forget-hang", "--why WHY",  // not a journal word: wiredcap-system's verb
     "clear the hang ceiling (kernel-update,\n"
     "hardware-change, other-cause); journaled",
     ttm_forget_hang},
    {"ttm-reset", "",  // not a journal word: wiredcap-system's verb
     "remove wiredcap's pages_limit from every place\n"
     "it wrote it; name the others",
     ttm_reset},
#endif
};

}  // namespace

std::span<const Subcommand> subcommands() { return kSubcommands; }

helper::Result usage_error(const std::string& message) {
    JsonObject o;
    o.num("v", 1)
        .boolean("ok", false)
        .num("exit", static_cast<std::uint64_t>(to_int(ExitCode::usage)));
    o.str("error", message);
    return helper::Result{ExitCode::usage, o.text(), message};
}

}  // namespace wiredcap::system
