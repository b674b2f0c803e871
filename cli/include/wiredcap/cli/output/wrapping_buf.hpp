// A stream buffer that wraps every line written through it to a width (text_wrap.hpp), so that
// each command's human output fits the terminal without each message wrapping itself.
#pragma once

#include <cstddef>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>

namespace wiredcap::cli {

class WrappingBuf : public std::streambuf {
public:
    WrappingBuf(std::streambuf* dest, std::size_t width) : dest_(dest), width_(width) {}
    WrappingBuf(const WrappingBuf&) = delete;
    WrappingBuf& operator=(const WrappingBuf&) = delete;
    ~WrappingBuf() override;

protected:
    int_type overflow(int_type ch) override;
    std::streamsize xsputn(const char* s, std::streamsize n) override;
    // A flush with half a line pending (a question before its answer): the half is wrapped
    // and written, and the rest of that line is written as it comes.
    int sync() override;

public:
    // The person ended the half line a flush left open (their answer's Enter, echoed by the
    // terminal): what follows starts a new line and is wrapped again.
    void line_ended_by_input() { opened_ = false; }

private:
    void put(char c);
    void write_rows(bool complete);

    std::streambuf* dest_;
    std::size_t width_;
    std::string line_;     // the current line, not yet written
    bool opened_ = false;  // part of the current line was written by a flush
};

// While alive, `stream` writes through a WrappingBuf of `width` (unbuffered streams such as
// std::cerr become line-buffered: each flush of a half line would otherwise cut it unwrapped).
class WrappedStream {
public:
    WrappedStream(std::ostream& stream, std::size_t width);
    WrappedStream(const WrappedStream&) = delete;
    WrappedStream& operator=(const WrappedStream&) = delete;
    ~WrappedStream();

private:
    std::ostream& stream_;
    std::streambuf* original_;
    std::ios_base::fmtflags flags_;
    WrappingBuf buf_;
};

// After reading a person's answer to a question written to `stream`: the terminal's echo of
// Enter ended the line, so the next message is wrapped from column 0. A stream that does not
// wrap is left alone.
void line_ended_by_input(std::ostream& stream);

}  // namespace wiredcap::cli
