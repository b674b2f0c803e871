// The Prometheus text exposition format, as node_exporter's textfile collector reads it: HELP and
// TYPE once per family, then its samples; label values escaped; no timestamps. Both
// `wiredcap metrics` writers (a Mac's, metrics_cmd.cpp, and a Linux APU's, linux_metrics.cpp) write
// through this one, so the two cannot drift apart in format.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Exposition {
public:
    // HELP and TYPE lines. Every family wiredcap writes is a gauge: each is a reading of now.
    void family(std::string_view name, std::string_view help);
    void sample(std::string_view name, std::uint64_t value, const Labels& labels = {});
    // A gauge with one unlabelled sample, written only when the value is known: an unknown
    // reading is left out, never written as 0.
    void one(std::string_view name, std::string_view help, const std::optional<std::uint64_t>& v);
    void bytes(std::string_view name, std::string_view help, const std::optional<units::Bytes>& v);
    [[nodiscard]] const std::string& text() const { return text_; }

private:
    std::string text_;
};

// A label value in the text format: backslash, double quote and line feed escaped.
[[nodiscard]] std::string label_value(std::string_view v);

}  // namespace wiredcap::cli
