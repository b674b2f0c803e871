// Linux's ttm-* records (wiredcap-system's ttm verbs, docs/linux.md, "The journal"): a journal
// record (helper/include/wiredcap/helper/journal/journal.hpp) whose knob counts pages, so its values are pages of a page
// size read from the system, never MiB:
//   {"v":1,...,"command":"ttm-trial","event":"intent","param":"ttm.pages_limit",
//    "to_pages":26214400,"page_size":4096,"place":"..."}
// Only root's program writes them; the setuid helper neither writes nor knows these fields
// (its hang scan reads to_pages and page_size by name: hang_ceiling.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "wiredcap/helper/journal/journal.hpp"

namespace wiredcap::journal {

struct PagesFields {
    std::string param = {};  // ttm.pages_limit | amdttm.pages_limit | amd_ttm.pages_limit
    std::optional<std::uint64_t> to_pages = std::nullopt;        // the value asked for
    std::optional<std::uint64_t> readback_pages = std::nullopt;  // pages_limit read back
    std::optional<std::uint64_t> page_size = std::nullopt;       // bytes per page of both
    std::string place = {};                                      // the boot-loader files it wrote
};

// The record's line: its own fields, then these (absent ones omitted), in the journal's order.
[[nodiscard]] std::string to_json_line(const Record& r, const PagesFields& p, const Stamp& s,
                                       std::int64_t unix_time);

}  // namespace wiredcap::journal
