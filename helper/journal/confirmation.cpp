#include "journal/confirmation.hpp"

#include <string>

#include "journal/record_fields.hpp"
#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

// Years of ramps fit in a few MiB; anything larger is not a journal this helper wrote.
constexpr std::size_t kMaxJournalBytes = 64 * 1024 * 1024;

constexpr std::string_view kConfirmed = ",\"command\":\"confirm\",\"event\":\"confirmed\",";
constexpr std::string_view kTripped = ",\"command\":\"boot\",\"event\":\"tripped\",";

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

Standing find_standing(std::string_view text, units::MiB value) {
    const std::string confirmed_tail = ",\"readback_mib\":" + std::to_string(value.count()) + "}";
    Standing found;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;  // a torn last line is not a record
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (!is_v1_record(line)) continue;
        if (line.find(kConfirmed) != std::string_view::npos && ends_with(line, confirmed_tail)) {
            const auto step = number_after(line, "step");
            if (step) found = Standing{Confirmation{std::string(run_of(line)), *step}, false};
        } else if (line.find(kTripped) != std::string_view::npos) {
            const auto tripped_at = number_after(line, "to_mib");
            if (!tripped_at || *tripped_at <= value.count()) found = Standing{std::nullopt, true};
        }
    }
    return found;
}

std::optional<Confirmation> find_confirmation(std::string_view text, units::MiB value) {
    return find_standing(text, value).confirmation;
}

Expected<Standing> find_standing_in(const std::string& path, uid_t owner, units::MiB value) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return Error{"cannot check the journal for confirmations: " + text.error().message};
    if (!text->has_value()) return Standing{};
    return find_standing(**text, value);
}

}  // namespace wiredcap::journal
