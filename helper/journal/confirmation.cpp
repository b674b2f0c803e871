#include "journal/confirmation.hpp"

#include <string>

#include "journal/record_fields.hpp"

namespace wiredcap::journal {
namespace {

constexpr std::string_view kConfirmed = ",\"command\":\"confirm\",\"event\":\"confirmed\",";
constexpr std::string_view kTripped = ",\"command\":\"boot\",\"event\":\"tripped\",";

}  // namespace

Standing find_standing(std::string_view text, units::MiB value) {
    const std::string confirmed_tail = ",\"readback_mib\":" + std::to_string(value.count()) + "}";
    Standing found;
    for_each_record(text, [&](std::string_view line) {
        if (line.find(kConfirmed) != std::string_view::npos && line.ends_with(confirmed_tail)) {
            const auto step = number_after(line, "step");
            if (step) found = Standing{Confirmation{std::string(run_of(line)), *step}, false};
        } else if (line.find(kTripped) != std::string_view::npos) {
            const auto tripped_at = number_after(line, "to_mib");
            if (!tripped_at || *tripped_at <= value.count()) found = Standing{std::nullopt, true};
        }
    });
    return found;
}

}  // namespace wiredcap::journal
