#include "cli_model.hpp"

#include <CLI/CLI.hpp>

#include <algorithm>

#include "value_hints.hpp"
#include "wiredcap/cli/app_definition.hpp"

namespace wiredcap::cli::reference {
namespace {

void add_unique(std::vector<std::string>& to, const std::string& name) {
    if (std::find(to.begin(), to.end(), name) == to.end()) to.push_back(name);
}

OptionEntry read_option(const CLI::App& app, const CLI::Option& opt,
                        const std::vector<std::string>& path) {
    OptionEntry e;
    if (!opt.get_snames().empty()) e.short_name = "-" + opt.get_snames().front();
    e.long_name = "--" + opt.get_lnames().front();
    if (opt.get_type_size_max() > 0) e.value_name = opt.get_type_name();
    e.description = opt.get_description();
    e.repeatable = opt.get_type_size_max() > 0 && opt.get_items_expected_max() > 1;
    e.ends_parsing = &opt == app.get_help_ptr() || &opt == app.get_version_ptr();
    for (const CLI::Option* other : opt.get_excludes())
        add_unique(e.excludes, "--" + other->get_lnames().front());
    for (const auto& name : extra_excludes(path, e.long_name)) add_unique(e.excludes, name);
    e.hint = value_hint(path, e.long_name);
    // A validator that names what the value is (CLI::ExistingFile) says it without the table.
    if (e.hint.kind == ValueHint::Kind::none && e.value_name.ends_with(":FILE"))
        e.hint.kind = ValueHint::Kind::file;
    return e;
}

// An exclusion declared on one side holds on both.
void make_exclusions_mutual(Command& c) {
    for (auto& a : c.options)
        for (const auto& name : a.excludes)
            for (auto& b : c.options)
                if (b.long_name == name) add_unique(b.excludes, a.long_name);
}

Command read_command(const CLI::App& app, std::vector<std::string> path) {
    Command c;
    c.path = path;
    c.description = app.get_description();
    for (const CLI::Option* opt : app.get_options()) {
        if (!opt->nonpositional()) {
            c.arguments.push_back({opt->get_name(), opt->get_description(), opt->get_required(),
                                   value_hint(path, opt->get_name())});
            continue;
        }
        // A command's own --help is the global one again: listed once, with the globals.
        if (!path.empty() && opt == app.get_help_ptr()) continue;
        c.options.push_back(read_option(app, *opt, path));
    }
    make_exclusions_mutual(c);
    for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
        auto sub_path = path;
        sub_path.push_back(sub->get_name());
        c.subcommands.push_back(read_command(*sub, sub_path));
    }
    return c;
}

}  // namespace

Command read_cli() {
    Options o;  // declared first: the app keeps references into it
    CLI::App app;
    define_app(app, o);
    Command root = read_command(app, {});
    // `help COMMAND` names a command: every one but help itself.
    for (auto& sub : root.subcommands) {
        if (sub.path.back() != "help") continue;
        for (auto& arg : sub.arguments) {
            arg.hint.kind = ValueHint::Kind::words;
            for (const auto& other : root.subcommands)
                if (other.path.back() != "help") arg.hint.words.push_back(other.path.back());
        }
    }
    return root;
}

std::string joined(const std::vector<std::string>& path, const std::string& separator) {
    std::string out;
    for (const auto& word : path) out += (out.empty() ? "" : separator) + word;
    return out;
}

std::string spaced(const std::vector<std::string>& words) { return joined(words, " "); }

std::string commented(const std::string& text, const std::string& lead) {
    std::string out = lead;
    for (const char ch : text) out += ch == '\n' ? "\n" + lead : std::string(1, ch);
    return out + "\n";
}

std::vector<const Command*> all_commands(const Command& root) {
    std::vector<const Command*> out{&root};
    for (const auto& sub : root.subcommands)
        for (const Command* c : all_commands(sub)) out.push_back(c);
    return out;
}

}  // namespace wiredcap::cli::reference
