#include "wiredcap/cli/json_contract.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli::contract {

JsonObject head(std::string_view schema) {
    JsonObject o;
    o.str("schema", schema).str("version", kVersion);
    return o;
}

JsonObject size_of_count(const std::optional<std::uint64_t>& mib, std::string_view source,
                         std::string_view why_unknown) {
    JsonObject o;
    if (mib) o.num("value", *mib);
    else o.null("value");
    o.str("source", source);
    // A null value always says why: an empty reason would read as "none" to nobody.
    if (!mib)
        o.str("why_unknown", why_unknown.empty() ? std::string_view("not reported") : why_unknown);
    return o;
}

JsonObject size(const std::optional<units::MiB>& v, std::string_view source,
                std::string_view why_unknown) {
    return size_of_count(v ? std::optional<std::uint64_t>(v->count()) : std::nullopt, source,
                         why_unknown);
}

JsonObject limit_from_bytes(const std::optional<units::Bytes>& b, std::string_view source,
                            std::string_view why_unknown) {
    return size(b ? std::optional<units::MiB>(units::floor_cast<units::MiB>(*b)) : std::nullopt,
                source, why_unknown);
}

JsonObject need_from_bytes(units::Bytes b, std::string_view source) {
    // ceil_cast fails only within one MiB of 2^64 bytes, which no model header can claim
    // (the parsers cap sizes far below): then the need is unknown, never rounded down.
    return size(units::ceil_cast<units::MiB>(b), source, "too large to count in MiB");
}

std::string error(std::string_view command, ExitCode code, std::string_view message) {
    JsonObject o = head("wiredcap.error/1");
    if (command.empty()) o.null("command");
    else o.str("command", command);
    o.boolean("ok", false)
        .num("exit", static_cast<std::uint64_t>(to_int(code)))
        .str("error", message);
    return o.text();
}

}  // namespace wiredcap::cli::contract
