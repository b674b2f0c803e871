#include "wiredcap/linux/status_json.hpp"

#include "wiredcap/json_writer.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial_journal.hpp"
#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::linux_amd {
namespace {

using units::Bytes;
using units::Pages;
using units::PageSize;

// A size in every unit the schema names: whole pages and the bytes of a part page (null pages
// when the page size is unknown), bytes, MiB and GiB cut (never rounded up).
JsonObject amount(Bytes b, std::optional<PageSize> ps) {
    JsonObject o;
    if (ps) {
        o.num("pages", b.count() / ps->bytes()).num("page_size", ps->bytes());
        o.num("part_page_bytes", b.count() % ps->bytes());
    } else {
        o.null("pages").null("page_size").null("part_page_bytes");
    }
    o.num("bytes", b.count()).num("mib", b.count() >> 20);
    o.decimal("gib", units::truncated_decimal(b, units::SizeUnit::gibibytes, 2));
    return o;
}

JsonObject amount(const Pages& p) { return amount(p.to_bytes(), p.page_size()); }

// {value, source} or {value: null, source, why_unknown}.
JsonObject reading(std::optional<JsonObject> value, std::string_view source, std::string_view why) {
    JsonObject o;
    if (value) o.object("value", *value);
    else o.null("value");
    o.str("source", source.empty() ? std::string_view("none") : source);
    if (!value) o.str("why_unknown", why.empty() ? std::string_view("unknown") : why);
    return o;
}

template <class T, class F>
JsonObject sourced(const kernel::Sourced<T>& s, F to_json) {
    return reading(s.value ? std::optional<JsonObject>(to_json(*s.value)) : std::nullopt, s.source,
                   s.note);
}

JsonObject bytes_reading(const kernel::Sourced<Bytes>& s, std::optional<PageSize> ps) {
    return sourced(s, [&](Bytes b) { return amount(b, ps); });
}

JsonObject band_json(const kernel::TtmReadings& r, const PolicyText& policy) {
    const auto ps = r.page_size.value;
    const auto band = r.mem_total.value && ps
                          ? ttm_band(policy, *r.mem_total.value, *ps)
                          : Expected<TtmBand>(Error{!r.mem_total.value ? "MemTotal unknown"
                                                                       : "page size unknown"});
    JsonObject o;
    if (!band) {
        o.null("low").null("high").null("reserve").null("max_step");
        o.str("why_none", band.error().message);
        return o;
    }
    o.object("low", amount(band->low))
        .object("high", amount(band->high))
        .object("reserve", amount(band->reserve));
    if (band->max_step) o.object("max_step", amount(*band->max_step));
    else o.null("max_step");
    o.strings("warnings", band->warnings);
    return o.str("source", band->source);
}

// Like a stored value: null without why_unknown is "none"; with it, "could not be read".
JsonObject ceiling_json(const Expected<std::optional<units::MiB>>& c, std::optional<PageSize> ps,
                        std::string_view journal) {
    JsonObject o;
    if (c && *c) {
        o.object("value", ps ? amount(ceiling_pages(**c, *ps)) : amount(Bytes(**c), std::nullopt));
    } else {
        o.null("value");
    }
    o.str("source", "journal " + std::string(journal));
    if (!c) o.str("why_unknown", c.error().message + " (binds every trial)");
    return o;
}

JsonObject boot_loader_json(const SystemRoot& root, const kernel::TtmReadings& r) {
    const auto boot = detect_boot_loader(root);
    const auto why =
        boot.loader ? boot.loader->unusable() : std::optional<std::string>(boot.why_none);
    JsonObject o;
    if (boot.loader) o.str("name", boot.loader->name());
    else o.null("name");
    o.boolean("one_shot", !why);
    if (why) o.str("why_no_one_shot", *why);
    else o.str("source", boot.loader->trial_places());
    if (boot.loader && r.module.value) {
        const std::string param =
            std::string(kernel::module_name(*r.module.value)) + ".pages_limit";
        const auto v = boot.loader->default_value(param);
        JsonObject d;
        if (v) d.str("value", param + "=" + *v);
        else d.null("value");
        o.object("default_entry", d.str("source", boot.loader->default_place()));
    } else {
        o.null("default_entry");
    }
    return o;
}

// The trial's value and the default stored, each from its own field (a later trial that hung
// is never the default).
JsonObject trial_json(const SystemRoot& root) {
    const auto loaded = load_trial_state(root);
    JsonObject o;
    if (!loaded)
        return o.null("phase").str("source", kStateFile).str("why_unknown", loaded.error().message);
    const TrialState& s = *loaded;
    o.str("phase", s.phase);
    const auto pages = trial_pages(s);
    if (s.phase != "none" && pages && s.pages != 0)
        o.str("param", s.param).object("value", amount(*pages));
    else o.null("param").null("value");
    o.boolean("healthy",
              s.phase == "booted" && s.healthy);  // not a journal word: a key of the answer
    const auto size = PageSize::from_bytes(s.page_size);
    const auto stored =
        size && !s.default_param.empty() ? Pages::from_count(s.default_pages, *size) : std::nullopt;
    if (stored)
        o.object("default",
                 JsonObject().str("param", s.default_param).object("value", amount(*stored)));
    else o.null("default");
    return o.str("source", kStateFile);
}

}  // namespace

