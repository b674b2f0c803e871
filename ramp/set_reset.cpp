#include "set_reset.hpp"

#include <unistd.h>

#include <iostream>
#include <ostream>

#include "readings.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

std::optional<std::uint64_t> reading_mib(const json::Value& j, std::string_view key) {
    const json::Value* r = json::get(j, key);
    const json::Value* v = r ? json::get(*r, "value") : nullptr;
    return v ? json::as_u64(*v) : std::nullopt;
}

JsonObject mib_reading(std::optional<std::uint64_t> mib, std::string_view source) {
    JsonObject o;
    if (mib) o.num("mib", *mib); else o.null("mib");
    return o.str("source", source);
}

// The knob as the helper's `read` reports it now, or why it cannot say.
struct KnobNow {
    std::optional<std::uint64_t> mib;
    std::string why_unknown;
};

KnobNow reread_knob(const CliContext& ctx) {
    const HelperReply r = ctx.helper.run({"read"});
    if (!r.json) return KnobNow{std::nullopt, r.error.empty() ? "the helper gave no answer" : r.error};
    if (auto v = reading_mib(*r.json, "wired_limit_mib")) return KnobNow{v, {}};
    const json::Value* wl = json::get(*r.json, "wired_limit_mib");
    const json::Value* err = wl ? json::get(*wl, "error") : nullptr;
    return KnobNow{std::nullopt, err && json::as_string(*err) ? *json::as_string(*err) : "the helper reported no value"};
}

// Reports the helper's answer: the value read back, never the value requested. When the change
// failed without a read-back (a refused write, exit 5), the kernel is asked again: the report
// names what it holds now (or why that is unknown), and a change only if the readings show one.
ExitCode report(CliContext& ctx, const HelperReply& reply, std::string_view verb) {
    if (!reply.json) {
        ctx.err << "wiredcap " << verb << ": " << reply.error << "\n";
        return reply.code() == ExitCode::ok ? ExitCode::internal_error : reply.code();
    }
    const json::Value& j = *reply.json;
    auto readback = reading_mib(j, "readback_mib");
    std::string source = "kernel read-back";
    std::string why_unknown;
    if (!reply.ok() && !readback) {
        const KnobNow now = reread_knob(ctx);
        readback = now.mib;
        source = "kernel";
        why_unknown = now.why_unknown;
    }
    const auto previous = reading_mib(j, "previous_mib");
    const bool changed = readback && previous && *readback != *previous;
    // A plain reset also forgets the value stored for boot; only the helper knows if there was one.
    // Two plain bools, not an optional<bool>: GCC 12 at -O2 reports the optional's flag as
    // maybe-uninitialized (a false positive that -Werror turned into a broken release build).
    const json::Value* forgot = json::get(j, "persist_removed");
    const bool persist_known = forgot && json::as_bool(*forgot);
    const bool persist_removed = persist_known && *json::as_bool(*forgot);
    const json::Value* backend = json::get(j, "backend");
    const bool simulated = backend && json::as_string(*backend) && *json::as_string(*backend) == "simulated";
    if (ctx.json) {
        JsonObject o;
        o.str("schema", "wiredcap.change/1").str("command", verb).boolean("ok", reply.ok()).boolean("simulated", simulated);
        JsonObject now = mib_reading(readback, source);
        if (!readback && !why_unknown.empty()) now.str("error", why_unknown);
        o.object("previous", mib_reading(previous, "kernel read-back")).object("wired_limit", now).boolean("changed", changed);
        if (const json::Value* req = json::get(j, "requested_mib"); req && json::as_u64(*req)) o.num("requested_mib", *json::as_u64(*req));
        if (persist_known) o.boolean("persist_removed", persist_removed);
        if (!reply.ok()) o.num("exit", static_cast<std::uint64_t>(to_int(reply.code()))).str("error", reply.error);
        ctx.out << o.text() << "\n";
    }
    if (!reply.ok()) {
        ctx.err << "wiredcap " << verb << ": " << reply.error << "\n";
        if (readback) ctx.err << "iogpu.wired_limit_mb now reads " << *readback << " MiB [" << source << "]\n";
        else if (!why_unknown.empty()) ctx.err << "iogpu.wired_limit_mb now: unknown (" << why_unknown << ")\n";
        return reply.code();
    }
    if (!readback) {
        ctx.err << "wiredcap " << verb << ": the helper reported no read-back\n";
        return ExitCode::internal_error;
    }
    if (ctx.json) return ExitCode::ok;
    const MiB now = *MiB::from_count(*readback);
    const std::string value = now.count() == 0 ? "0 (OS default policy)" : units::describe(now);
    ctx.out << (simulated ? "SIMULATED " : "") << "iogpu.wired_limit_mb = " << value << "   [kernel read-back]\n";
    if (!changed) ctx.out << "unchanged: the kernel already held this value\n";
    else ctx.out << "Running MLX, Ollama or llama.cpp processes keep the old cap until restarted.\n";
    if (persist_removed) ctx.out << "also forgot the value stored for boot\n";
    return ExitCode::ok;
}

// A raise without a terminal needs --yes.
ExitCode no_terminal(CliContext& ctx, MiB from, MiB to) {
    ctx.err << "wiredcap set: raising the cap from " << units::to_string(from) << " to " << units::to_string(to)
            << " needs confirmation; no terminal to ask on, so pass --yes\n";
    return ExitCode::usage;
}

// A raise from a terminal asks first.
bool confirmed_raise(CliContext& ctx, MiB from, MiB to) {
    ctx.err << "Raise iogpu.wired_limit_mb from " << (from.count() == 0 ? "the OS default" : units::describe(from))
            << " to " << units::describe(to) << "? Type yes to continue: " << std::flush;
    std::string answer;
    if (!std::getline(std::cin, answer) || answer != "yes") {
        ctx.err << "not changed\n";
        return false;
    }
    return true;
}

}  // namespace

ExitCode run_set(CliContext& ctx, const SetRequest& req, int tty_in_fd) {
    if (req.size == "default") return run_reset(ctx);
    auto value = units::parse_size_as<MiB>(req.size);
    if (!value) {
        ctx.err << "wiredcap set: " << value.error().message << "\n";
        return ExitCode::usage;
    }
    if (value->count() == 0) {
        ctx.err << "wiredcap set: 0 means the OS default to the kernel; write 'default' (or use reset)\n";
        return ExitCode::usage;
    }
    auto machine = read_machine(ctx.helper);
    if (!machine) {
        ctx.err << "wiredcap set: " << machine.error().message << "\n";
        return ExitCode::internal_error;
    }
    const auto& current = machine->knob.value;
    const bool raise = !current || current->count() == 0 || *value > *current;
    if (raise && !req.yes) {
        // No terminal to ask on is a usage error (pass --yes); a person saying no is not.
        if (::isatty(tty_in_fd) == 0) return no_terminal(ctx, current.value_or(MiB::zero()), *value);
        if (!confirmed_raise(ctx, current.value_or(MiB::zero()), *value)) return ExitCode::declined;
    }
    return report(ctx, ctx.helper.run({"apply", units::to_string(*value)}), "set");
}

ExitCode run_reset(CliContext& ctx) { return report(ctx, ctx.helper.run({"reset"}), "reset"); }

}  // namespace wiredcap::cli
