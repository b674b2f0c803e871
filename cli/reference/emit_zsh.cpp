// The zsh completion: one function per command, each an _arguments spec of its options and
// arguments; a command with subcommands dispatches to theirs, as zsh's own completions do.
#include <sstream>

#include "emitters.hpp"

namespace wiredcap::cli::reference {
namespace {

// Inside a single-quoted word: ' closes it.
std::string quoted(const std::string& text) {
    std::string out;
    for (const char ch : text) out += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return out;
}

// A backslash quotes what would end the text early: ] an option's description, : a message.
std::string escaped(const std::string& text, const std::string& ends) {
    std::string out;
    for (const char ch : text) {
        if (ends.find(ch) != std::string::npos) out += '\\';
        out += ch;
    }
    return quoted(out);
}

std::string function_name(const Command& c) {
    return c.path.empty() ? "_wiredcap_main" : "_wiredcap_" + joined(c.path, "_");
}

std::string action(const ValueHint& hint) {
    switch (hint.kind) {
        case ValueHint::Kind::file: return "_files";
        case ValueHint::Kind::directory: return "_directories";
        case ValueHint::Kind::command_line: return "_cmdstring";
        case ValueHint::Kind::words: return "(" + spaced(hint.words) + ")";
        case ValueHint::Kind::none: break;
    }
    return " ";
}

// What the value is, for zsh's message: the value's type name before any validator.
std::string value_message(const OptionEntry& opt) {
    std::string name = opt.long_name.substr(2);
    return name + " (" + opt.value_name.substr(0, opt.value_name.find(':')) + ")";
}

std::string option_spec(const OptionEntry& opt) {
    std::vector<std::string> excluded;
    if (opt.ends_parsing) excluded = {"-", "*"};
    else {
        if (!opt.short_name.empty()) excluded = {opt.short_name, opt.long_name};
        for (const auto& name : opt.excludes) excluded.push_back(name == "ARGS" ? ":" : name);
    }
    std::string spec = "'";
    if (!excluded.empty()) spec += "(" + spaced(excluded) + ")";
    if (opt.repeatable) spec += "*";
    spec +=
        opt.short_name.empty() ? opt.long_name : "'{" + opt.short_name + "," + opt.long_name + "}'";
    spec += "[" + escaped(opt.description, "[]") + "]";
    if (!opt.value_name.empty())
        spec += ":" + escaped(value_message(opt), ":") + ":" + action(opt.hint);
    return spec + "'";
}

std::string argument_spec(const Command& c, const Argument& arg) {
    std::vector<std::string> excluded;
    for (const auto& opt : c.options)
        for (const auto& name : opt.excludes)
            if (name == "ARGS") excluded.push_back(opt.long_name);
    std::string spec = "'";
    if (!excluded.empty()) spec += "(" + spaced(excluded) + ")";
    spec += arg.required ? ":" : "::";
    return spec + escaped(arg.name + ", " + arg.description, ":") + ":" + action(arg.hint) + "'";
}

void emit_function(std::ostream& out, const Command& c) {
    out << "\n" << function_name(c) << "() {\n";
    std::vector<std::string> specs{"$global_opts"};
    if (!c.path.empty())
        for (const auto& opt : c.options) specs.push_back(option_spec(opt));
    if (c.subcommands.empty()) {
        for (const auto& arg : c.arguments) specs.push_back(argument_spec(c, arg));
        out << "    _arguments -s";
        for (const auto& s : specs) out << " \\\n        " << s;
        out << "\n}\n";
        return;
    }
    out << "    local curcontext=$curcontext state state_descr line ret=1\n"
           "    typeset -A opt_args\n"
           "    _arguments -C -s";
    for (const auto& s : specs) out << " \\\n        " << s;
    out << " \\\n        ': :->command' '*:: :->args' && ret=0\n"
           "    case $state in\n"
           "        command)\n"
           "            local -a commands\n"
           "            commands=(\n";
    for (const auto& sub : c.subcommands)
        out << "                '" << escaped(sub.path.back(), ":") << ":"
            << quoted(sub.description) << "'\n";
    out << "            )\n"
           "            _describe -t commands 'wiredcap"
        << (c.path.empty() ? "" : " " + joined(c.path))
        << " command' commands && ret=0\n"
           "            ;;\n"
           "        args)\n"
           "            curcontext=${curcontext%:*:*}:wiredcap-$words[1]:\n"
           "            case $words[1] in\n";
    for (const auto& sub : c.subcommands)
        out << "                " << sub.path.back() << ") " << function_name(sub)
            << " && ret=0 ;;\n";
    out << "            esac\n"
           "            ;;\n"
           "    esac\n"
           "    return ret\n"
           "}\n";
    for (const auto& sub : c.subcommands) emit_function(out, sub);
}

}  // namespace

std::string emit_zsh(const Command& root) {
    std::ostringstream out;
    out << "#compdef wiredcap\n"
           "# zsh completion for wiredcap(1). Installed as share/zsh/site-functions/_wiredcap.\n"
        << commented(kGeneratedBy, "# ");
    emit_function(out, root);
    out << "\n# Global options: accepted before or after the command.\n"
           "_wiredcap() {\n"
           "    local -a global_opts\n"
           "    global_opts=(\n";
    for (const auto& opt : root.options) out << "        " << option_spec(opt) << "\n";
    out << "    )\n"
           "    _wiredcap_main \"$@\"\n"
           "}\n"
           "\n_wiredcap \"$@\"\n";
    return out.str();
}

}  // namespace wiredcap::cli::reference
