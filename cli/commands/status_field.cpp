#include "wiredcap/cli/commands/status_field.hpp"

#include <ostream>
#include <sstream>

#include "wiredcap/cli/commands/status.hpp"
#include "wiredcap/cli/readings/json_value.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

// The member `path` names under `v`: at each level the longest run of dotted words that is a
// member, since some names hold dots themselves ("iogpu.wired_lwm_mb").
const json::Value* member(const json::Value& v, std::string_view path) {
    std::size_t end = path.size();
    for (;;) {
        if (const json::Value* m = json::get(v, path.substr(0, end))) {
            if (end == path.size()) return m;
            if (const json::Value* deeper = member(*m, path.substr(end + 1))) return deeper;
        }
        if (end == 0) return nullptr;
        end = path.rfind('.', end - 1);
        if (end == std::string_view::npos) return nullptr;
    }
}

std::string bare(const json::Value& v) {
    if (v.is_object() && v.contains("value")) return bare(v["value"]);
    if (v.is_string()) return v.get<std::string>();
    return v.dump();
}

std::string top_level_names(const json::Value& v) {
    std::string names;
    for (const auto& [key, _] : v.items()) names += (names.empty() ? "" : ", ") + key;
    return names;
}

}  // namespace

ExitCode run_status_fields(CliContext& ctx, const std::vector<std::string>& names) {
    std::ostringstream answer;
    CliContext as_json{ctx.helper, true, answer, ctx.err};
    const ExitCode code = run_status(as_json);
    auto parsed = json::parse(answer.str());
    if (!parsed) {
        return fail(ctx.err, "status", code == ExitCode::ok ? ExitCode::internal_error : code,
                    "no readings to take fields from");
    }
    std::string lines;
    for (const auto& name : names) {
        const json::Value* v = member(*parsed, name);
        if (v == nullptr) {
            return fail(ctx.err, "status", ExitCode::usage, "no field '", name,
                        "' in status --json; its fields are ", top_level_names(*parsed),
                        " (a nested one as policy.max_mib)");
        }
        lines += bare(*v) + "\n";
    }
    ctx.out << lines;
    return code;
}

}  // namespace wiredcap::cli
