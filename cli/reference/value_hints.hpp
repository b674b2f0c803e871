// What CLI11 cannot know about a value: which words, files or commands a shell may offer for
// it, and which options exclude each other only in wiredcap's own checks. One table for every
// shell (value_hints.cpp), taken from the lists the program itself accepts where one exists.
#pragma once

#include <string>
#include <vector>

#include "cli_model.hpp"

namespace wiredcap::cli::reference {

// The hint for an option ("--kv-type") or argument ("SIZE") of the command at `path`.
ValueHint value_hint(const std::vector<std::string>& path, const std::string& name);

// Names ("--unconfirmed", "ARGS") that `option` of the command at `path` cannot be given with,
// beyond the exclusions declared to CLI11.
std::vector<std::string> extra_excludes(const std::vector<std::string>& path,
                                        const std::string& option);

}  // namespace wiredcap::cli::reference
