// wiredcap: the command people type. Unprivileged; every change to the kernel goes through
// wiredcap-helper (added with the helper). For now: `convert`.
#include <CLI/CLI.hpp>

#include <iostream>

#include "convert.hpp"
#include "wiredcap/exit_codes.hpp"

namespace {

constexpr const char* kExitCodeHelp = R"(Exit codes:
  0 ok                    1 internal error          2 usage error
  3 refused by policy     4 not permitted           5 kernel write failed
  6 read-back differs     7 unsupported platform    8 ramp stopped by user
  9 ramp reverted        10 unresolved journal     11 policy file invalid
 12 journal write failed
)";

}  // namespace

int main(int argc, char** argv) {
    using wiredcap::ExitCode;
    CLI::App app{"wiredcap: set the Apple Silicon GPU wired-memory cap (iogpu.wired_limit_mb) safely"};
    app.footer(kExitCodeHelp);
    app.require_subcommand(1);

    wiredcap::cli::ConvertRequest convert;
    std::string to_unit;
    auto* cmd = app.add_subcommand("convert", "Print a size exactly in other units (MiB for iogpu.wired_limit_mb)");
    cmd->add_option("SIZE", convert.size, "A size with its unit, e.g. 232GiB (units: B kB MB GB TB KiB MiB GiB TiB)")
        ->required();
    auto* to = cmd->add_option("--to", to_unit, "Print only this unit (B kB MB GB TB KiB MiB GiB TiB)");
    cmd->add_flag("--json", convert.json, "One JSON object on stdout");

    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        if (e.get_exit_code() == 0) return app.exit(e);  // --help for the app or a subcommand
        // CLI11's own exit numbers would collide with ours: every usage error is 2.
        std::cerr << "wiredcap: " << e.what() << "\n(run 'wiredcap --help' for usage)\n";
        return wiredcap::to_int(ExitCode::usage);
    }

    try {
        if (*to) convert.to_unit = to_unit;
        return wiredcap::to_int(wiredcap::cli::run_convert(convert, std::cout, std::cerr));
    } catch (const std::exception& e) {
        std::cerr << "wiredcap: internal error: " << e.what() << "\n";
        return wiredcap::to_int(ExitCode::internal_error);
    }
}
