#include "wiredcap/ramp/superseded.hpp"

#include <optional>

#include "wiredcap/cli/readings/journal_reader.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::cli {
namespace {

using journal_view::is_word;

// The last write of the knob by another command after the step's own apply, as the journal
// names it.
struct OtherWrite {
    std::string who;  // "uid 0 ran wiredcap reset"
    std::string time;
};

bool knob_written(std::string_view event) {
    return is_word(event, journal::event::applied) || is_word(event, journal::event::unchanged) ||
           is_word(event, journal::event::mismatch) ||
           is_word(event, journal::event::revert_applied) ||
           is_word(event, journal::event::revert_mismatch);
}

std::string command_text(const journal_view::EntryView& e) {
    if (e.run) return "a step of ramp run " + std::string(*e.run);
    if (is_word(e.command, "reset")) return "wiredcap reset";
    if (is_word(e.command, "boot")) return "the boot action";
    if (is_word(e.command, "apply") && is_word(e.by, "set")) return "wiredcap set";
    return "wiredcap-helper " + std::string(e.command);
}

std::optional<OtherWrite> last_other_write(const CliContext& ctx, const std::string& run,
                                           std::uint64_t step) {
    std::optional<OtherWrite> found;
    bool after_ours = false;
    auto read = journal_view::read_journal(
        journal_path(ctx.helper.dev()), [&](const journal_view::EntryView& e) {
            const bool ours = e.run && *e.run == run;
            if (ours && e.step == std::optional<std::uint64_t>(step) &&
                is_word(e.event, journal::event::applied)) {
                after_ours = true;
                found.reset();
            } else if (after_ours && !ours && knob_written(e.event)) {
                found = OtherWrite{"uid " + std::to_string(e.uid) + " ran " + command_text(e),
                                   std::string(e.time)};
            }
        });
    if (!read) return std::nullopt;
    return found;
}

std::string value_text(units::MiB v) {
    return v.count() == 0 ? "0 (OS default policy)" : units::describe(v);
}

}  // namespace

std::string superseded_sentence(const CliContext& ctx, const std::string& run, std::uint64_t step,
                                units::MiB applied, units::MiB now) {
    const std::string head = "Step " + std::to_string(step) + " was not kept: ";
    const std::string reads =
        "iogpu.wired_limit_mb reads " + value_text(now) + " now [kernel read-back]";
    if (auto other = last_other_write(ctx, run, step))
        return head + other->who + " at " + other->time + " while it awaited its answer, and " +
               reads + "; nothing was undone.";
    return head + reads + ", not the step's " + units::describe(applied) +
           ", and no journal record says who wrote it (a write outside wiredcap, such as sysctl); nothing was undone.";
}

}  // namespace wiredcap::cli
