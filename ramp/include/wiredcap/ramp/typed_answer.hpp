// A question answered by typing a word and Enter (set's confirmation, recover's questions): one
// rule for every such question, so that no answer is ever taken for another. The supervised
// ramp's countdown prompt (terminal_prompt.hpp) follows the same rule with its own words.
//
// A word the question does not know is never taken as anything: the question is asked again,
// saying which words it takes. A short form ("y") is taken only where it is harmless; where
// the answer raises the cap (or lifts what keeps it down), the full word is asked for, saying
// why. End of input is its own answer (nullopt), never a word.
#pragma once

#include <istream>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace wiredcap::cli {

struct Word {
    std::string typed;    // what a person types, lower case ("yes", "y", "")
    std::string meaning;  // the answer it gives ("yes"), or empty: ask for the full word
};

struct Question {
    std::string text;         // shown before each read, ending where the answer is typed
    std::vector<Word> words;  // the words it takes; anything else is asked again
    std::string again;        // said before asking again: which words it takes
    std::string in_full;      // said when a short form names an answer it takes only in full
};

// Asks on `say` and reads lines from `in` until one is a word of `q`. `say_is_terminal`:
// the terminal's echo of Enter ends the question's line; otherwise (2>&1 | tee) a newline is
// written, so that the next message does not share the question's line.
[[nodiscard]] std::optional<std::string> ask_word(std::istream& in, std::ostream& say,
                                                  bool say_is_terminal, const Question& q);

// The words of a yes-or-no question. With `full_yes_because` (yes raises the cap, or lifts what
// keeps it down) only a full "yes" is yes, and "y" is answered with that reason; otherwise "y"
// is yes too. "no" and "n" are no either way: no changes nothing.
[[nodiscard]] Question yes_or_no(std::string text, std::optional<std::string> full_yes_because);

}  // namespace wiredcap::cli
