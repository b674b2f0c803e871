#include "wiredcap/cli/commands/fit_cmd.hpp"

#include <unistd.h>

#include <charconv>
#include <fmt/format.h>
#include <ostream>

#include "wiredcap/fit/printable.hpp"
#include "wiredcap/cli/commands/fit_picture.hpp"
#include "wiredcap/cli/output/memory_bar.hpp"
#include "wiredcap/cli/output/terminal_width.hpp"
#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/cli/readings/metal.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::fit {
namespace {

using units::Bytes;
using units::MiB;

constexpr std::uint64_t kMaxContext = 1u << 24;  // 16 Mi tokens: beyond any model's
constexpr std::uint64_t kMaxParallel = 4096;
constexpr std::uint64_t kMaxBatch = 1u << 20;  // llama.cpp's batches are a few thousand tokens

Expected<std::uint64_t> whole_number(const std::string& option, const std::string& text,
                                     std::uint64_t max) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > max)
        return Error{option + " takes a whole number from 1 to " + std::to_string(max) + ", not '" +
                     text + "'"};
    return v;
}

Expected<KvType> cache_type(const std::string& option, const std::string& text) {
    const auto t = kv_type_of(text);
    if (!t)
        return Error{option + " takes " + kv_type_names() + ", not " + units::quote_input(text)};
    return *t;
}

template <class T, class Parse>
std::optional<Error> parse_flag(const std::optional<std::string>& text, std::optional<T>& into,
                                Parse parse) {
    if (!text) return std::nullopt;
    auto v = parse(*text);
    if (!v) return v.error();
    into = *v;
    return std::nullopt;
}

Expected<RequestFlags> request_flags(const FitRequest& req) {
    RequestFlags f;
    const auto number = [](const char* option, std::uint64_t max) {
        return [=](const std::string& t) { return whole_number(option, t, max); };
    };
    if (auto e = parse_flag(req.context, f.context, number("--context", kMaxContext))) return *e;
    if (auto e = parse_flag(req.parallel, f.parallel, number("--parallel", kMaxParallel)))
        return *e;
    if (auto e = parse_flag(req.batch, f.batch, number("--batch", kMaxBatch))) return *e;
    if (auto e = parse_flag(req.ubatch, f.ubatch, number("--ubatch", kMaxBatch))) return *e;
    const auto k_text = req.kv_type_k ? req.kv_type_k : req.kv_type;
    const auto v_text = req.kv_type_v ? req.kv_type_v : req.kv_type;
    if (auto e = parse_flag(k_text, f.k_type, [&](const std::string& t) {
            return cache_type(req.kv_type_k ? "--kv-type-k" : "--kv-type", t);
        }))
        return *e;
    if (auto e = parse_flag(v_text, f.v_type, [&](const std::string& t) {
            return cache_type(req.kv_type_v ? "--kv-type-v" : "--kv-type", t);
        }))
        return *e;
    f.flash_attn = req.flash_attn;
    f.unified = req.kv_unified;
    return f;
}

Expected<std::optional<Runtime>> named_runtime(const FitRequest& req) {
    if (!req.runtime) return std::optional<Runtime>();
    const auto r = runtime_of(*req.runtime);
    if (!r)
        return Error{"--runtime takes " + runtime_names() + ", not " +
                     units::quote_input(*req.runtime)};
    return std::optional<Runtime>(*r);
}

// "4.59 GiB (4920739232 B)"; below a GiB in MiB. The two decimals are for orientation and
// round toward safety, as the JSON's MiB do: what the model needs up (4.5828 GiB reads 4.59, not
// a 4.58 it is above), a limit such as the cap down (units::truncated_decimal).
enum class Rounding { need, limit };

std::string size_text(Bytes b, Rounding r = Rounding::need) {
    const bool small = b < Bytes(units::GiB::from_count_or_throw(1));
    const auto unit = small ? units::SizeUnit::mebibytes : units::SizeUnit::gibibytes;
    const std::string figure = r == Rounding::need ? units::rounded_up_decimal(b, unit, 2)
                                                   : units::truncated_decimal(b, unit, 2);
    return figure + (small ? " MiB" : " GiB") + " (" + std::to_string(b.count()) + " B)";
}

constexpr std::string_view kHighestSource =
    "computed: policy max, memory minus the reserve, hang ceiling";
constexpr std::string_view kTotalSource =
    "computed: weights + KV cache + recurrent state + compute buffer";
