// wiredcap-system's subcommands: one table (dispatch.cpp), one row per subcommand. To add one,
// write its function (in its own file) and add its row; --help lists the rows in table order.
#pragma once

#include <span>
#include <string_view>
#include <vector>

#include "wiredcap/helper/answer.hpp"

namespace wiredcap::system {

using Args = std::vector<std::string_view>;  // the words after the subcommand's name

struct Subcommand {
    std::string_view name;     // the word on the command line
    std::string_view usage;    // its arguments, for --help ("" when none)
    std::string_view summary;  // what it does, for --help (lines of at most 50 columns)
    // Runs it: the one JSON line and the error for stderr. The context is root's: the
    // compiled-in (or, in test builds, given) policy, journal and kernel, the caller uid 0.
    helper::Result (*run)(helper::Context& ctx, const Args& args);
};

[[nodiscard]] std::span<const Subcommand> subcommands();

// An argument count or word the subcommand does not take: exit 2 with one JSON line.
[[nodiscard]] helper::Result usage_error(const std::string& message);

}  // namespace wiredcap::system
