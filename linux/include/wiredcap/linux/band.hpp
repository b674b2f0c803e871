// The band for TTM's pages_limit: which values a trial may take, in pages of the running
// kernel's page size (docs/bands.md, "Linux").
//
// Root sets it in /etc/wiredcap.conf, the Mac's file and syntax (common/include/wiredcap/policy/policy.hpp):
// min, max, reserve and max_step, sizes with units, each turned into whole pages exactly.
// Without the file, the built-in band: from kBuiltinLow up to MemTotal minus kReserveFloor,
// which covers what owners run (108000 MiB, 120 GiB, 124 GiB on a 128 GB Strix Halo) because
// a trial that hangs reverts at the next boot by itself. Whatever the policy says, nothing
// above MemTotal minus kReserveFloor is ever scheduled.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"
#include "wiredcap/units/literals.hpp"
#include "wiredcap/units/pages.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

using namespace units::literals;

// The least MemTotal minus a trial's value may be: the kernel, systemd and an SSH session to
// reset from fit in it. 124 GiB on a 128 GB Strix Halo (MemTotal 125.65 GiB) leaves 1.65 GiB.
inline constexpr units::MiB kReserveFloor = 1_GiB;
// The built-in band's bottom: below the kernel's default (half of RAM) a smaller GTT is safe
// for the machine; a desktop's compositor keeps well under this much in GTT.
inline constexpr units::MiB kBuiltinLow = 1_GiB;

struct TtmBand {
    units::Pages low;                      // inclusive
    units::Pages high;                     // inclusive
    units::Pages reserve;                  // MemTotal - high is at least this
    std::optional<units::Pages> max_step;  // the most a trial may raise above pages_limit now
    std::optional<units::Pages> vouched;   // exempt from max_step (policy's `vouched`)
    std::string source;                    // "built-in band (docs/bands.md)" or "policy file PATH"
    std::vector<std::string> warnings;     // the policy's (the GB x 1000 slip)
};

// `b` as whole pages exactly, or an error naming the two whole-page neighbours. `what` names
// the size in the message ("max", "the trial's size").
[[nodiscard]] Expected<units::Pages> whole_pages(std::string_view what, units::Bytes b,
                                                 units::PageSize size);

// The built-in band; an error when MemTotal leaves no room (below about 2 GiB).
[[nodiscard]] Expected<TtmBand> builtin_ttm_band(units::Bytes mem_total, units::PageSize size);

// The band policy text read from `path` sets, validated as a Mac's policy is against MemTotal,
// with Linux's reserve floor. An error names the file and why.
[[nodiscard]] Expected<TtmBand> policy_ttm_band(std::string_view text, std::string_view path,
                                                units::Bytes mem_total, units::PageSize size);

// The policy file as root's program read it: absent (nullopt: the built-in band), its text, or
// why it could not be read (then no band: fail closed).
struct PolicyText {
    std::string path;
    Expected<std::optional<std::string>> text = std::optional<std::string>{};
};
[[nodiscard]] Expected<TtmBand> ttm_band(const PolicyText& policy, units::Bytes mem_total,
                                         units::PageSize size);

// Why `want` may not be tried when pages_limit reads `current` (unknown: the step is measured
// from the band's bottom), or nullopt when it may. Lowering never counts against max_step.
[[nodiscard]] std::optional<std::string> band_refusal(const TtmBand& band, const units::Pages& want,
                                                      std::optional<units::Pages> current);

}  // namespace wiredcap::linux_amd
