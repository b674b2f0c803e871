#include "wiredcap/linux/status_text.hpp"

#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::linux_amd {
namespace {

using units::Bytes;
using units::PageSize;

// A byte reading as pages, MiB and GiB; a part page is named, never rounded into a page.
std::string sized(Bytes b, std::optional<PageSize> ps) {
    if (!ps) return std::to_string(b.count()) + " bytes (page size unknown)";
    return units::describe(b, *ps);
}

void row(std::string& out, std::string_view label, const std::string& value,
         const std::string& source) {
    std::string l(label);
    l.resize(15, ' ');
    out += "  " + l + value + "\n";
    if (!source.empty()) out += "                 " + source + "\n";
}

template <class T, class F>
void sourced_row(std::string& out, std::string_view label, const kernel::Sourced<T>& s, F show) {
    if (s.value) row(out, label, show(*s.value), s.source);
    else row(out, label, "unknown: " + s.note, s.source);
}

}  // namespace

std::string status_text(const SystemRoot& root,
                        const Expected<std::optional<units::MiB>>& hang_ceiling,
                        const PolicyText& policy, std::string_view journal) {
    SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    const auto ps = r.page_size.value;
    std::string out = "Linux AMD GPU memory (" + std::string(kernel.backend_name()) + ", root " +
                      root.root().string() + ")\n";
    sourced_row(out, "page size", r.page_size,
                [](PageSize p) { return std::to_string(p.bytes()) + " bytes"; });
    if (!r.amdgpu_loaded) row(out, "amdgpu", "not loaded (/sys/module/amdgpu absent)", "");
    sourced_row(out, "TTM module", r.module, [&](kernel::TtmModule m) {
        return std::string(kernel::module_name(m)) + ": " + r.module.note;
    });
    sourced_row(out, "pages_limit", r.pages_limit,
                [](const units::Pages& p) { return units::describe(p); });
    if (r.cmdline_pages_limit.value || !r.module.value)
        sourced_row(out, "boot parameter", r.cmdline_pages_limit,
                    [](const units::Pages& p) { return units::describe(p); });
    else
        row(out, "boot parameter", "none: the kernel's default (half of RAM) applies",
            r.cmdline_pages_limit.source);
    for (const auto& ignored : r.ignored_parameters)
        row(out, "IGNORED", ignored + ": that module is not the one loaded", "/proc/cmdline");
    if (r.gttsize.value)
        row(out, "CONFLICT",
            "amdgpu.gttsize=" + *r.gttsize.value + " MiB overrides pages_limit (deprecated 6.15)",
            r.gttsize.source);
    sourced_row(out, "GPU cap (GTT)", r.gtt_total, [&](Bytes b) { return sized(b, ps); });
    if (r.gtt_total.value && r.pages_limit.value &&
        *r.gtt_total.value != r.pages_limit.value->to_bytes())
        row(out, "MISMATCH", "the driver's GTT is not pages_limit x page size", "");
    sourced_row(out, "KFD memory", r.kfd_mem_bank, [&](Bytes b) { return sized(b, ps); });
    if (r.kfd_mem_bank.value && r.gtt_total.value && *r.kfd_mem_bank.value != *r.gtt_total.value)
        row(out, "MISMATCH", "KFD's memory bank is not the driver's GTT", "");
    sourced_row(out, "VRAM carve-out", r.vram_total, [&](Bytes b) { return sized(b, ps); });
    sourced_row(out, "MemTotal", r.mem_total, [&](Bytes b) { return sized(b, ps); });
    if (r.mem_total.value && ps) {
        if (const auto band = ttm_band(policy, *r.mem_total.value, *ps)) {
            row(out, "band low", units::describe(band->low), band->source);
            row(out, "band high", units::describe(band->high),
                "MemTotal minus a reserve of " + std::to_string(band->reserve.count()) + " pages");
            if (band->max_step)
                row(out, "max_step", units::describe(*band->max_step), "above pages_limit now");
            for (const auto& w : band->warnings) row(out, "WARNING", w, band->source);
        } else {
            row(out, "band", "none: " + band.error().message, "");
        }
    }
    if (!hang_ceiling)
        row(out, "hang ceiling",
            "UNREADABLE: " + hang_ceiling.error().message + " (binds every trial)", "");
    else if (*hang_ceiling)
        row(out, "hang ceiling", describe_ceiling(**hang_ceiling, ps),
            "the journal " + std::string(journal));
    const auto boot = detect_boot_loader(root);
    const auto why =
        boot.loader ? boot.loader->unusable() : std::optional<std::string>(boot.why_none);
    if (boot.loader && !why)
        row(out, "boot loader", std::string(boot.loader->name()) + ", one-shot",
            boot.loader->trial_places());
    else row(out, "boot loader", "no one-shot: " + *why, "");
    if (boot.loader && r.module.value) {
        const std::string param =
            std::string(kernel::module_name(*r.module.value)) + ".pages_limit";
        const auto v = boot.loader->default_value(param);
        row(out, "default entry", v ? param + "=" + *v : "no " + param,
            boot.loader->default_place());
    }
    // modprobe.d is read only when TTM is a module loaded after the root file system is up or
    // from an initramfs rebuilt since: shown, never trusted, never written.
    for (const auto& f : root.list("/etc/modprobe.d")) {
        const auto text = root.read("/etc/modprobe.d/" + f);
        if (text && text->find("pages_limit") != std::string::npos)
            row(out, "modprobe.d",
                "sets pages_limit: ignored if TTM is built in or the initramfs is older",
                "/etc/modprobe.d/" + f);
    }
    const auto loaded = load_trial_state(root);
    std::string trial = loaded ? std::string() : "UNREADABLE: " + loaded.error().message;
    if (loaded) trial = trial_summary(*loaded, hang_ceiling ? *hang_ceiling : std::nullopt);
    row(out, "trial", trial, std::string(kStateFile));
    return out;
}

}  // namespace wiredcap::linux_amd
