#include "journal/confirmation.hpp"

#include <charconv>

#include "policy/trusted_path.hpp"

namespace wiredcap::journal {
namespace {

// Years of ramps fit in a few MiB; anything larger is not a journal this helper wrote.
constexpr std::size_t kMaxJournalBytes = 64 * 1024 * 1024;

constexpr std::string_view kConfirmed = ",\"command\":\"confirm\",\"event\":\"confirmed\",";
constexpr std::string_view kTripped = ",\"command\":\"boot\",\"event\":\"tripped\",";

// The digits after `"key":` in `line`, as a number.
std::optional<std::uint64_t> number_after(std::string_view line, std::string_view key) {
    const std::string k = "\"" + std::string(key) + "\":";
    const auto at = line.find(k);
    if (at == std::string_view::npos) return std::nullopt;
    const char* begin = line.data() + at + k.size();
    std::uint64_t n = 0;
    const auto [end, ec] = std::from_chars(begin, line.data() + line.size(), n);
    if (ec != std::errc{} || end == begin) return std::nullopt;
    return n;
}

// The run id of a record: [A-Za-z0-9-]{1,64}, so it needs no unescaping.
std::string run_of(std::string_view line) {
    constexpr std::string_view k = ",\"run\":\"";
    const auto at = line.find(k);
    if (at == std::string_view::npos) return {};
    const auto from = at + k.size();
    const auto to = line.find('"', from);
    return to == std::string_view::npos ? std::string() : std::string(line.substr(from, to - from));
}

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

}  // namespace

std::optional<Confirmation> find_confirmation(std::string_view text, units::MiB value) {
    const std::string confirmed_tail = ",\"readback_mib\":" + std::to_string(value.count()) + "}";
    std::optional<Confirmation> found;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        if (nl == std::string_view::npos) break;  // a torn last line is not a record
        const std::string_view line = text.substr(0, nl);
        text.remove_prefix(nl + 1);
        if (line.substr(0, 7) != "{\"v\":1,") continue;
        if (line.find(kConfirmed) != std::string_view::npos && ends_with(line, confirmed_tail)) {
            const auto step = number_after(line, "step");
            if (step) found = Confirmation{run_of(line), *step};
        } else if (line.find(kTripped) != std::string_view::npos) {
            const auto tripped_at = number_after(line, "to_mib");
            if (!tripped_at || *tripped_at <= value.count()) found.reset();
        }
    }
    return found;
}

Expected<std::optional<Confirmation>> find_confirmation_in(const std::string& path, uid_t owner, units::MiB value) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return Error{"cannot check the journal for confirmations: " + text.error().message};
    if (!text->has_value()) return std::optional<Confirmation>{};
    return find_confirmation(**text, value);
}

}  // namespace wiredcap::journal
