#include "wiredcap/cli/output/prometheus_text.hpp"

namespace wiredcap::cli {

std::string label_value(std::string_view v) {
    std::string out;
    for (const char c : v) {
        if (c == '\\') out += "\\\\";
        else if (c == '"') out += "\\\"";
        else if (c == '\n') out += "\\n";
        else out += c;
    }
    return out;
}

void Exposition::family(std::string_view name, std::string_view help) {
    text_ += "# HELP " + std::string(name) + " " + std::string(help) + "\n";
    text_ += "# TYPE " + std::string(name) + " gauge\n";
}

void Exposition::sample(std::string_view name, std::uint64_t value, const Labels& labels) {
    text_ += name;
    if (!labels.empty()) {
        text_ += "{";
        for (std::size_t i = 0; i < labels.size(); ++i)
            text_ +=
                (i ? "," : "") + labels[i].first + "=\"" + label_value(labels[i].second) + "\"";
        text_ += "}";
    }
    text_ += " " + std::to_string(value) + "\n";
}

void Exposition::one(std::string_view name, std::string_view help,
                     const std::optional<std::uint64_t>& v) {
    if (!v) return;
    family(name, help);
    sample(name, *v);
}

void Exposition::bytes(std::string_view name, std::string_view help,
                       const std::optional<units::Bytes>& v) {
    one(name, help, v ? std::optional<std::uint64_t>(v->count()) : std::nullopt);
}

}  // namespace wiredcap::cli