constexpr std::string_view kRecurrentSource =
    "computed: state per recurrent layer and sequence, f32";

// The runtime the answer is for: its name, the version its defaults were read from, why it was
// chosen, and every value no flag gave, with its source.
JsonObject runtime_json(const RuntimeRequest& r) {
    const auto& d = runtime_defaults(r.runtime);
    std::string assumed = "[";
    for (const auto& x : r.assumptions)
        assumed += (assumed.size() > 1 ? "," : "") + JsonObject()
                                                         .str("setting", x.setting)
                                                         .str("value", x.value)
                                                         .str("source", x.source)
                                                         .text();
    assumed += "]";
    return JsonObject()
        .str("name", d.name)
        .str("defaults_version", d.version)
        .str("chosen_because", r.chosen_because)
        .boolean("projector_counted", r.projector_counted)
        .raw_array("assumed", assumed);
}

// Sizes as every answer gives them (json_contract.hpp): what the model needs in MiB rounded up,
// a limit rounded down, both toward safety.
void render_json(const FitAnswer& a, const std::string& path, std::ostream& out) {
    const auto& m = a.model;
    JsonObject model;
    model.str("path", path)
        .str("format", m.format_text)
        .str("architecture", m.arch.name)
        .strings("files", m.files);
    if (m.arch.trained_context) model.num("trained_context", *m.arch.trained_context);
    else model.null("trained_context");
    JsonObject o = cli::contract::head("wiredcap.fit/2");
    o.boolean("simulated", a.simulated);
    o.object("model", model);
    const auto& k = a.kv_request;
    o.object("request", JsonObject()
                            .num("context", k.context)
                            .num("parallel", k.parallel)
                            .str("kv_type", k.k_type == k.v_type ? kv_type_name(k.k_type) : "mixed")
                            .str("kv_type_k", kv_type_name(k.k_type))
                            .str("kv_type_v", kv_type_name(k.v_type))
                            .num("batch", k.batch)
                            .num("ubatch", k.ubatch)
                            .boolean("flash_attn", k.flash_attn)
                            .boolean("kv_unified", k.unified));
    o.object("runtime", runtime_json(a.runtime));
    // The exact bytes beside the MiB: what another reader of the same tensor table can check.
    o.object("weights", cli::contract::need_from_bytes(m.weights, m.weights_source)
                            .num("bytes", m.weights.count()));
    o.object("kv_cache", cli::contract::need_from_bytes(a.kv.total, m.arch.source)
                             .num("full_layers", a.kv.full_layers)
                             .num("window_layers", a.kv.window_layers)
                             .num("full_cells", a.kv.full_cells)
                             .num("window_cells", a.kv.window_cells)
                             .num("recurrent_layers", a.kv.recurrent_layers)
                             .num("uncached_layers", a.kv.uncached_layers)
                             .str("rule", m.arch.rule));
    o.object("recurrent_state", cli::contract::need_from_bytes(a.kv.recurrent, kRecurrentSource));
    // A rate, not a size: one token adds far less than a MiB, so this one figure counts bytes,
    // and its name says so.
    o.object("kv_bytes_per_token",
             JsonObject().num("value", a.kv.per_token.count()).str("source", m.arch.source));
    // The compute buffer, the one need beyond weights and cache: an estimate by a stated rule
    // (or the fixed fallback when the model does not give what the rule needs).
    o.object("overhead",
             cli::contract::need_from_bytes(a.compute.bytes, a.compute.basis)
                 .boolean("estimate", true)
                 .str("rule", a.compute.by_rule ? std::string(a.compute.rule) : "fixed fallback")
                 .num("micro_batch", a.compute.tokens)
                 .num("kv_cells", a.compute.kv_cells));
    o.object("total", cli::contract::need_from_bytes(a.total, kTotalSource));
    const auto& v = a.verdict;
    o.object("effective_cap",
             cli::contract::limit_from_bytes(
                 v.cap, v.cap ? v.cap_source : "Metal recommendedMaxWorkingSetSize", v.cap_source));
    o.object("highest",
             cli::contract::size(v.highest, kHighestSource,
                                 "the policy, the memory size or the hang ceiling is unknown"));
    o.str("verdict", verdict_name(v.verdict));
    // null: there is nothing to raise to (the verdict says why).
    if (v.recommended)
        o.object(
            "recommended",
            cli::contract::size(v.recommended,
                                "computed: total rounded up to whole GiB within the limits", ""));
    else o.null("recommended");
    if (v.command) o.str("command", *v.command);
    else o.null("command");
    if (v.why.empty()) o.null("why");
    else o.str("why", v.why);
    if (a.over_by)
        o.object("over_by", cli::contract::need_from_bytes(
                                *a.over_by, "computed: total minus the highest allowed"));
    else o.null("over_by");
    if (a.largest_context) o.num("largest_context", *a.largest_context);
    else o.null("largest_context");
    if (a.fitting_kv_type) o.str("fits_with_kv_type", kv_type_name(*a.fitting_kv_type));
    else o.null("fits_with_kv_type");
    o.boolean("fits_with_flash_attn", a.fits_with_flash_attn);
    o.strings("notes", m.arch.notes);
    out << o.text() << "\n";
}

