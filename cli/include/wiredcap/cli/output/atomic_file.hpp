// Replacing a file so that a reader sees the old text or the new one, never a part: a temporary
// file in the same directory, written, flushed, then renamed over the old name. The collector
// that reads the directory (node_exporter's textfile collector reads *.prom) never sees the
// temporary, whose name starts with a dot and does not end in the file's suffix.
#pragma once

#include <string>
#include <string_view>

#include "wiredcap/expected.hpp"

namespace wiredcap::cli {

// Writes `text` to DIR/NAME (mode 0644) atomically. The directory must exist. On failure the
// old file is untouched and no temporary is left behind.
[[nodiscard]] Expected<Ok> replace_file_atomically(const std::string& dir, std::string_view name,
                                                   std::string_view text);

}  // namespace wiredcap::cli
