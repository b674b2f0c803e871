#include "commands/linux_status.hpp"

#include "wiredcap/linux/status_text.hpp"

namespace wiredcap::cli {

ExitCode run_linux_status(const std::string& root, bool json, std::ostream& out, std::ostream& err) {
    if (json) {
        err << "wiredcap: status --linux-root has no --json answer yet (no published schema)\n";
        return ExitCode::usage;
    }
    out << linux_amd::status_text(linux_amd::SystemRoot(root));
    return ExitCode::ok;
}

}  // namespace wiredcap::cli
