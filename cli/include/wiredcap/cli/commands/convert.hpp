// `wiredcap convert SIZE [--to UNIT] [--json]`: exact unit arithmetic for the admin who has a
// size in one unit and needs it in another. No reading is involved: every figure is computed
// from the input, and the output says so.
#pragma once

#include <iosfwd>
#include <optional>
#include <string>

#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

struct ConvertRequest {
    std::string size;
    std::optional<std::string> to_unit;
    bool json = false;
};

[[nodiscard]] ExitCode run_convert(const ConvertRequest& req, std::ostream& out, std::ostream& err);

}  // namespace wiredcap::cli
