// The helper program wiredcap runs, as the file system has it: its path, owner and mode (with
// the setuid bit), for `status --json` and tools/mac-smoke, which must find and judge the
// helper a Homebrew keg or the package installed without guessing where it is.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/json_writer.hpp"

namespace wiredcap::cli {

struct HelperFile {
    std::string path;              // the absolute path wiredcap runs
    std::optional<unsigned> mode;  // permission bits with setuid/setgid/sticky (mode & 07777)
    std::optional<unsigned> uid;
    std::optional<unsigned> gid;
    std::string why_unknown;  // when stat(2) failed
};

// stat(2) of PATH (following links, as exec does).
[[nodiscard]] HelperFile read_helper_file(const std::string& path);

// "4755": the mode in octal, four digits, setuid bit included.
[[nodiscard]] std::string mode_text(unsigned mode);

// {path, mode, uid, gid, setuid, source[, why_unknown]} (docs/schema/status-2.json).
[[nodiscard]] JsonObject helper_file_json(const HelperFile& h);

}  // namespace wiredcap::cli
