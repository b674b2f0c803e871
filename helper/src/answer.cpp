#include "wiredcap/helper/answer.hpp"

#include <cstdint>

#include "wiredcap/durable_write.hpp"
#include "wiredcap/json_writer.hpp"

namespace wiredcap::helper {

// Nothing is left to do when a write fails: the exit code still says how the call ended.
int answer(const Result& r, std::string_view program) noexcept {
    if (write_fully(1, r.json_line)) (void)write_fully(1, "\n");
    if (!r.error.empty() && write_fully(2, program) && write_fully(2, ": ") && write_fully(2, r.error))
        (void)write_fully(2, "\n");
    return to_int(r.code);
}

int answer_failure(ExitCode code, const std::string& message, std::string_view program) {
    JsonObject o;
    o.num("v", 1).boolean("ok", false).num("exit", static_cast<std::uint64_t>(to_int(code))).str("error", message);
    return answer(Result{code, o.text(), message}, program);
}

}  // namespace wiredcap::helper
