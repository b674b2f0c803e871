// How a wiredcap command says what went wrong: one line on standard error, `wiredcap VERB:
// MESSAGE` (`wiredcap: MESSAGE` without a verb), the prefix spelled here and nowhere else.
#pragma once

#include <ostream>
#include <string_view>

#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// Writes `wiredcap VERB: ` and the parts, streamed as given, then a newline.
template <class... Parts>
void say(std::ostream& err, std::string_view verb, const Parts&... parts) {
    err << "wiredcap";
    if (!verb.empty()) err << ' ' << verb;
    err << ": ";
    (err << ... << parts);
    err << '\n';
}

// say(), then the exit code to return: `return fail(ctx.err, "set", ExitCode::usage, why);`.
template <class... Parts>
[[nodiscard]] ExitCode fail(std::ostream& err, std::string_view verb, ExitCode code,
                            const Parts&... parts) {
    say(err, verb, parts...);
    return code;
}

}  // namespace wiredcap::cli
