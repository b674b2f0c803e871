// Where the ttm-* verbs record what they do and find what a trial taught: the project's one
// journal (docs/design.md section 3), not a file of their own. wiredcap_linux names only what it
// needs; root's wiredcap-system gives it the shared writer and hang-ceiling reader
// (system/include/wiredcap/system/ttm_journal.hpp), so Linux's records are appended, flushed, compacted and read
// like every other writer's. Records (docs/linux.md, "The journal"): command is the verb
// (ttm-trial, ttm-after-boot, ttm-confirm, ttm-reset, ttm-forget-hang), the value is in pages
// (to_pages, readback_pages, page_size), never in MiB.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/linux/trial_state.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/pages.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::linux_amd {

// One record: the event, and what a reader needs beside the trial's value (the state's param,
// pages and page size, which every record carries).
struct TrialEvent {
    std::string_view event;   // intent, trial-scheduled, refused, trial-booted, mismatch, ...
    std::string reason = {};  // why: a refusal's, failure's or hang's message
    std::string place = {};   // the boot-loader files written (trial-scheduled, made-default)
    std::optional<units::Pages> readback = std::nullopt;  // pages_limit read back
};

class TrialJournal {
public:
    virtual ~TrialJournal() = default;
    // Appends the record, flushed to disk before it returns true. False: it may not be on
    // disk, and a verb that needs its intent on record writes nothing.
    [[nodiscard]] virtual bool record(const TrialEvent& e, const TrialState& s) = 0;
    // The lowest value that hung and was not forgotten, per the journal's shared reader (in
    // whole MiB, rounded down); an error when the journal cannot be read (it then binds every
    // trial: fail closed).
    [[nodiscard]] virtual Expected<std::optional<units::MiB>> hang_ceiling() = 0;
};

// The ceiling as whole pages of `size`, rounded down (never past what hung).
[[nodiscard]] units::Pages ceiling_pages(units::MiB ceiling, units::PageSize size);

// A hang ceiling as every Linux command prints it: its whole pages (with the page size), MiB and
// GiB, cut down (units::describe); in MiB alone when the page size is unknown.
[[nodiscard]] std::string describe_ceiling(units::MiB ceiling, std::optional<units::PageSize> size);

}  // namespace wiredcap::linux_amd