// label, value, and its [source] on the same line when the 80 columns allow, else below.
void line(std::ostream& out, std::string_view label, const std::string& value,
          std::string_view source = {}) {
    const std::string head = fmt::format("{:<16}{}", label, value);
    if (source.empty()) out << head << "\n";
    else if (head.size() + 5 + source.size() <= 80) out << head << "   [" << source << "]\n";
    else out << head << "\n    [" << source << "]\n";
}

std::string verdict_text(const VerdictResult& v) {
    switch (v.verdict) {
        case Verdict::fits_now: return "fits under the cap the GPU has now";
        case Verdict::fits_after_raise:
            return "fits after raising the cap to " + units::describe(*v.recommended);
        case Verdict::does_not_fit: return "does not fit on this machine";
        case Verdict::unknown: break;
    }
    return "unknown";
}

// "24 full layers, 8 windowed, 36 recurrent, 1 without cache": only the kinds present.
std::string layer_counts(const KvEstimate& e) {
    std::string out = std::to_string(e.full_layers) + " full layers";
    if (e.window_layers != 0) out += ", " + std::to_string(e.window_layers) + " windowed";
    if (e.recurrent_layers != 0) out += ", " + std::to_string(e.recurrent_layers) + " recurrent";
    if (e.uncached_layers != 0) out += ", " + std::to_string(e.uncached_layers) + " without cache";
    return out;
}

void render_human(const FitAnswer& a, const std::string& path, std::ostream& out) {
    const auto& m = a.model;
    const auto& k = a.kv_request;
    if (a.simulated)
        out << "SIMULATED Mac: the cap and memory below are readings of the simulator\n";
    line(out, "model", printable_path(path));
    std::string about = m.format_text + ", " + m.arch.name + ", " + std::to_string(m.files.size()) +
                        (m.files.size() == 1 ? " file" : " files");
    if (m.arch.trained_context)
        about += "; trained context " + std::to_string(*m.arch.trained_context);
    line(out, "", about);
    const auto& d = runtime_defaults(a.runtime.runtime);
    line(out, "runtime", std::string(d.name) + ", defaults of " + std::string(d.version),
         "chosen by " + a.runtime.chosen_because);
    // The values no flag gave, on one line; each one's source is in --json (runtime.assumed)
    // and in docs/fit-runtimes.md.
    std::string assumed;
    for (const auto& x : a.runtime.assumptions)
        assumed += (assumed.empty() ? "" : ", ") + x.setting + " " + x.value;
    if (!assumed.empty()) line(out, "assumed", assumed, "sources: --json runtime.assumed");
    line(out, "weights", size_text(m.weights), m.weights_source);
    line(out, "KV cache", size_text(a.kv.total), m.arch.source);
    line(out, "",
         fmt::format("{} tokens {} {} sequence{}, {}; {}", k.context, k.unified ? "shared by" : "x",
                     k.parallel, k.parallel == 1 ? "" : "s", cache_types(k), layer_counts(a.kv)));
    line(out, "rule", m.arch.rule);
    if (a.kv.recurrent_layers != 0)
        line(out, "recurrent", size_text(a.kv.recurrent), kRecurrentSource);
    line(out, "per token",
         std::to_string(a.kv.per_token.count()) + " B of KV cache per token of context");
    line(out, "compute buffer", size_text(a.compute.bytes), a.compute.basis);
    line(out, "total", size_text(a.total));
    const auto& v = a.verdict;
    line(out, "effective cap",
         v.cap ? size_text(*v.cap, Rounding::limit) : "unknown (" + v.cap_source + ")",
         v.cap ? v.cap_source : "");
    line(out, "highest allowed", v.highest ? units::describe(*v.highest) : "unknown",
         kHighestSource);
    // The need against the cap in force, in MiB both, and as bars of physical memory.
    const NeedVsCap nvc{a.total, v.cap, v.cap_source, a.memsize};
    line(out, "need vs cap", need_vs_cap_text(nvc),
         "need: computed, rounded up; cap: " + v.cap_source);
    for (const auto& row :
         need_vs_cap_bars(nvc, cli::output_width(STDOUT_FILENO), cli::glyphs_for(STDOUT_FILENO)))
        out << row << "\n";
    for (const auto& n : m.arch.notes) line(out, "note", n);
    line(out, "verdict", verdict_text(v));
    if (!v.why.empty()) line(out, "", v.why);
    if (a.over_by) line(out, "over by", size_text(*a.over_by));
    if (a.largest_context)
        line(out, "would fit",
             fmt::format("{} tokens of context ({})", *a.largest_context, cache_types(k)));
    if (a.fitting_kv_type)
        line(out, a.largest_context ? "or" : "would fit",
             fmt::format("{} tokens with --kv-type {}", k.context,
                         kv_type_name(*a.fitting_kv_type)));
    if (a.fits_with_flash_attn)
        line(out, a.largest_context || a.fitting_kv_type ? "or" : "would fit",
             fmt::format("{} tokens with --flash-attn (if the runtime uses it)", k.context));
    if (v.command) line(out, "run", *v.command);
    else if (v.verdict == Verdict::fits_now) line(out, "run", "nothing: the cap already allows it");
}

