#include "src/answer.hpp"

#include <unistd.h>

#include <cstdint>

#include "wiredcap/json_writer.hpp"

namespace wiredcap::helper {

void write_all(int fd, const std::string& s) noexcept {
    std::size_t done = 0;
    while (done < s.size()) {
        const ssize_t n = ::write(fd, s.data() + done, s.size() - done);
        if (n <= 0) return;
        done += static_cast<std::size_t>(n);
    }
}

int answer(const Result& r, std::string_view program) {
    write_all(1, r.json_line + "\n");
    if (!r.error.empty()) write_all(2, std::string(program) + ": " + r.error + "\n");
    return to_int(r.code);
}

int answer_failure(ExitCode code, const std::string& message, std::string_view program) {
    JsonObject o;
    o.num("v", 1).boolean("ok", false).num("exit", static_cast<std::uint64_t>(to_int(code))).str("error", message);
    return answer(Result{code, o.text(), message}, program);
}

}  // namespace wiredcap::helper
