#include "wiredcap/cli/commands/policy_check.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fmt/format.h>
#include <ostream>

#include "wiredcap/cli/commands/policy_cause.hpp"
#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/policy/policy.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/json_writer.hpp"
#include "wiredcap/unique_fd.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/cli/fail.hpp"

#ifndef WIREDCAP_POLICY_PATH
#define WIREDCAP_POLICY_PATH "/etc/wiredcap.conf"
#endif

namespace wiredcap::cli {
namespace {

using units::MiB;

// A file that is not installed yet: read it as it is (no ownership rules), but never through
// a symlink, never a FIFO or device, never more than the helper would read.
Expected<std::string> read_candidate(const std::string& path) {
    UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC));
    if (!fd.valid()) return Error{path + ": " + std::strerror(errno)};
    struct stat st {};
    if (::fstat(fd.get(), &st) != 0) return Error{path + ": " + std::strerror(errno)};
    if (!S_ISREG(st.st_mode)) return Error{path + " is not a regular file"};
    if (static_cast<std::size_t>(st.st_size) > policy::kMaxPolicyBytes)
        return Error{path + " is larger than " + std::to_string(policy::kMaxPolicyBytes) +
                     " bytes"};
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    const ssize_t n = ::read(fd.get(), text.data(), text.size());
    if (n < 0) return Error{path + ": " + std::strerror(errno)};
    text.resize(static_cast<std::size_t>(n));
    return text;
}

// The installed file: exactly the helper's trusted read, with root as the owner it requires.
// nullopt when there is none: the helper then uses its built-in band, which is not an error.
Expected<std::optional<std::string>> read_installed(const std::string& path) {
    return trusted::read_file(path, 0, policy::kMaxPolicyBytes);
}

std::string row(std::string_view key, MiB v) {
    return fmt::format("  {:<9}{:>10} MiB {:>10} GiB {:>10} GB\n", key, v.count(),
                       units::truncated_decimal(v, units::SizeUnit::gibibytes, 2),
                       units::truncated_decimal(v, units::SizeUnit::gigabytes, 2));
}

// The band's four sizes, as every JSON answer gives sizes: integers, in MiB.
JsonObject& add_band(JsonObject& o, MiB min, MiB max, MiB reserve, MiB max_step) {
    return o.num("min_mib", min.count())
        .num("max_mib", max.count())
        .num("reserve_mib", reserve.count())
        .num("max_step_mib", max_step.count());
}

// No installed policy file: not invalid. The helper then uses the built-in band, or, on a Mac
// too small for it, permits only reset until a policy file is written. Either way exit 0, so
// that `wiredcap policy check && wiredcap status` works on a fresh install.
ExitCode report_no_file(CliContext& ctx, const std::string& path, const MachineReadings& machine) {
    const auto band = policy::builtin(*machine.memsize.value);
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.policy-check/2");
        o.str("file", path).boolean("exists", false).boolean("valid", true);
        if (band) {
            o.str("band_source", "built-in default");
            add_band(o, band->min, band->max, band->reserve, band->max_step).null("group");
        } else {
            o.null("band_source").str("why_no_band", band.error().message);
        }
        ctx.out << o.text() << "\n";
        return ExitCode::ok;
    }
    ctx.out << "no policy file at " << path << ": nothing to check\n";
    if (!band) {
        ctx.out << "  " << band.error().message << "; reset works\n";
        return ExitCode::ok;
    }
    ctx.out << "the helper's built-in band applies [built-in default]:\n";
    ctx.out << row("min", band->min) << row("max", band->max) << row("reserve", band->reserve)
            << row("max_step", band->max_step);
    ctx.out << "  group    (none: only root may change the cap)\n";
    return ExitCode::ok;
}

}  // namespace

std::string installed_policy_path(const DevPaths& dev) {
    return dev.policy.value_or(WIREDCAP_POLICY_PATH);
}

