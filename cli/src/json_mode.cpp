#include "wiredcap/cli/json_mode.hpp"

#include <algorithm>

#include "wiredcap/cli/json_contract.hpp"

namespace wiredcap::cli {

namespace {
// Error messages are short; a ramp's narration can be long and is not needed.
constexpr std::size_t kKeptStderr = 64 * 1024;
}  // namespace

void NotingBuf::note(const char* s, std::size_t n) {
    written_ += n;
    if (kept_.size() < keep_) kept_.append(s, std::min(n, keep_ - kept_.size()));
}

NotingBuf::int_type NotingBuf::overflow(int_type c) {
    if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
    const char ch = traits_type::to_char_type(c);
    if (traits_type::eq_int_type(target_->sputc(ch), traits_type::eof())) return traits_type::eof();
    note(&ch, 1);
    return c;
}

std::streamsize NotingBuf::xsputn(const char* s, std::streamsize n) {
    const std::streamsize done = target_->sputn(s, n);
    if (done > 0) note(s, static_cast<std::size_t>(done));
    return done;
}

JsonMode::JsonMode(std::ostream& out, std::ostream& err)
    : real_out_(out),
      out_buf_(out.rdbuf(), 0),
      err_buf_(err.rdbuf(), kKeptStderr),
      out_(&out_buf_),
      err_(&err_buf_) {}

void JsonMode::finish(std::string_view command, ExitCode code) {
    out_.flush();
    err_.flush();
    if (code == ExitCode::ok || out_buf_.written() != 0) return;
    std::string message = messages_of(err_buf_.kept());
    if (message.empty()) message = "exit " + std::to_string(to_int(code)) + " (no message)";
    real_out_ << contract::error(command, code, message) << "\n" << std::flush;
}

std::string messages_of(std::string_view text) {
    std::string out;
    while (!text.empty()) {
        const auto nl = text.find('\n');
        std::string_view line = text.substr(0, nl);
        text = nl == std::string_view::npos ? std::string_view() : text.substr(nl + 1);
        // "wiredcap: ..." or "wiredcap set: ...", "wiredcap policy check: ...".
        if (!line.starts_with("wiredcap")) continue;
        const auto colon = line.find(": ");
        if (colon == std::string_view::npos) continue;
        const std::string_view who = line.substr(0, colon);
        if (who.find_first_not_of("abcdefghijklmnopqrstuvwxyz ") != std::string_view::npos)
            continue;
        if (!out.empty()) out += "\n";
        out += line.substr(colon + 2);
    }
    return out;
}

bool wants_json(int argc, const char* const* argv) {
    for (int i = 1; i < argc; ++i)
        if (std::string_view(argv[i]) == "--json") return true;
    return false;
}

}  // namespace wiredcap::cli
