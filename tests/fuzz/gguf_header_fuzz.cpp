// libFuzzer target for the GGUF header parser and the attention layout read from it: whatever
// the bytes, no crash, no throw, and these properties hold. Replayed over the corpus as an
// ordinary test in every build (replay_main.cpp).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <string_view>

#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/gguf_header.hpp"
#include "wiredcap/fit/kv_cache.hpp"

#include "fuzz_checks.hpp"

namespace {

using wiredcap::fuzz::printable_message;
using wiredcap::fuzz::require;
using namespace wiredcap::fit;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(data, size)));
    const auto h = parse_gguf(in);
    if (!h) {
        require(printable_message(h.error().message));
        return 0;
    }
    // Every tensor lies inside the input, apart from the others: their sum cannot exceed it.
    require(h->tensor_bytes.count() <= size);
    require(h->data_offset <= size || h->tensor_count == 0);
    const auto arch = gguf_architecture(*h);
    if (!arch) {
        require(printable_message(arch.error().message));
        return 0;
    }
    require(printable_message(arch->name) && printable_message(arch->source));
    for (const auto type : {KvType::f16, KvType::q8_0, KvType::q4_0, KvType::iq4_nl}) {
        const auto kv = estimate_kv(*arch, KvRequest{131072, 4, type, type});
        if (!kv) require(printable_message(kv.error().message));
        else require(kv->per_token <= kv->total || kv->full_layers == 0);
    }
    return 0;
}
