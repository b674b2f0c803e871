// How a person runs one of wiredcap-system's ttm-* verbs, complete, as a hint prints it: the
// words before the verb (sudo, the program's absolute path -- it is in libexec, on no PATH --
// and a test build's --journal) come from wiredcap-system, which knows them; the verb adds its
// own `--root DIR` off "/". Every command a verb's lines suggest is one the tool accepts as
// printed (docs/linux.md, "Who calls what").
#pragma once

#include <string>
#include <string_view>

#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd {

// A word as a POSIX shell reads it back unchanged: as is when it holds only safe characters,
// else in single quotes.
[[nodiscard]] std::string shell_word(const std::string& w);

struct VerbCommand {
    std::string prefix;  // "sudo /usr/local/libexec/wiredcap/wiredcap-system"
    // prefix, the verb, `--root DIR` when root is not "/", then args (already shell words).
    [[nodiscard]] std::string of(const SystemRoot& root, std::string_view verb,
                                 std::string_view args = {}) const;
};

}  // namespace wiredcap::linux_amd
