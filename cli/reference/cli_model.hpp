// What the generators of the completions and of wiredcap(1)'s OPTIONS need to know about the
// command line, read from the very CLI::App wiredcap parses with (define_app): each command's
// options, arguments and subcommands, with the values a shell can offer for each.
#pragma once

#include <string>
#include <vector>

namespace wiredcap::cli::reference {

// What a shell offers where a value is typed.
struct ValueHint {
    enum class Kind { none, file, directory, command_line, words };
    Kind kind = Kind::none;
    std::vector<std::string> words;  // Kind::words: the fixed choices
};

struct OptionEntry {
    std::string short_name;  // "-y", or empty
    std::string long_name;   // "--yes"
    std::string value_name;  // "SIZE", "TEXT:FILE", ...; empty for a flag
    std::string description;
    bool repeatable = false;
    bool ends_parsing = false;  // --help, --version: nothing else counts after them
    // Long names of the options it cannot be given with; "ARGS" when the command's arguments
    // exclude it too.
    std::vector<std::string> excludes;
    ValueHint hint;
};

struct Argument {
    std::string name;  // "SIZE"
    std::string description;
    bool required = false;
    ValueHint hint;
};

struct Command {
    std::vector<std::string> path;  // {"policy", "check"}; empty for wiredcap itself
    std::string description;
    std::vector<OptionEntry> options;  // its own, without the global ones
    std::vector<Argument> arguments;
    std::vector<Command> subcommands;
};

// The whole command line: root.options are the global ones, accepted before or after a command.
Command read_cli();

// "policy check", "" for the root.
std::string joined(const std::vector<std::string>& path, const std::string& separator = " ");

// The words joined by single spaces.
std::string spaced(const std::vector<std::string>& words);

// `text` with every line prefixed by `lead` ("# " for a shell comment), each line ended.
std::string commented(const std::string& text, const std::string& lead);

// Every command and subcommand, depth first (the root first).
std::vector<const Command*> all_commands(const Command& root);

}  // namespace wiredcap::cli::reference
