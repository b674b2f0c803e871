// libFuzzer target for the size parser: whatever the bytes, parse_size must not crash, throw,
// or break one of the properties below. Built with -fsanitize=fuzzer under clang; replayed over
// the corpus as an ordinary test in every build (replay_main.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "wiredcap/units/units.hpp"

namespace {

using namespace wiredcap::units;

void require(bool ok) {
    if (!ok) std::abort();
}

// A message may quote the input, but never a raw control byte or non-ASCII byte of it: the
// parser's errors end up on terminals and in logs.
bool printable(std::string_view message) {
    for (std::size_t i = 0; i < message.size(); ++i) {
        const auto c = static_cast<unsigned char>(message[i]);
        if (c < 0x20 || c >= 0x7f) return false;
    }
    return true;
}

void check(std::string_view text) {
    const auto parsed = parse_size(text);
    const auto as_mib = parse_count_in(text, SizeUnit::mebibytes);
    if (!parsed) {
        require(!parsed.error().message.empty());
        require(printable(parsed.error().message));
        require(!as_mib);
        return;
    }
    // Print-then-parse gives the same value back.
    const Bytes b = parsed->bytes;
    const auto again = parse_size(to_string(b));
    require(again.has_value() && again->bytes == b);
    // Converting to MiB succeeds exactly when the bytes are a whole number of MiB.
    require(as_mib.has_value() == (b.count() % (1ULL << 20) == 0));
    if (as_mib) require(*as_mib == b.count() >> 20);
    if (!as_mib) require(printable(as_mib.error().message));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    check(std::string_view(reinterpret_cast<const char*>(data), size));
    return 0;
}
