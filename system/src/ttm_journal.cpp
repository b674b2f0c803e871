#include "wiredcap/system/ttm_journal.hpp"

#include <ctime>

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/system/journal/pages_record.hpp"
#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/units/casts.hpp"

namespace wiredcap::system {
namespace {

// The Linux kernel's identity of this boot; "unknown" as the helper stamps it.
std::string boot_id(const linux_amd::SystemRoot& root) {
    const auto id = root.read_value("/proc/sys/kernel/random/boot_id");
    return id && !id->empty() ? *id : std::string("unknown");
}

// The shared journal's writer, or nothing when it cannot be opened (the record then fails).
std::optional<journal::Writer> open_writer(const std::string& path, uid_t owner) {
    auto opened = journal::Writer::open(path, owner);
    if (!opened) return std::nullopt;
    return std::move(*opened);
}

}  // namespace

SharedTrialJournal::SharedTrialJournal(std::string command, std::string path, uid_t owner,
                                       uid_t caller, const linux_amd::SystemRoot& root)
    : command_(std::move(command)),
      path_(std::move(path)),
      owner_(owner),
      stamp_{boot_id(root), caller} {}

bool SharedTrialJournal::record(const linux_amd::TrialEvent& e, const linux_amd::TrialState& s) {
    if (!writer_) writer_ = open_writer(path_, owner_);
    if (!writer_) return false;
    journal::Record r{command_,     std::string(e.event), std::nullopt, std::nullopt,
                      std::nullopt, std::nullopt,         std::nullopt, e.reason};
    journal::PagesFields p{s.param};
    // A value is written only with the page size that gives it meaning.
    if (s.page_size != 0) {
        p.to_pages = s.pages;
        p.page_size = s.page_size;
        if (e.readback && e.readback->page_size().bytes() == s.page_size)
            p.readback_pages = e.readback->count();
        // The same value as to_mib too, the field every reader knows, when it is whole MiB (as
        // every size given in MiB or GiB is): then it means exactly what a Mac's does.
        const auto pages = units::PageSize::from_bytes(s.page_size);
        const auto value = pages ? units::Pages::from_count(s.pages, *pages) : std::nullopt;
        if (value) r.to = units::exact_cast<units::MiB>(value->to_bytes());
    }
    p.place = e.place;
    const auto now = static_cast<std::int64_t>(std::time(nullptr));
    return static_cast<bool>(
        writer_->append_line(journal::to_json_line(r, p, stamp_, now), stamp_.uid));
}

Expected<std::optional<units::MiB>> SharedTrialJournal::hang_ceiling() {
    auto text = journal::read_journal(path_, owner_);
    if (!text) return Error{"cannot check the journal for hangs: " + text.error().message};
    const auto hang = journal::find_hang_ceiling(*text, stamp_.boot_id);
    if (!hang.known) return Error{"cannot classify the journal for hangs (out of memory)"};
    return hang.value;
}

}  // namespace wiredcap::system
