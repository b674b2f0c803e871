// Under --json, every run prints exactly one JSON object on stdout, a failure included: a
// command that fails before it has its own answer to give (a size refused, no terminal to ask
// on, a plan refused) gets wiredcap.error/1, carrying the message it printed on stderr. The
// streams pass everything through as it is written (a ramp's narration and prompts are live);
// they only note whether stdout got anything and keep a copy of wiredcap's messages.
#pragma once

#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "wiredcap/exit_codes.hpp"

namespace wiredcap::cli {

// Forwards to another buffer; counts what passed and keeps up to a bound of it.
class NotingBuf : public std::streambuf {
public:
    NotingBuf(std::streambuf* target, std::size_t keep) : target_(target), keep_(keep) {}
    [[nodiscard]] std::size_t written() const { return written_; }
    [[nodiscard]] const std::string& kept() const { return kept_; }

protected:
    int_type overflow(int_type c) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    int sync() override { return target_->pubsync(); }

private:
    void note(const char* s, std::size_t n);
    std::streambuf* target_;
    std::size_t keep_;
    std::size_t written_ = 0;
    std::string kept_;
};

class JsonMode {
public:
    JsonMode(std::ostream& out, std::ostream& err);
    std::ostream& out() { return out_; }
    std::ostream& err() { return err_; }
    // After the command ran: when it failed and printed nothing on stdout, its error object.
    void finish(std::string_view command, ExitCode code);

private:
    std::ostream& real_out_;
    NotingBuf out_buf_, err_buf_;
    std::ostream out_, err_;
};

// wiredcap's own messages in what went to stderr ("wiredcap set: ..." lines), without the
// prefix, one per line; the narration around them is left out.
[[nodiscard]] std::string messages_of(std::string_view stderr_text);

// True when argv holds --json: a command line CLI11 refused still gets its error object.
[[nodiscard]] bool wants_json(int argc, const char* const* argv);

}  // namespace wiredcap::cli
