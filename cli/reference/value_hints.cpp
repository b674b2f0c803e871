#include "value_hints.hpp"

#include <string_view>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/runtime_defaults.hpp"
#include "wiredcap/journal/vocabulary.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::cli::reference {
namespace {

using Kind = ValueHint::Kind;

// "a, b, c" (the lists fit prints in its messages) as words.
std::vector<std::string> split_list(const std::string& list) {
    std::vector<std::string> out;
    std::string::size_type at = 0;
    while (at <= list.size()) {
        const auto comma = list.find(", ", at);
        out.push_back(list.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
        if (comma == std::string::npos) break;
        at = comma + 2;
    }
    return out;
}

// The units convert --to accepts: the unit tags' own symbols (pages are not offered).
std::vector<std::string> unit_symbols() {
    namespace u = wiredcap::units::unit;
    std::vector<std::string> out;
    for (const std::string_view s :
         {u::Bytes::symbol, u::KB::symbol, u::MB::symbol, u::GB::symbol, u::TB::symbol,
          u::KiB::symbol, u::MiB::symbol, u::GiB::symbol, u::TiB::symbol})
        out.emplace_back(s);
    return out;
}

struct Entry {
    std::string_view command;  // empty: the option of that name in any command
    std::string_view name;
    Kind kind;
};

// Files, directories and command lines, by what the option's value is.
constexpr Entry kKinds[] = {
    {"", "--policy", Kind::file},
    {"", "--journal", Kind::file},
    {"", "--sim-state", Kind::file},
    {"ramp", "--for", Kind::file},
    {"fit", "PATH", Kind::file},
    {"policy check", "FILE", Kind::file},
    {"", "--textfile-dir", Kind::directory},
    {"", "--linux-root", Kind::directory},
    {"ramp", "--probe", Kind::command_line},
    {"ramp", "--check", Kind::command_line},
};

}  // namespace

ValueHint value_hint(const std::vector<std::string>& path, const std::string& name) {
    const std::string command = joined(path);
    for (const auto& e : kKinds)
        if ((e.command.empty() || e.command == command) && e.name == name) return {e.kind, {}};
    if (name == "--kv-type" || name == "--kv-type-k" || name == "--kv-type-v")
        return {Kind::words, split_list(wiredcap::fit::kv_type_names())};
    if (name == "--runtime") return {Kind::words, split_list(wiredcap::fit::runtime_names())};
    if (command == "recover" && name == "--why") {
        namespace r = wiredcap::journal::forget_reason;
        return {Kind::words, {r::macos_update, r::hardware_change, r::other_cause}};
    }
    if (command == "convert" && name == "--to") return {Kind::words, unit_symbols()};
    if (command == "set" && name == "SIZE") return {Kind::words, {"default"}};
    return {};
}

std::vector<std::string> extra_excludes(const std::vector<std::string>& path,
                                        const std::string& option) {
    // persist --off forgets the stored value; SIZE and the options of storing one store it
    // (run_persist refuses the mix with its own message, so CLI11 is not told).
    if (joined(path) == "persist" && option == "--off")
        return {"--unconfirmed", "--lower", "--ignore-hang-ceiling", "ARGS"};
    return {};
}

}  // namespace wiredcap::cli::reference
