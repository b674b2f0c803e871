// wiredcap(1)'s OPTIONS: the global options, then each command's, one entry per option with
// its --help description. The prose that explains more stays by hand in the page's COMMANDS.
#include <sstream>

#include "emitters.hpp"

namespace wiredcap::cli::reference {
namespace {

// roff text: a backslash and a minus are escaped; a line never starts with a control character.
std::string roff(const std::string& text) {
    std::string out;
    for (const char ch : text) {
        if (ch == '\\') out += "\\e";
        else if (ch == '-') out += "\\-";
        else out += ch;
    }
    if (!out.empty() && (out.front() == '.' || out.front() == '\'')) out.insert(0, "\\&");
    return out;
}

// The tag line of an entry: .BR -y ", " --yes, with the value's name in italics.
std::string tag(const OptionEntry& opt) {
    const std::string value = opt.value_name.substr(0, opt.value_name.find(':'));
    std::string line = opt.short_name.empty() ? ".B \"" + roff(opt.long_name) + "\""
                                              : ".BR \"" + roff(opt.short_name) + "\" \", \" \"" +
                                                    roff(opt.long_name) + "\"";
    if (value.empty()) return line;
    if (opt.short_name.empty()) return ".BI \"" + roff(opt.long_name) + " \" " + value;
    return ".BR \"" + roff(opt.short_name) + "\" \", \" \"" + roff(opt.long_name) + " \"\\c\n.I " +
           value;
}

void entries(std::ostream& out, const std::vector<OptionEntry>& options) {
    for (const auto& opt : options) {
        const std::string text = roff(opt.description);
        out << ".TP\n" << tag(opt) << "\n" << text << (text.ends_with('.') ? "\n" : ".\n");
    }
}

}  // namespace

std::string emit_man_options(const Command& root) {
    std::ostringstream out;
    out << commented(kGeneratedBy, ".\\\" ") << ".SH OPTIONS\n"
        << "Each option as its command's \\-\\-help gives it; the commands' own are under their\n"
        << "names below, and COMMANDS tells more of what they do.\n"
        << ".SS \"Global options\"\n"
        << "Given before or after the command.\n";
    entries(out, root.options);
    for (const Command* c : all_commands(root)) {
        if (c->path.empty() || c->options.empty()) continue;
        out << ".SS \"" << roff(joined(c->path)) << "\"\n";
        entries(out, c->options);
    }
    return out.str();
}

}  // namespace wiredcap::cli::reference
