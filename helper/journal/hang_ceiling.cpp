#include "journal/hang_ceiling.hpp"

#include <new>

#include "journal/record_fields.hpp"
#include "wiredcap/journal/classifier.hpp"

namespace wiredcap::journal {
namespace {

// The journal text through the classifier, record by record as the helper reads them.
Classifier classified(std::string_view text, std::string_view current_boot) {
    Classifier c(current_boot);
    for_each_record(text, [&c](std::string_view line) {
        if (const auto r = record_of(line)) c.add(*r);
    });
    return c;
}

}  // namespace

Ceiling find_hang_ceiling(std::string_view text, std::string_view current_boot, bool stored_value) noexcept {
    try {
        const auto who = stored_value ? Classifier::For::stored_value : Classifier::For::any_writer;
        const auto report = classified(text, current_boot).finish(who);
        return Ceiling{true, report.hang_ceiling ? std::optional(report.hang_ceiling->value) : std::nullopt};
    } catch (const std::bad_alloc&) {
        return Ceiling{};
    }
}

bool is_open_suspect(std::string_view text, std::string_view boot, units::MiB value, std::string_view current_boot,
                     bool root) noexcept {
    try {
        return classified(text, current_boot).may_answer(boot, value, root);
    } catch (const std::bad_alloc&) {
        return false;
    }
}

}  // namespace wiredcap::journal
