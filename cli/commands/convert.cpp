#include "wiredcap/cli/commands/convert.hpp"

#include <fmt/format.h>

#include <ostream>

#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/units/units.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::SizeUnit;

// The input as echoed in the output: as typed, unless it is long (an accepted size can be
// 100 KB of fraction zeros); then cut, with its length, as every message quotes input.
std::string shown(const std::string& input) {
    constexpr std::size_t kMaxShown = 48;
    return input.size() <= kMaxShown ? input : units::quote_input(input);
}

ExitCode fail(std::ostream& err, const std::string& message) {
    return cli::fail(err, "convert", ExitCode::usage, message);
}

// With --to: one exact value, or the nearest-values error.
ExitCode convert_to(const ConvertRequest& req, std::ostream& out, std::ostream& err) {
    const auto target = units::unit_from_symbol(*req.to_unit);
    if (!target)
        return fail(
            err,
            fmt::format("--to {}: unknown unit; accepted units (case-sensitive): {}, e.g. --to MiB",
                        units::quote_input(*req.to_unit), units::kAcceptedUnitList));
    const auto count = units::parse_count_in(req.size, *target);
    if (!count) return fail(err, count.error().message);
    const auto sym = units::info(*target).symbol;
    if (req.json)
        out << contract::head("wiredcap.convert/2")
                   .str("source", "computed")
                   .str("input", shown(req.size))
                   .str("unit", sym)
                   .num("count", *count)
                   .text()
            << "\n";
    else out << *count << " " << sym << "\n";
    return ExitCode::ok;
}

// Without --to: what iogpu.wired_limit_mb needs (MiB) plus GiB, GB and bytes, all exact. A
// size that is not a whole number of MiB cannot be given to the kernel, so it is an error.
ExitCode convert_for_admin(const ConvertRequest& req, std::ostream& out, std::ostream& err) {
    const auto mib = units::parse_count_in(req.size, SizeUnit::mebibytes);
    if (!mib) return fail(err, mib.error().message);
    const units::Bytes b = *units::MiB::from_count(*mib);
    const auto gib = units::exact_decimal(b, SizeUnit::gibibytes);
    const auto gb = units::exact_decimal(b, SizeUnit::gigabytes);
    if (req.json) {
        // Every figure a JSON number, exact: GiB and GB as exact decimals (they always terminate).
        out << contract::head("wiredcap.convert/2")
                   .str("source", "computed")
                   .str("input", shown(req.size))
                   .num("mib", *mib)
                   .decimal("gib", gib)
                   .decimal("gb", gb)
                   .num("bytes", b.count())
                   .text()
            << "\n";
        return ExitCode::ok;
    }
    out << fmt::format("{} is exactly (computed, not read from any machine):\n", shown(req.size));
    out << fmt::format("  {:>20} MiB   the unit of iogpu.wired_limit_mb\n", *mib);
    out << fmt::format("  {:>20} GiB\n", gib);
    out << fmt::format("  {:>20} GB\n", gb);
    out << fmt::format("  {:>20} B\n", b.count());
    return ExitCode::ok;
}

}  // namespace

ExitCode run_convert(const ConvertRequest& req, std::ostream& out, std::ostream& err) {
    return req.to_unit ? convert_to(req, out, err) : convert_for_admin(req, out, err);
}

}  // namespace wiredcap::cli
