// The fish completion: two fixed functions read the command line (which command, whether an
// argument was typed); one `complete` line per option, subcommand and argument of the model.
#include <sstream>

#include "emitters.hpp"

namespace wiredcap::cli::reference {
namespace {

constexpr const char* kReader = R"FISH(
# Prints the command typed so far ("policy check"; empty for none), then "args" when an
# argument of it was typed; the values of options are skipped.
function __wiredcap_scan
    set -l path
    set -l args
    set -l skip 0
    for t in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        if string match -q -- '-*' $t
            __wiredcap_takes_value "$path" $t; and set skip 1
        else if test -z "$args"; and __wiredcap_is_command "$path" $t
            set -a path $t
        else
            set args args
        end
    end
    echo "$path"
    echo $args
end

# Succeeds when the command typed so far is COMMAND: __wiredcap_at COMMAND
function __wiredcap_at
    set -l scan (__wiredcap_scan)
    test "$scan[1]" = "$argv[1]"
end

# Succeeds when an argument of the command was typed.
function __wiredcap_has_args
    set -l scan (__wiredcap_scan)
    test -n "$scan[2]"
end
)FISH";

// In a single-quoted fish word, \ and ' are quoted by a backslash.
std::string quoted(const std::string& text) {
    std::string out = "'";
    for (const char ch : text) {
        if (ch == '\\' || ch == '\'') out += '\\';
        out += ch;
    }
    return out + "'";
}

std::string pattern(const Command& c, const std::string& name) {
    return c.path.empty() ? "'* " + name + "'" : quoted(joined(c.path) + " " + name);
}

void case_function(std::ostream& out, const std::string& name, const std::string& what,
                   const std::vector<std::string>& patterns) {
    out << "\n# " << what << "\nfunction " << name << "\n    switch \"$argv[1] $argv[2]\"\n"
        << "        case " << spaced(patterns) << "\n            return 0\n    end\n"
        << "    return 1\nend\n";
}

std::string value_flags(const ValueHint& hint) {
    switch (hint.kind) {
        case ValueHint::Kind::file: return " -r -F";
        case ValueHint::Kind::directory: return " -x -a '(__fish_complete_directories)'";
        case ValueHint::Kind::command_line: return " -x -a '(__fish_complete_command)'";
        case ValueHint::Kind::words: return " -x -a " + quoted(spaced(hint.words));
        case ValueHint::Kind::none: break;
    }
    return " -x";
}

// The condition under which an option or argument of `c` is offered.
std::string condition(const Command& c, const std::vector<std::string>& excluded) {
    std::string out = "__wiredcap_at " + quoted(joined(c.path));
    for (const auto& name : excluded) {
        if (name == "ARGS") {
            out += "; and not __wiredcap_has_args";
            continue;
        }
        out += "; and not __fish_seen_argument -l " + name.substr(2);
        for (const auto& opt : c.options)
            if (opt.long_name == name && !opt.short_name.empty())
                out += " -s " + opt.short_name.substr(1);
    }
    return out;
}

void option_line(std::ostream& out, const Command& c, const OptionEntry& opt) {
    out << "complete -c wiredcap";
    if (!c.path.empty()) out << " -n " << quoted(condition(c, opt.excludes));
    if (!opt.short_name.empty()) out << " -s " << opt.short_name.substr(1);
    out << " -l " << opt.long_name.substr(2);
    if (!opt.value_name.empty()) out << value_flags(opt.hint);
    out << " -d " << quoted(opt.description) << "\n";
}

void command_lines(std::ostream& out, const Command& c) {
    out << "\n# " << (c.path.empty() ? "wiredcap" : "wiredcap " + joined(c.path)) << "\n";
    if (!c.path.empty())
        for (const auto& opt : c.options) option_line(out, c, opt);
    for (const auto& sub : c.subcommands)
        out << "complete -c wiredcap -n " << quoted(condition(c, {})) << " -a "
            << quoted(sub.path.back()) << " -d " << quoted(sub.description) << "\n";
    if (c.subcommands.empty() && !c.arguments.empty() &&
        c.arguments.front().hint.kind != ValueHint::Kind::none) {
        const ValueHint& hint = c.arguments.front().hint;
        out << "complete -c wiredcap -n " << quoted(condition(c, {}));
        if (hint.kind == ValueHint::Kind::file) out << " -F";
        else out << value_flags(hint);
        out << " -d " << quoted(c.arguments.front().description) << "\n";
    }
    for (const auto& sub : c.subcommands) command_lines(out, sub);
}

}  // namespace

std::string emit_fish(const Command& root) {
    std::ostringstream out;
    out << "# fish completion for wiredcap(1). Installed as share/fish/vendor_completions.d/wiredcap.fish.\n"
        << commented(kGeneratedBy, "# ") << kReader;
    std::vector<std::string> values, commands;
    for (const Command* c : all_commands(root)) {
        for (const auto& opt : c->options)
            if (!opt.value_name.empty()) values.push_back(pattern(*c, opt.long_name));
        for (const auto& sub : c->subcommands)
            commands.push_back(quoted(joined(c->path) + " " + sub.path.back()));
    }
    case_function(out, "__wiredcap_takes_value",
                  "Succeeds when OPTION of COMMAND takes a value: __wiredcap_takes_value COMMAND "
                  "OPTION",
                  values);
    case_function(
        out, "__wiredcap_is_command",
        "Succeeds when WORD is a subcommand of COMMAND: __wiredcap_is_command COMMAND WORD",
        commands);
    out << "\n# No file names unless an option or argument asks for one.\ncomplete -c wiredcap -f\n"
           "\n# Global options: accepted before or after the command.\n";
    for (const auto& opt : root.options) option_line(out, root, opt);
    command_lines(out, root);
    return out.str();
}

}  // namespace wiredcap::cli::reference
