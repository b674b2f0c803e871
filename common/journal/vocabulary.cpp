#include "wiredcap/journal/vocabulary.hpp"

#include <algorithm>
#include <array>

namespace wiredcap::journal {
namespace {

constexpr std::array<std::string_view, 14> kCommands{
    command::apply,     command::reset,          command::confirm,        command::end,
    command::persist,   command::boot,           command::verdict,        command::forget_hang,
    command::journal,   command::ttm_trial,      command::ttm_after_boot, command::ttm_confirm,
    command::ttm_reset, command::ttm_forget_hang};

constexpr std::array<std::string_view, 37> kEvents{event::intent,
                                                   event::applied,
                                                   event::mismatch,
                                                   event::write_failed,
                                                   event::unchanged,
                                                   event::refused,
                                                   event::confirmed,
                                                   event::end,
                                                   event::persist_intent,
                                                   event::persisted,
                                                   event::removed_intent,
                                                   event::removed,
                                                   event::persist_removed_intent,
                                                   event::persist_removed,
                                                   event::trying,
                                                   event::tripped,
                                                   event::healthy,
                                                   event::failed,
                                                   event::hung,
                                                   event::not_hung,
                                                   event::forgotten,
                                                   event::made_default,
                                                   event::compacted,
                                                   event::armed,
                                                   event::waiting,
                                                   event::disabled,
                                                   event::none,
                                                   event::trial_scheduled,
                                                   event::trial_booted,
                                                   event::trial_not_consumed,
                                                   event::default_mismatch,
                                                   event::declined,
                                                   event::reset,
                                                   event::revert_intent,
                                                   event::revert_applied,
                                                   event::revert_mismatch,
                                                   event::revert_write_failed};

bool listed(std::string_view word, const auto& words) {
    return std::find(words.begin(), words.end(), word) != words.end();
}

}  // namespace

bool is_known_command(std::string_view word) noexcept { return listed(word, kCommands); }

bool is_known_event(std::string_view word) noexcept { return listed(word, kEvents); }

}  // namespace wiredcap::journal
