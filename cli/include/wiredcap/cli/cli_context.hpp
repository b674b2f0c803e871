// What every wiredcap command gets: the helper to call, the development paths passed through
// to it, and where data and errors go.
#pragma once

#include <iosfwd>

#include "wiredcap/cli/readings/helper_client.hpp"

namespace wiredcap::cli {

struct CliContext {
    HelperClient helper;
    bool json = false;
    std::ostream& out;  // data
    std::ostream& err;  // errors and warnings
};

}  // namespace wiredcap::cli
