// libFuzzer target for the journal's one classifier and both of its readers: the bytes are a
// journal's text. The helper reads it with its field reader (helper/include/wiredcap/helper/journal/record_fields.hpp)
// and the CLI with its JSON reader (cli/include/wiredcap/cli/readings/journal_reader.hpp); each feeds the classifier
// (wiredcap/journal/classifier.hpp). Whatever the text, neither may crash or throw, the helper's
// answer is always known on a text this small, and each report holds together: the ceiling is
// the lowest hang not forgotten (for the stored value, one of them and never below the ceiling
// for every writer: a store that overrode it waives earlier boots' hangs), the unknown records shown are at most kUnknownShown of those
// counted. Built with -fsanitize=fuzzer under clang; replayed over the corpus as an ordinary
// test in every build (replay_main.cpp).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/journal/classifier.hpp"

#include "fuzz_checks.hpp"

namespace {

using namespace wiredcap;
using wiredcap::fuzz::require;

std::optional<units::MiB> ceiling_of(const journal::Report& r) {
    return r.hang_ceiling ? std::optional(r.hang_ceiling->value) : std::nullopt;
}

void check(const journal::Report& r) {
    std::optional<units::MiB> lowest;
    for (const auto& h : r.hangs)
        if (!h.forgotten && (!lowest || h.value < *lowest)) lowest = h.value;
    require(lowest == ceiling_of(r));
    require(r.unknown.size() <= journal::kUnknownShown && r.unknown.size() <= r.unknown_count);
}

// For the stored value a store that overrode the ceiling waives the hangs of earlier boots, so its
// ceiling is one of the hangs not forgotten, never below the ceiling that binds every writer.
void check_stored_value(const journal::Report& stored, const journal::Report& any_writer) {
    require(stored.hangs.size() == any_writer.hangs.size());
    if (!stored.hang_ceiling) return;
    require(std::any_of(stored.hangs.begin(), stored.hangs.end(), [&](const journal::StepRef& h) {
        return !h.forgotten && h.value == stored.hang_ceiling->value;
    }));
    require(any_writer.hang_ceiling &&
            any_writer.hang_ceiling->value <= stored.hang_ceiling->value);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const std::string_view boot : {"BOOT-1", "unknown", ""}) {
        journal::Classifier helper(boot);
        journal::for_each_record(text, [&helper](std::string_view line) {
            if (const auto r = journal::record_of(line)) helper.add(*r);
        });
        const journal::Report h = helper.finish();
        check(h);
        check_stored_value(helper.finish(journal::Classifier::For::stored_value), h);
        const auto ceiling = journal::find_hang_ceiling(text, boot);
        require(ceiling.known);
        require(ceiling.value == ceiling_of(h));

        journal::Classifier cli(boot);
        for (const auto& e : journal_view::parse_journal(text).entries)
            cli.add(journal_view::view_of(e));
        check(cli.finish());
    }
    return 0;
}
