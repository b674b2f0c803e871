#include "wiredcap/cli/output/wrapping_buf.hpp"

#include "wiredcap/cli/output/text_wrap.hpp"

namespace wiredcap::cli {

WrappingBuf::~WrappingBuf() {
    if (!line_.empty()) write_rows(false);
    dest_->pubsync();
}

void WrappingBuf::put(char c) {
    if (c != '\n') {
        line_ += c;
        return;
    }
    write_rows(true);
}

void WrappingBuf::write_rows(bool complete) {
    // After a flush wrote part of this line, the rest is not re-wrapped: what is on the
    // screen stays where it is.
    const auto rows = opened_ ? std::vector<std::string>{line_} : wrap_line(line_, width_);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        dest_->sputn(rows[i].data(), static_cast<std::streamsize>(rows[i].size()));
        if (i + 1 < rows.size() || complete) dest_->sputc('\n');
    }
    // A half line written by a flush keeps its trailing space ("continue: "): wrap_line trims
    // the rows it breaks, so it is put back.
    if (!complete && line_.ends_with(' ') && !rows.back().ends_with(' ')) dest_->sputc(' ');
    line_.clear();
    opened_ = !complete;
    // Each line reaches the terminal as it is finished, so that it interleaves with the other
    // stream and with a prompt written straight to the terminal in the order it was written.
    if (complete) dest_->pubsync();
}

WrappingBuf::int_type WrappingBuf::overflow(int_type ch) {
    if (traits_type::eq_int_type(ch, traits_type::eof())) return traits_type::not_eof(ch);
    put(traits_type::to_char_type(ch));
    return ch;
}

std::streamsize WrappingBuf::xsputn(const char* s, std::streamsize n) {
    for (std::streamsize i = 0; i < n; ++i) put(s[i]);
    return n;
}

int WrappingBuf::sync() {
    if (!line_.empty()) write_rows(false);
    return dest_->pubsync();
}

void line_ended_by_input(std::ostream& stream) {
    if (auto* buf = dynamic_cast<WrappingBuf*>(stream.rdbuf())) buf->line_ended_by_input();
}

WrappedStream::WrappedStream(std::ostream& stream, std::size_t width)
    : stream_(stream), original_(stream.rdbuf()), flags_(stream.flags()), buf_(original_, width) {
    stream_.unsetf(std::ios_base::unitbuf);
    stream_.rdbuf(&buf_);
}

WrappedStream::~WrappedStream() {
    stream_.flush();
    stream_.rdbuf(original_);
    stream_.flags(flags_);
}

}  // namespace wiredcap::cli