// What the model needs at a request: weights + KV cache + recurrent state + compute buffer.
std::optional<Bytes> total_of(const ModelInfo& m, const KvEstimate& kv, const ComputeEstimate& c) {
    const auto a = checked_add(m.weights, kv.total);
    const auto b = a ? checked_add(*a, kv.recurrent) : std::nullopt;
    return b ? checked_add(*b, c.bytes) : std::nullopt;
}

std::optional<Bytes> total_at(const ModelInfo& m, Runtime rt, const KvRequest& r) {
    const auto kv = estimate_kv(m.arch, r);
    const auto c =
        kv ? estimate_compute_for(rt, m.arch, r, *kv) : Expected<ComputeEstimate>(Error{""});
    return c ? total_of(m, *kv, *c) : std::nullopt;
}

// For a model that does not fit: how far over the highest allowed value it is, the largest
// context that fits under it (the need grows with the context, so a bisection finds it), and
// the first smaller cache type that fits at the context asked. The band's floor must fit too.
void what_would_fit(FitAnswer& a, const std::optional<cli::PolicyView>& policy) {
    const auto& v = a.verdict;
    if (v.verdict != Verdict::does_not_fit || !v.highest) return;
    const Bytes limit(*v.highest);
    a.over_by = checked_sub(a.total, limit);
    if (policy && policy->min > *v.highest) return;
    const auto fits = [&](const KvRequest& r) {
        const auto t = total_at(a.model, a.runtime.runtime, r);
        return t && *t <= limit;
    };
    KvRequest r = a.kv_request;
    std::uint64_t lo = 0;  // fits (no context at all is the weights alone: checked below)
    std::uint64_t hi = r.context;
    r.context = 1;
    if (fits(r)) {
        lo = 1;
        while (hi - lo > 1) {
            r.context = lo + (hi - lo) / 2;
            (fits(r) ? lo : hi) = r.context;
        }
        a.largest_context = lo;
    }
    if (!a.kv_request.flash_attn) {
        KvRequest f = a.kv_request;
        f.flash_attn = true;
        a.fits_with_flash_attn = fits(f);
    }
    for (const KvType t : {KvType::q8_0, KvType::q4_0}) {
        KvRequest q = a.kv_request;
        if (kv_type_bytes_per_256(t) >= kv_type_bytes_per_256(q.k_type) &&
            kv_type_bytes_per_256(t) >= kv_type_bytes_per_256(q.v_type))
            continue;
        q.k_type = q.v_type = t;
        if (fits(q)) {
            a.fitting_kv_type = t;
            return;
        }
    }
}

}  // namespace

