#include "wiredcap/linux/verb_command.hpp"

namespace wiredcap::linux_amd {

std::string shell_word(const std::string& w) {
    const bool plain = !w.empty() && w.find_first_not_of(
                                         "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
                                         "0123456789_./:=@%+-") == std::string::npos;
    if (plain) return w;
    std::string q = "'";
    for (char c : w) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string VerbCommand::of(const SystemRoot& root, std::string_view verb,
                            std::string_view args) const {
    std::string s = prefix + " " + std::string(verb);
    // --root comes first among a verb's arguments (wiredcap-system's take_root).
    if (!root.is_real()) s += " --root " + shell_word(root.root().string());
    if (!args.empty()) s += " " + std::string(args);
    return s;
}

}  // namespace wiredcap::linux_amd
