// The bash completion: fixed functions that read the command line, and case tables generated
// from the model. Runs in bash 3.2 (macOS's /bin/bash): no associative arrays, no mapfile.
#include <sstream>

#include "emitters.hpp"

namespace wiredcap::cli::reference {
namespace {

constexpr const char* kReader = R"BASH(
# Sets COMPREPLY to compgen's words, one per line (file names may contain spaces). A read loop,
# not mapfile: mapfile is not in bash 3.2.
_wiredcap_reply() {
    local line
    COMPREPLY=()
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen "$@")
}

# Prints WORDS without the NAMEs: _wiredcap_drop WORDS NAME...
_wiredcap_drop() {
    local word name out=''
    for word in $1; do
        for name in "${@:2}"; do [[ $word == "$name" ]] && continue 2; done
        out="$out $word"
    done
    printf '%s' "$out"
}

_wiredcap() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=''
    if ((COMP_CWORD > 0)); then prev=${COMP_WORDS[COMP_CWORD - 1]}; fi
    # `--to=1` is split at '=' by COMP_WORDBREAKS: complete the value of the option before it.
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    # The command typed so far ("policy check"), the options seen, and whether an argument of
    # the command was typed; the values of options are skipped.
    local i word path='' seen=' ' args=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            -*)
                seen="$seen$word "
                if _wiredcap_takes_value "$path" "$word"; then
                    ((i++))
                    if [[ ${COMP_WORDS[i]} == = ]]; then ((i++)); fi
                fi
                ;;
            *)
                if [[ -z $args ]] && _wiredcap_is_command "$path" "$word"; then
                    path=${path:+$path }$word
                else
                    args=1
                fi
                ;;
        esac
    done

    COMPREPLY=()
    if _wiredcap_takes_value "$path" "$prev"; then
        _wiredcap_value "$path" "$prev" "$cur"
        return 0
    fi
    local words=''
    if [[ $cur == -* ]]; then
        _wiredcap_options "$path" "$seen" "$args"
    else
        _wiredcap_arguments "$path" "$cur" "$seen" || return 0
    fi
    if [[ -n $words ]]; then _wiredcap_reply -W "$words" -- "$cur"; fi
    return 0
}
)BASH";

// `"$1 $2"` case patterns for a global option (any command) or a command's own.
std::string pattern(const Command& c, const std::string& name) {
    return c.path.empty() ? "*\" " + name + "\"" : "\"" + joined(c.path) + " " + name + "\"";
}

std::string or_joined(const std::vector<std::string>& patterns) { return joined(patterns, " | "); }

void takes_value(std::ostream& out, const Command& root) {
    out << "\n# Whether OPTION of COMMAND takes a value: _wiredcap_takes_value COMMAND OPTION\n"
           "_wiredcap_takes_value() {\n    case \"$1 $2\" in\n";
    std::vector<std::string> patterns;
    for (const Command* c : all_commands(root))
        for (const auto& opt : c->options)
            if (!opt.value_name.empty()) patterns.push_back(pattern(*c, opt.long_name));
    out << "        " << or_joined(patterns) << ") return 0 ;;\n    esac\n    return 1\n}\n";
}

void is_command(std::ostream& out, const Command& root) {
    out << "\n# Whether WORD is a subcommand of COMMAND: _wiredcap_is_command COMMAND WORD\n"
           "_wiredcap_is_command() {\n    case \"$1 $2\" in\n";
    std::vector<std::string> patterns;
    for (const Command* c : all_commands(root))
        for (const auto& sub : c->subcommands)
            patterns.push_back("\"" + joined(c->path) + " " + sub.path.back() + "\"");
    out << "        " << or_joined(patterns) << ") return 0 ;;\n    esac\n    return 1\n}\n";
}

// The compgen call that offers a value of `hint`'s kind, the word typed being in `cur`.
std::string reply(const ValueHint& hint, const std::string& cur) {
    switch (hint.kind) {
        case ValueHint::Kind::file:
            return "compopt -o filenames 2>/dev/null; _wiredcap_reply -f -- \"" + cur + "\"";
        case ValueHint::Kind::directory:
            return "compopt -o dirnames 2>/dev/null; _wiredcap_reply -d -- \"" + cur + "\"";
        case ValueHint::Kind::command_line: return "_wiredcap_reply -c -- \"" + cur + "\"";
        case ValueHint::Kind::words:
            return "_wiredcap_reply -W \"" + spaced(hint.words) + "\" -- \"" + cur + "\"";
        case ValueHint::Kind::none: break;
    }
    return ":";
}

