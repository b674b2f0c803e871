// "Did you mean": the known word nearest to a mistyped one, for an unknown subcommand.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace wiredcap::cli {

// The candidate with the smallest edit distance (insertions, deletions, substitutions and
// swaps of neighbours) to `word`, if it is close enough to be a typo: at most 2 edits, and
// fewer than half the word. Ties go to the earlier candidate.
[[nodiscard]] std::optional<std::string> nearest_word(std::string_view word,
                                                      const std::vector<std::string>& candidates);

}  // namespace wiredcap::cli
