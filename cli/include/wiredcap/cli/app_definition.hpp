// The command line wiredcap parses, defined once: wiredcap's main and the build-time generator
// of the shell completions and the man page's OPTIONS (wiredcap-cli-reference) both walk the
// App this builds, so no second list of options exists to drift.
#pragma once

#include <CLI/CLI.hpp>

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/convert.hpp"
#include "wiredcap/cli/commands/fit_cmd.hpp"
#include "wiredcap/cli/commands/metrics_cmd.hpp"
#include "wiredcap/cli/commands/persist_cmd.hpp"
#include "wiredcap/cli/commands/ramp_cmd.hpp"
#include "wiredcap/cli/commands/recover_cmd.hpp"
#include "wiredcap/cli/commands/set_reset.hpp"
#include "wiredcap/cli/commands/watch_cmd.hpp"

namespace wiredcap::cli {

// Where each option's value lands once app.parse() has run.
struct Options {
    bool json = false;
    bool quiet = false;
    std::optional<std::string> helper;
    DevPaths dev;
    ConvertRequest convert;
    std::vector<std::string> convert_size;  // "96GiB", or "96" "GiB" as two arguments
    std::string convert_to;
    CLI::Option* convert_to_option = nullptr;  // convert --to: given or not
    std::vector<std::string> set_size;
    std::vector<std::string> persist_size;
    SetRequest set;
    std::optional<std::string> policy_file;
    RampRequest ramp;
    PersistRequest persist;
    RecoverRequest recover;
    fit::FitRequest fit;
    std::vector<CLI::Option*> ramp_model_options;  // fit's options on ramp: only with --for
    MetricsRequest metrics;
    WatchRequest watch;
    bool yes_asks_nothing =
        false;                   // reset/persist --yes, ramp --unattended --yes: nothing is asked
    bool reset_dry_run = false;  // reset --dry-run
    std::optional<std::string> help_verb;
    std::vector<std::string>
        status_fields;       // status --field NAME, repeatable  // wiredcap help [VERB]
    std::string linux_root;  // --linux-root of status, set, reset, recover: the Linux AMD backend
                             // under DIR (docs/linux.md); without it, detected on "/"
};

// Names the app, adds every global option and every command with its options to it. The values
// land in `o`, which must outlive the app.
void define_app(CLI::App& app, Options& o);

}  // namespace wiredcap::cli