void values(std::ostream& out, const Command& root) {
    out << "\n# Offers the values of OPTION: _wiredcap_value COMMAND OPTION CUR\n"
           "_wiredcap_value() {\n    case \"$1 $2\" in\n";
    for (const Command* c : all_commands(root))
        for (const auto& opt : c->options)
            if (opt.hint.kind != ValueHint::Kind::none)
                out << "        " << pattern(*c, opt.long_name) << ") " << reply(opt.hint, "$3")
                    << " ;;\n";
    out << "    esac\n}\n";
}

// The condition that one of `names` (long, with a short alias where there is one) was seen.
std::string seen_any(const Command& c, const std::vector<std::string>& names) {
    std::vector<std::string> tests;
    for (const auto& name : names) {
        if (name == "ARGS") {
            tests.push_back("-n $3");
            continue;
        }
        tests.push_back("$2 == *\" " + name + " \"*");
        for (const auto& opt : c.options)
            if (opt.long_name == name && !opt.short_name.empty())
                tests.push_back("$2 == *\" " + opt.short_name + " \"*");
    }
    std::string out;
    for (const auto& t : tests) out += (out.empty() ? "" : " || ") + std::string("[[ ") + t + " ]]";
    return out;
}

void options(std::ostream& out, const Command& root) {
    std::vector<std::string> globals;
    for (const auto& opt : root.options) globals.push_back(opt.long_name);
    out << "\n# Sets words to the options of COMMAND not excluded by those SEEN (or by ARGS, an\n"
           "# argument typed): _wiredcap_options COMMAND SEEN ARGS\n"
           "_wiredcap_options() {\n    case $1 in\n";
    for (const Command* c : all_commands(root)) {
        std::vector<std::string> own;
        for (const auto& opt : c->options) own.push_back(opt.long_name);
        out << "        \"" << joined(c->path) << "\")\n";
        out << "            words=\"" << spaced(c->path.empty() ? globals : own)
            << (c->path.empty() ? "" : (own.empty() ? "" : " ") + spaced(globals)) << "\"\n";
        for (const auto& opt : c->options) {
            std::vector<std::string> options_excluded;  // the arguments are not offered here
            for (const auto& name : opt.excludes)
                if (name != "ARGS") options_excluded.push_back(name);
            if (!options_excluded.empty())
                out << "            if " << seen_any(*c, {opt.long_name})
                    << "; then words=$(_wiredcap_drop \"$words\" " << spaced(options_excluded)
                    << "); fi\n";
        }
        for (const auto& opt : c->options)
            for (const auto& name : opt.excludes)
                if (name == "ARGS")
                    out << "            if [[ -n $3 ]]; then words=$(_wiredcap_drop \"$words\" "
                        << opt.long_name << "); fi\n";
        out << "            ;;\n";
    }
    out << "    esac\n}\n";
}

// Subcommands, or the values of the command's argument; returns 1 when COMPREPLY is set.
void arguments(std::ostream& out, const Command& root) {
    out << "\n# Sets words to what may follow COMMAND here, or fills COMPREPLY and returns 1:\n"
           "# _wiredcap_arguments COMMAND CUR SEEN\n"
           "_wiredcap_arguments() {\n    case $1 in\n";
    for (const Command* c : all_commands(root)) {
        std::vector<std::string> subs;
        for (const auto& sub : c->subcommands) subs.push_back(sub.path.back());
        if (!subs.empty()) {
            out << "        \"" << joined(c->path) << "\") words=\"" << spaced(subs) << "\" ;;\n";
            continue;
        }
        if (c->arguments.empty() || c->arguments.front().hint.kind == ValueHint::Kind::none)
            continue;
        const ValueHint& hint = c->arguments.front().hint;
        if (hint.kind == ValueHint::Kind::words)
            out << "        \"" << joined(c->path) << "\") words=\"" << spaced(hint.words)
                << "\" ;;\n";
        else
            out << "        \"" << joined(c->path) << "\")\n            " << reply(hint, "$2")
                << "\n            return 1\n            ;;\n";
    }
    out << "    esac\n    return 0\n}\n";
}

}  // namespace

std::string emit_bash(const Command& root) {
    std::ostringstream out;
    out << "# bash completion for wiredcap(1). Installed as share/bash-completion/completions/wiredcap.\n"
           "# Self-contained: needs no function of the bash-completion package, and runs in bash 3.2\n"
           "# (macOS's /bin/bash) as well as in bash 5.\n"
        << commented(kGeneratedBy, "# ") << kReader;
    takes_value(out, root);
    is_command(out, root);
    values(out, root);
    options(out, root);
    arguments(out, root);
    out << "\ncomplete -F _wiredcap wiredcap\n";
    return out.str();
}

}  // namespace wiredcap::cli::reference
