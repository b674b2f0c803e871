#include "commands/fit_cmd.hpp"

#include <charconv>
#include <fmt/format.h>
#include <ostream>

#include "wiredcap/fit/overhead.hpp"
#include "engine/recovery.hpp"
#include "readings/journal_reader.hpp"
#include "readings/metal.hpp"
#include "readings/readings.hpp"
#include "json_contract.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::fit {
namespace {

using units::Bytes;
using units::MiB;

constexpr std::uint64_t kMaxContext = 1u << 24;  // 16 Mi tokens: beyond any model's
constexpr std::uint64_t kMaxParallel = 4096;

Expected<std::uint64_t> whole_number(const std::string& option, const std::string& text, std::uint64_t max) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size() || v == 0 || v > max)
        return Error{option + " takes a whole number from 1 to " + std::to_string(max) + ", not '" + text + "'"};
    return v;
}

Expected<KvRequest> kv_request(const FitRequest& req) {
    KvRequest r;
    auto ctx = whole_number("--context", req.context, kMaxContext);
    if (!ctx) return ctx.error();
    auto par = whole_number("--parallel", req.parallel, kMaxParallel);
    if (!par) return par.error();
    const auto type = kv_type_of(req.kv_type);
    if (!type) return Error{"--kv-type takes f16, q8_0 or q4_0, not '" + req.kv_type + "'"};
    r.context = *ctx;
    r.parallel = *par;
    r.type = *type;
    return r;
}

// "4.58 GiB (4920739232 B)"; below a GiB in MiB.
std::string size_text(Bytes b) {
    const bool small = b < Bytes(units::GiB::from_count_or_throw(1));
    const std::string head = small ? units::rounded_decimal(b, units::SizeUnit::mebibytes, 2) + " MiB"
                                   : units::rounded_decimal(b, units::SizeUnit::gibibytes, 2) + " GiB";
    return head + " (" + std::to_string(b.count()) + " B)";
}

constexpr std::string_view kHighestSource = "computed: policy max, memory minus the reserve, hang ceiling";
constexpr std::string_view kTotalSource = "computed: weights + KV cache + overhead";

// Sizes as every answer gives them (json_contract.hpp): what the model needs in MiB rounded up,
// a limit rounded down, both toward safety.
void render_json(const FitAnswer& a, const std::string& path, std::ostream& out) {
    const auto& m = a.model;
    JsonObject model;
    model.str("path", path).str("format", m.format_text).str("architecture", m.arch.name).strings("files", m.files);
    if (m.arch.trained_context) model.num("trained_context", *m.arch.trained_context); else model.null("trained_context");
    JsonObject o = cli::contract::head("wiredcap.fit/2");
    o.boolean("simulated", a.simulated);
    o.object("model", model);
    o.object("request", JsonObject().num("context", a.kv_request.context).num("parallel", a.kv_request.parallel)
                            .str("kv_type", kv_type_name(a.kv_request.type)));
    o.object("weights", cli::contract::need_from_bytes(m.weights, m.weights_source));
    o.object("kv_cache", cli::contract::need_from_bytes(a.kv.total, m.arch.source).num("full_layers", a.kv.full_layers)
                             .num("window_layers", a.kv.window_layers).num("full_cells", a.kv.full_cells)
                             .num("window_cells", a.kv.window_cells));
    // A rate, not a size: one token adds far less than a MiB, so this one figure counts bytes,
    // and its name says so.
    o.object("kv_bytes_per_token", JsonObject().num("value", a.kv.per_token.count()).str("source", m.arch.source));
    o.object("overhead", cli::contract::need_from_bytes(kOverhead, kOverheadSource).boolean("estimate", true));
    o.object("total", cli::contract::need_from_bytes(a.total, kTotalSource));
    const auto& v = a.verdict;
    o.object("effective_cap", cli::contract::limit_from_bytes(v.cap, v.cap ? v.cap_source : "Metal recommendedMaxWorkingSetSize",
                                                              v.cap_source));
    o.object("highest", cli::contract::size(v.highest, kHighestSource, "the policy, the memory size or the hang ceiling is unknown"));
    o.str("verdict", verdict_name(v.verdict));
    // null: there is nothing to raise to (the verdict says why).
    if (v.recommended) o.object("recommended", cli::contract::size(v.recommended, "computed: total rounded up to whole GiB within the limits", ""));
    else o.null("recommended");
    if (v.command) o.str("command", *v.command); else o.null("command");
    if (v.why.empty()) o.null("why"); else o.str("why", v.why);
    o.strings("notes", m.arch.notes);
    out << o.text() << "\n";
}

