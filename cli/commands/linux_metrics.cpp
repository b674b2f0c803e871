#include "wiredcap/cli/commands/linux_metrics.hpp"

#include <ostream>
#include <utility>

#include "wiredcap/cli/commands/journal_metrics.hpp"
#include "wiredcap/cli/commands/linux_status.hpp"
#include "wiredcap/cli/commands/metrics_cmd.hpp"
#include "wiredcap/cli/output/atomic_file.hpp"
#include "wiredcap/cli/output/prometheus_text.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/version.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::Pages;

std::optional<std::uint64_t> bytes(const std::optional<Bytes>& b) {
    return b ? std::optional<std::uint64_t>(b->count()) : std::nullopt;
}

// One sample per word, 1 for the current one.
void one_of(Exposition& e, std::string_view name, std::string_view help, const std::string& label,
            std::initializer_list<const char*> words, std::string_view current) {
    e.family(name, help);
    for (const char* w : words) e.sample(name, current == w ? 1 : 0, {{label, w}});
}

void trial(Exposition& e, const linux_amd::TrialState& state) {
    one_of(e, "wiredcap_ttm_trial_phase",
           "The try-once trial's phase (ttm-state): 1 for the current one.", "phase",
           {"none", "scheduled", "booted", "default"}, state.phase);
    const auto size = units::PageSize::from_bytes(state.page_size);
    const auto stored = size && !state.default_param.empty()
                            ? Pages::from_count(state.default_pages, *size)
                            : std::nullopt;
    e.one("wiredcap_ttm_default_stored_bytes", "The value made default (ttm-confirm), if any.",
          stored ? std::optional<std::uint64_t>(stored->to_bytes().count()) : std::nullopt);
}

}  // namespace

std::string linux_prometheus_text(const linux_amd::SystemRoot& root,
                                  const Expected<recovery::Report>& journal,
                                  const std::optional<std::uint64_t>& journal_size,
                                  const linux_amd::PolicyText& policy) {
    linux_amd::SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    const auto ps = r.page_size.value;
    const auto band = r.mem_total.value && ps
                          ? ttm_band(policy, *r.mem_total.value, *ps)
                          : Expected<linux_amd::TtmBand>(Error{"no MemTotal or page size"});
    const auto state = linux_amd::load_trial_state(root);
    Exposition e;
    e.family("wiredcap_up", "1 when the readings below were made, else 0.");
    e.sample("wiredcap_up", 1);
    e.family("wiredcap_info",
             "wiredcap's version, its kernel backend and the TTM module amdgpu uses; always 1.");
    e.sample("wiredcap_info", 1,
             {{"version", kVersion},
              {"backend", std::string(kernel.backend_name())},
              {"ttm_module",
               r.module.value ? std::string(kernel::module_name(*r.module.value)) : "unknown"}});
    const std::pair<const char*, bool> readings[] = {
        {"page_size", ps.has_value()},
        {"pages_limit", r.pages_limit.value.has_value()},
        {"gtt_total", r.gtt_total.value.has_value()},
        {"kfd_memory", r.kfd_mem_bank.value.has_value()},
        {"memory", r.mem_total.value.has_value()},
        {"band", band.has_value()},
        {"journal", journal.has_value()},
        {"trial_state", state.has_value()}};
    e.family("wiredcap_reading_ok",
             "1 when the reading was made, 0 when it is unknown (its metric is then absent).");
    for (const auto& [name, made] : readings)
        e.sample("wiredcap_reading_ok", made ? 1 : 0, {{"reading", name}});
    e.one("wiredcap_ttm_page_size_bytes", "The kernel's page size, in which pages_limit counts.",
          ps ? std::optional<std::uint64_t>(ps->bytes()) : std::nullopt);
    if (r.pages_limit.value) {
        e.one("wiredcap_ttm_pages_limit_pages",
              "TTM's pages_limit as the module reads it, in pages.", r.pages_limit.value->count());
        e.one("wiredcap_ttm_pages_limit_bytes", "TTM's pages_limit in bytes (pages x page size).",
              r.pages_limit.value->to_bytes().count());
    }
    e.one("wiredcap_gtt_total_bytes", "The GPU cap amdgpu holds: mem_info_gtt_total.",
          bytes(r.gtt_total.value));
    e.one("wiredcap_kfd_memory_bytes", "What ROCm sees: the KFD GPU node's memory bank.",
          bytes(r.kfd_mem_bank.value));
    e.one("wiredcap_memory_bytes", "MemTotal (/proc/meminfo).", bytes(r.mem_total.value));
    if (band) {
        e.one("wiredcap_band_min_bytes", "The band's lowest value a trial may take.",
              band->low.to_bytes().count());
        e.one("wiredcap_band_max_bytes", "The band's highest value a trial may take.",
              band->high.to_bytes().count());
        e.one("wiredcap_reserve_bytes", "MemTotal always left to the OS.",
              band->reserve.to_bytes().count());
    }
    journal_metrics(e, journal ? &*journal : nullptr, journal_size);
    if (state) trial(e, *state);
    return e.text();
}

ExitCode run_linux_metrics(const std::string& root, const std::string& journal,
                           const std::string& policy,
                           const std::optional<std::string>& textfile_dir, std::ostream& out,
                           std::ostream& err) {
    const linux_amd::SystemRoot system_root(root);
    const std::string text =
        linux_prometheus_text(system_root, linux_journal_report(journal, system_root),
                              journal_bytes(journal), linux_policy(policy));
    if (!textfile_dir) {
        out << text;
        return ExitCode::ok;
    }
    if (auto ok = replace_file_atomically(*textfile_dir, kTextfileName, text); !ok) {
        return fail(err, "metrics", ExitCode::internal_error, ok.error().message);
    }
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
