#include "wiredcap/helper/journal/record_fields.hpp"

#include <charconv>

#include "wiredcap/policy/trusted_path.hpp"

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

std::optional<EntryView> record_of(std::string_view line) {
    if (!line.ends_with('}')) return std::nullopt;
    auto mib_after = [line](std::string_view key) { const auto n = number_after(line, key); return n ? units::MiB::from_count(*n) : std::nullopt; };
    EntryView e;
    e.v = 1;
    e.time = string_after(line, "time");
    e.boot = string_after(line, "boot");
    e.uid = number_after(line, "uid").value_or(UINT64_MAX);
    e.command = string_after(line, "command");
    e.event = string_after(line, "event");
    if (const auto run = run_of(line); !run.empty()) e.run = run;
    e.step = number_after(line, "step");
    e.from = mib_after("from_mib");
    e.to = mib_after("to_mib");
    e.readback = mib_after("readback_mib");
    e.effective = mib_after("effective_mib");
    e.to_pages = number_after(line, "to_pages");
    e.page_size = number_after(line, "page_size");
    e.effective_source = string_after(line, "effective_source");
    e.reason = string_after(line, "reason");
    e.by = string_after(line, "by");
    e.ignore_hang_ceiling = line.find(",\"ignore_hang_ceiling\":true") != std::string_view::npos;
    return e;
}

}  // namespace wiredcap::journal