// label, value, and its [source] on the same line when the 80 columns allow, else below.
void line(std::ostream& out, std::string_view label, const std::string& value, std::string_view source = {}) {
    const std::string head = fmt::format("{:<16}{}", label, value);
    if (source.empty()) out << head << "\n";
    else if (head.size() + 5 + source.size() <= 80) out << head << "   [" << source << "]\n";
    else out << head << "\n    [" << source << "]\n";
}

std::string verdict_text(const VerdictResult& v) {
    switch (v.verdict) {
        case Verdict::fits_now: return "fits under the cap the GPU has now";
        case Verdict::fits_after_raise: return "fits after raising the cap to " + units::describe(*v.recommended);
        case Verdict::does_not_fit: return "does not fit on this machine";
        case Verdict::unknown: break;
    }
    return "unknown";
}

void render_human(const FitAnswer& a, const std::string& path, std::ostream& out) {
    const auto& m = a.model;
    const auto& k = a.kv_request;
    if (a.simulated) out << "SIMULATED Mac: the cap and memory below are readings of the simulator\n";
    line(out, "model", path);
    std::string about = m.format_text + ", " + m.arch.name + ", " + std::to_string(m.files.size()) +
                        (m.files.size() == 1 ? " file" : " files");
    if (m.arch.trained_context) about += "; trained context " + std::to_string(*m.arch.trained_context);
    line(out, "", about);
    line(out, "weights", size_text(m.weights), m.weights_source);
    line(out, "KV cache", size_text(a.kv.total), m.arch.source);
    line(out, "", fmt::format("{} tokens x {} sequence{}, {}; {} full layers, {} windowed", k.context, k.parallel,
                              k.parallel == 1 ? "" : "s", kv_type_name(k.type), a.kv.full_layers, a.kv.window_layers));
    line(out, "per token", std::to_string(a.kv.per_token.count()) + " B of KV cache per token of context");
    line(out, "overhead", size_text(kOverhead), kOverheadSource);
    line(out, "total", size_text(a.total));
    const auto& v = a.verdict;
    line(out, "effective cap", v.cap ? size_text(*v.cap) : "unknown (" + v.cap_source + ")", v.cap ? v.cap_source : "");
    line(out, "highest allowed", v.highest ? units::describe(*v.highest) : "unknown", kHighestSource);
    for (const auto& n : m.arch.notes) line(out, "note", n);
    line(out, "verdict", verdict_text(v));
    if (!v.why.empty()) line(out, "", v.why);
    if (v.command) line(out, "run", *v.command);
    else if (v.verdict == Verdict::fits_now) line(out, "run", "nothing: the cap already allows it");
}

}  // namespace

Expected<FitAnswer, FitError> analyse(const cli::CliContext& ctx, const FitRequest& req) {
    auto kvr = kv_request(req);
    if (!kvr) return FitError{ExitCode::usage, kvr.error().message};
    auto model = read_model(req.path);
    if (!model) return FitError{ExitCode::usage, model.error().message};
    auto kv = estimate_kv(model->arch, *kvr);
    if (!kv) return FitError{ExitCode::usage, kv.error().message};
    const auto with_kv = checked_add(model->weights, kv->total);
    const auto total = with_kv ? checked_add(*with_kv, kOverhead) : std::nullopt;
    if (!total) return FitError{ExitCode::usage, "the model's total size overflows 64 bits"};
    FitAnswer a{std::move(*model), *kvr, *kv, *total, false, {}};
    auto machine = cli::read_machine(ctx.helper);
    if (!machine) return FitError{ExitCode::internal_error, machine.error().message};
    const auto metal = cli::read_metal(*machine, ctx.helper.dev());
    a.simulated = machine->simulated();
    VerdictInput in{a.total, machine->knob.value, metal.working_set, machine->memsize.value, machine->policy};
    // A value that hung binds the advice as it binds the ramp: fit never suggests a ramp that
    // would be refused. An unreadable journal leaves it unknown (no advice), as the ramp refuses.
    if (auto contents = journal_view::read_journal(cli::journal_path(ctx.helper.dev()))) {
        const auto report = recovery::analyse(contents->entries, machine->boot_id.value.value_or(""));
        if (report.hang_ceiling) in.hang_ceiling = report.hang_ceiling->value;
    } else {
        in.hang_unknown = contents.error().message;
    }
    a.verdict = decide(in, metal.source);
    if (!metal.working_set && !a.verdict.cap) a.verdict.cap_source = metal.why_unknown;
    return a;
}

ExitCode run_fit(cli::CliContext& ctx, const FitRequest& req) {
    auto a = analyse(ctx, req);
    if (!a) {
        ctx.err << "wiredcap fit: " << a.error().message << "\n";
        return a.error().code;
    }
    if (ctx.json) render_json(*a, req.path, ctx.out);
    else render_human(*a, req.path, ctx.out);
    return ExitCode::ok;
}

}  // namespace wiredcap::fit
