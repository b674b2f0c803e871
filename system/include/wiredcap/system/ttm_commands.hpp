// wiredcap-system's Linux subcommands (docs/linux.md): the boot-loader writes of the try-once
// trial of TTM's pages_limit. They live here, in root's own program, and never in the setuid
// helper. The logic is wiredcap_linux's (linux/include/wiredcap/linux/trial.hpp); these only
// read the arguments and shape the one JSON line.
#pragma once

#include "wiredcap/system/dispatch.hpp"

namespace wiredcap::system {

// ttm-trial SIZE: one boot with <module>.pages_limit through GRUB's one-shot entry.
[[nodiscard]] helper::Result ttm_trial(helper::Context& ctx, const Args& args);
// ttm-after-boot: the read-back of a trial boot, or the hang ceiling of one that did not settle.
[[nodiscard]] helper::Result ttm_after_boot(helper::Context& ctx, const Args& args);
// ttm-confirm [--check CMD ARGS...]: on the trial boot, make it the default entry's.
[[nodiscard]] helper::Result ttm_confirm(helper::Context& ctx, const Args& args);
// ttm-forget-hang --why WHY: clear the hang ceiling, journaled.
[[nodiscard]] helper::Result ttm_forget_hang(helper::Context& ctx, const Args& args);
// ttm-reset: the parameter out of every place wiredcap wrote it.
[[nodiscard]] helper::Result ttm_reset(helper::Context& ctx, const Args& args);

}  // namespace wiredcap::system
