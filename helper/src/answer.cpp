#include "src/answer.hpp"

#include <cstdint>

#include "wiredcap/durable_write.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::helper {

// Nothing is left to do when a write fails: the exit code still says how the call ended.
int answer(const Result& r, std::string_view program) {
    (void)write_all(1, r.json_line + "\n", "standard output");
    if (!r.error.empty()) (void)write_all(2, std::string(program) + ": " + r.error + "\n", "standard error");
    return to_int(r.code);
}

int answer_failure(ExitCode code, const std::string& message, std::string_view program) {
    JsonObject o;
    o.num("v", 1).boolean("ok", false).num("exit", static_cast<std::uint64_t>(to_int(code))).str("error", message);
    return answer(Result{code, o.text(), message}, program);
}

}  // namespace wiredcap::helper
