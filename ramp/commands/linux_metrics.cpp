#include "commands/linux_metrics.hpp"

#include <ostream>
#include <utility>
#include <vector>

#include "commands/linux_status.hpp"
#include "commands/metrics_cmd.hpp"
#include "output/atomic_file.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::Pages;

// Families in the text format; every one a gauge, written once with its HELP and TYPE. Label
// values here are fixed words and the version, which need no escaping.
class Families {
public:
    void gauge(const std::string& name, const std::string& help,
               const std::vector<std::pair<std::string, std::uint64_t>>& samples) {
        text_ += "# HELP " + name + " " + help + "\n# TYPE " + name + " gauge\n";
        for (const auto& [labels, v] : samples) text_ += name + labels + " " + std::to_string(v) + "\n";
    }
    void one(const std::string& name, const std::string& help, std::optional<std::uint64_t> v) {
        if (v) gauge(name, help, {{"", *v}});
    }
    [[nodiscard]] const std::string& text() const { return text_; }

private:
    std::string text_;
};

std::string label(const std::string& key, const std::string& value) { return "{" + key + "=\"" + value + "\"}"; }

std::optional<std::uint64_t> bytes(const std::optional<Bytes>& b) {
    return b ? std::optional<std::uint64_t>(b->count()) : std::nullopt;
}

}  // namespace

std::string linux_prometheus_text(const linux_amd::SystemRoot& root,
                                  const Expected<std::optional<units::MiB>>& hang_ceiling,
                                  const linux_amd::PolicyText& policy) {
    linux_amd::SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    const auto ps = r.page_size.value;
    const auto band = r.mem_total.value && ps ? ttm_band(policy, *r.mem_total.value, *ps)
                                              : Expected<linux_amd::TtmBand>(Error{"no MemTotal or page size"});
    const auto state = linux_amd::load_trial_state(root);
    Families f;
    f.gauge("wiredcap_up", "1 when the readings below were made, else 0.", {{"", 1}});
    const std::string module = r.module.value ? std::string(kernel::module_name(*r.module.value)) : "unknown";
    f.gauge("wiredcap_info", "wiredcap's version, its kernel backend and the TTM module amdgpu uses; always 1.",
            {{"{version=\"" + std::string(kVersion) + "\",backend=\"" + std::string(kernel.backend_name()) +
                  "\",ttm_module=\"" + module + "\"}",
              1}});
    const std::vector<std::pair<std::string, bool>> readings{
        {"page_size", ps.has_value()},          {"pages_limit", r.pages_limit.value.has_value()},
        {"gtt_total", r.gtt_total.value.has_value()}, {"kfd_memory", r.kfd_mem_bank.value.has_value()},
        {"memory", r.mem_total.value.has_value()}, {"band", band.has_value()},
        {"journal", hang_ceiling.has_value()},   {"trial_state", state.has_value()}};
    std::vector<std::pair<std::string, std::uint64_t>> ok;
    for (const auto& [name, made] : readings) ok.emplace_back(label("reading", name), made ? 1 : 0);
    f.gauge("wiredcap_reading_ok", "1 when the reading was made, 0 when it is unknown (its metric is then absent).", ok);
    f.one("wiredcap_ttm_page_size_bytes", "The kernel's page size, in which pages_limit counts.",
          ps ? std::optional<std::uint64_t>(ps->bytes()) : std::nullopt);
    if (r.pages_limit.value) {
        f.one("wiredcap_ttm_pages_limit_pages", "TTM's pages_limit as the module reads it, in pages.",
              r.pages_limit.value->count());
        f.one("wiredcap_ttm_pages_limit_bytes", "TTM's pages_limit in bytes (pages x page size).",
              r.pages_limit.value->to_bytes().count());
    }
    f.one("wiredcap_gtt_total_bytes", "The GPU cap amdgpu holds: mem_info_gtt_total.", bytes(r.gtt_total.value));
    f.one("wiredcap_kfd_memory_bytes", "What ROCm sees: the KFD GPU node's memory bank.", bytes(r.kfd_mem_bank.value));
    f.one("wiredcap_memory_bytes", "MemTotal (/proc/meminfo).", bytes(r.mem_total.value));
    if (band) {
        f.one("wiredcap_band_min_bytes", "The band's lowest value a trial may take.", band->low.to_bytes().count());
        f.one("wiredcap_band_max_bytes", "The band's highest value a trial may take.", band->high.to_bytes().count());
        f.one("wiredcap_reserve_bytes", "MemTotal always left to the OS.", band->reserve.to_bytes().count());
    }
    if (hang_ceiling && *hang_ceiling)
        f.one("wiredcap_hang_ceiling_bytes", "The lowest value that hung this machine (the journal), if any.",
              Bytes(**hang_ceiling).count());
    if (state) {
        std::vector<std::pair<std::string, std::uint64_t>> phases;
        for (const char* p : {"none", "scheduled", "booted", "default"})
            phases.emplace_back(label("phase", p), state->phase == p ? 1 : 0);
        f.gauge("wiredcap_ttm_trial_phase", "The try-once trial's phase (ttm-state): 1 for the current one.", phases);
        const auto size = units::PageSize::from_bytes(state->page_size);
        const auto stored = size && !state->default_param.empty() ? Pages::from_count(state->default_pages, *size)
                                                                   : std::nullopt;
        f.one("wiredcap_ttm_default_stored_bytes", "The value made default (ttm-confirm), if any.",
              stored ? std::optional<std::uint64_t>(stored->to_bytes().count()) : std::nullopt);
    }
    return f.text();
}

ExitCode run_linux_metrics(const std::string& root, const std::string& journal, const std::string& policy,
                           const std::optional<std::string>& textfile_dir, std::ostream& out, std::ostream& err) {
    const linux_amd::SystemRoot system_root(root);
    const std::string text =
        linux_prometheus_text(system_root, linux_hang_ceiling(journal, system_root), linux_policy(policy));
    if (!textfile_dir) {
        out << text;
        return ExitCode::ok;
    }
    if (auto ok = replace_file_atomically(*textfile_dir, kTextfileName, text); !ok) {
        err << "wiredcap metrics: " << ok.error().message << "\n";
        return ExitCode::internal_error;
    }
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
