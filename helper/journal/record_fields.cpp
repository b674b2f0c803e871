#include "journal/record_fields.hpp"

#include <charconv>

#include "policy/trusted_path.hpp"

namespace wiredcap::journal {

Expected<std::string> read_journal(const std::string& path, uid_t owner) {
    auto text = trusted::read_file(path, owner, kMaxJournalBytes);
    if (!text) return text.error();
    return std::move(*text).value_or(std::string());
}

bool is_v1_record(std::string_view line) { return line.starts_with("{\"v\":1,"); }

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

std::string_view string_after(std::string_view line, std::string_view key) {
    const std::string k = "\"" + std::string(key) + "\":\"";
    const auto at = line.find(k);
    if (at == std::string_view::npos) return {};
    const auto from = at + k.size(), to = line.find('"', from);
    return to == std::string_view::npos ? std::string_view{} : line.substr(from, to - from);
}

std::string_view run_of(std::string_view line) { return string_after(line, "run"); }

}  // namespace wiredcap::journal