ExitCode run_policy_check(CliContext& ctx, const std::optional<std::string>& file) {
    const std::string installed = installed_policy_path(ctx.helper.dev());
    const std::string path = file.value_or(installed);
    const bool is_installed = path == installed;
    auto machine = read_machine(ctx.helper);
    if (!machine || !machine->memsize.value) {
        return fail(ctx.err, "policy check", ExitCode::internal_error,
                    "cannot read physical memory: ",
                    (machine ? machine->memsize.error : machine.error().message));
    }
    Expected<std::string> text = Error{""};
    if (is_installed) {
        auto installed_text = read_installed(path);
        if (installed_text && !installed_text->has_value())
            return report_no_file(ctx, path, *machine);
        text = installed_text ? Expected<std::string>(**installed_text)
                              : Expected<std::string>(installed_text.error());
    } else {
        text = read_candidate(path);
    }
    // Read errors already name the file; parse errors name the line, so add the file.
    auto parsed = text ? policy::parse(*text, *machine->memsize.value)
                       : Expected<policy::Policy>(text.error());
    if (!parsed && text) parsed = Error{path + ": " + parsed.error().message};
    if (!parsed) {
        // A file that is not there, or cannot be read, is not a malformed one (docs/design.md §5).
        const PolicyFileState state = text ? PolicyFileState::present : policy_file_state(path);
        const ExitCode code = state == PolicyFileState::no_file      ? ExitCode::policy_missing
                              : state == PolicyFileState::unreadable ? ExitCode::policy_unreadable
                                                                     : ExitCode::policy_invalid;
        if (ctx.json)
            ctx.out << contract::head("wiredcap.policy-check/2")
                           .str("file", path)
                           .boolean("valid", false)
                           .str("error", parsed.error().message)
                           .text()
                    << "\n";
        return fail(ctx.err, "policy check", code, parsed.error().message);
    }
    const auto& p = *parsed;
    const std::string mem_source =
        std::string("kernel hw.memsize") + (machine->simulated() ? ", SIMULATED" : "");
    if (ctx.json) {
        JsonObject o = contract::head("wiredcap.policy-check/2");
        o.str("file", path)
            .boolean("exists", true)
            .boolean("valid", true)
            .boolean("ownership_checked", is_installed);
        o.str("band_source", is_installed ? "policy file " + path : "candidate file " + path);
        add_band(o, p.min, p.max, p.reserve, p.max_step);
        if (p.group) o.str("group", *p.group);
        else o.null("group");
        if (p.vouched)
            o.num("vouched_mib", p.vouched->count())
                .str("vouched_note", p.vouched_note)
                .str("sha256", p.sha256);
        o.object("memsize", contract::limit_from_bytes(machine->memsize.value, mem_source, ""));
        o.strings("warnings", p.warnings);
        ctx.out << o.text() << "\n";
    } else {
        ctx.out
            << "policy file " << path << ": valid"
            << (is_installed
                    ? " (installed file: ownership and permissions checked as the helper checks them)"
                    : " (not the installed file: ownership not checked)")
            << "\n";
        ctx.out << row("min", p.min) << row("max", p.max) << row("reserve", p.reserve)
                << row("max_step", p.max_step);
        ctx.out << "  group    " << p.group.value_or("(none: only root may change the cap)")
                << "\n";
        if (p.vouched)
            ctx.out << row("vouched", *p.vouched) << "  note     "
                    << (p.vouched_note.empty() ? "(none)" : p.vouched_note) << "\n  sha256   "
                    << p.sha256 << "\n  the vouched value may be set from any cap in one write"
                    << " (no max_step)\n";
        ctx.out << "  checked against physical memory "
                << units::describe(units::floor_cast<MiB>(*machine->memsize.value)) << "   ["
                << mem_source << "]\n";
    }
    for (const auto& w : p.warnings) ctx.err << "warning: " << w << "\n";
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
