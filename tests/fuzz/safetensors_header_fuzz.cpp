// libFuzzer target for the safetensors header parser: whatever the bytes, no crash, no throw,
// and these properties hold. Replayed over the corpus as an ordinary test in every build.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string>
#include <string_view>

#include "wiredcap/fit/hf_config.hpp"
#include "wiredcap/fit/safetensors_header.hpp"

#include "fuzz_checks.hpp"

namespace {

using wiredcap::fuzz::printable_message;
using wiredcap::fuzz::require;
using namespace wiredcap::fit;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(data, size)));
    const auto h = parse_safetensors(in);
    if (h) require(h->tensor_bytes.count() <= size);  // every range lies inside the input
    else require(printable_message(h.error().message));
    // The same bytes as a config.json: an answer or an error, never a crash.
    const auto arch = hf_architecture(std::string(reinterpret_cast<const char*>(data), size));
    if (arch) require(printable_message(arch->name) && !arch->layers.empty());
    else require(printable_message(arch.error().message));
    return 0;
}