std::string cache_types(const KvRequest& k) {
    if (k.k_type == k.v_type) return std::string(kv_type_name(k.k_type));
    return "K " + std::string(kv_type_name(k.k_type)) + ", V " +
           std::string(kv_type_name(k.v_type));
}

Expected<FitAnswer, FitError> analyse(const cli::CliContext& ctx, const FitRequest& req) {
    auto flags = request_flags(req);
    if (!flags) return FitError{ExitCode::usage, flags.error().message};
    auto named = named_runtime(req);
    if (!named) return FitError{ExitCode::usage, named.error().message};
    auto model = read_model(req.path);
    if (!model) return FitError{ExitCode::usage, model.error().message};
    auto machine = cli::read_machine(ctx.helper);
    if (!machine) return FitError{ExitCode::internal_error, machine.error().message};
    const auto metal = cli::read_metal(*machine, ctx.helper.dev());
    // The runtime's request: its defaults, the model's own settings, the environment, the flags.
    auto rt = runtime_request(*named, *flags, *model, metal.working_set, machine->memsize.value,
                              OllamaEnvironment::from_process());
    if (!rt) return FitError{ExitCode::usage, rt.error().message};
    const KvRequest kvr = rt->request;
    if (rt->projector_counted) {
        // The runtime loads the projector with the model: its weights are part of the need.
        const auto sum = checked_add(model->weights, model->projector);
        if (!sum) return FitError{ExitCode::usage, "the model's total size overflows 64 bits"};
        model->weights = *sum;
        model->weights_source += " + projector";
        model->files.insert(model->files.end(), model->projector_files.begin(),
                            model->projector_files.end());
    }
    auto kv = estimate_kv(model->arch, kvr);
    if (!kv) return FitError{ExitCode::usage, kv.error().message};
    auto compute = estimate_compute_for(rt->runtime, model->arch, kvr, *kv);
    if (!compute) return FitError{ExitCode::usage, compute.error().message};
    const auto total = total_of(*model, *kv, *compute);
    if (!total) return FitError{ExitCode::usage, "the model's total size overflows 64 bits"};
    if (const auto trained = model->arch.trained_context;
        trained && !kvr.unified && kvr.context > *trained)
        model->arch.notes.push_back("--context " + std::to_string(kvr.context) + " is above the " +
                                    std::to_string(*trained) +
                                    " tokens the model was trained on: past them its "
                                    "output degrades unless its rope scaling extends it");
    for (auto& n : rt->notes) model->arch.notes.push_back(n);
    FitAnswer a{std::move(*model),
                std::move(*rt),
                kvr,
                *kv,
                std::move(*compute),
                *total,
                false,
                {},
                {},
                {},
                {},
                false,
                {}};
    a.simulated = machine->simulated();
    a.memsize = machine->memsize.value;
    VerdictInput in{a.total, machine->knob.value, metal.working_set, machine->memsize.value,
                    machine->policy};
    // A value that hung binds the advice as it binds the ramp: fit never suggests a ramp that
    // would be refused. An unreadable journal leaves it unknown (no advice), as the ramp refuses.
    if (auto contents = journal_view::read_journal(cli::journal_path(ctx.helper.dev()))) {
        const auto report =
            recovery::analyse(contents->entries, machine->boot_id.value.value_or(""));
        if (report.hang_ceiling) in.hang_ceiling = report.hang_ceiling->value;
    } else {
        in.hang_unknown = contents.error().message;
    }
    a.verdict = decide(in, metal.source);
    if (!metal.working_set && !a.verdict.cap) a.verdict.cap_source = metal.why_unknown;
    what_would_fit(a, machine->policy);
    return a;
}

ExitCode check_exit_code(Verdict v) {
    switch (v) {
        case Verdict::fits_now: return ExitCode::ok;
        case Verdict::fits_after_raise: return ExitCode::raise_needed;
        case Verdict::does_not_fit: return ExitCode::refused_by_policy;
        case Verdict::unknown: break;
    }
    return ExitCode::internal_error;
}

ExitCode run_fit(cli::CliContext& ctx, const FitRequest& req) {
    auto a = analyse(ctx, req);
    if (!a) {
        return cli::fail(ctx.err, "fit", a.error().code, a.error().message);
    }
    if (ctx.json) render_json(*a, req.path, ctx.out);
    else render_human(*a, req.path, ctx.out);
    return req.check ? check_exit_code(a->verdict.verdict) : ExitCode::ok;
}

}  // namespace wiredcap::fit