std::string status_json(const SystemRoot& root,
                        const Expected<std::optional<units::MiB>>& hang_ceiling,
                        const PolicyText& policy, std::string_view journal,
                        std::string_view version) {
    SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    const auto ps = r.page_size.value;
    JsonObject o;
    o.str("schema", "wiredcap.linux-status/1").str("version", version);
    o.str("backend", kernel.backend_name())
        .boolean("simulated", !root.is_real())
        .str("root", root.root().string());
    o.object("page_size",
             sourced(r.page_size, [](PageSize p) { return JsonObject().num("bytes", p.bytes()); }));
    o.boolean("amdgpu_loaded", r.amdgpu_loaded);
    JsonObject module;
    if (r.module.value) module.str("value", kernel::module_name(*r.module.value));
    else module.null("value");
    module.str("source", r.module.source);
    if (r.module.value) module.str("how", r.module.note);
    else module.str("why_unknown", r.module.note);
    o.object("ttm_module", module);
    o.object("pages_limit", sourced(r.pages_limit, [](const Pages& p) { return amount(p); }));
    // A boot parameter that is not there is an answer (the kernel's default applies), not unknown.
    JsonObject param;
    if (r.cmdline_pages_limit.value) param.object("value", amount(*r.cmdline_pages_limit.value));
    else param.null("value");
    param.str("source", r.cmdline_pages_limit.source);
    if (!r.cmdline_pages_limit.value && !r.module.value)
        param.str("why_unknown", r.cmdline_pages_limit.note);
    o.object("boot_parameter", param);
    o.strings("ignored_parameters", r.ignored_parameters);
    JsonObject gtt;
    if (r.gttsize.value) gtt.str("value", "amdgpu.gttsize=" + *r.gttsize.value);
    else gtt.null("value");
    o.object("gttsize_conflict",
             gtt.str("source", r.gttsize.source.empty() ? "/proc/cmdline" : r.gttsize.source));
    o.object("gpu_cap", bytes_reading(r.gtt_total, ps));
    o.boolean("gpu_cap_matches_pages_limit",
              r.gtt_total.value && r.pages_limit.value &&
                  *r.gtt_total.value == r.pages_limit.value->to_bytes());
    o.object("kfd_memory", bytes_reading(r.kfd_mem_bank, ps));
    o.object("vram_carve_out", bytes_reading(r.vram_total, ps));
    o.object("mem_total", bytes_reading(r.mem_total, ps));
    o.object("band", band_json(r, policy));
    o.object("hang_ceiling", ceiling_json(hang_ceiling, ps, journal));
    o.object("boot_loader", boot_loader_json(root, r));
    o.object("trial", trial_json(root));
    return o.text();
}

}  // namespace wiredcap::linux_amd
