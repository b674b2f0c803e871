// libFuzzer target for the files that say where a model's weights are: a Hugging Face
// model.safetensors.index.json and an Ollama manifest (and Ollama's model names). The two are
// JSON documents naming files, so one target feeds the same bytes to both parsers (sharing
// keeps tools/fuzz's wall time: see there). Whatever the bytes: no crash, no throw, and no
// name that leaves its folder. Replayed over the corpus as an ordinary test in every build.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "wiredcap/fit/hf_index.hpp"
#include "wiredcap/fit/ollama_store.hpp"

#include "fuzz_checks.hpp"

namespace {

using wiredcap::fuzz::printable_message;
using wiredcap::fuzz::require;
using namespace wiredcap::fit;

bool hex_blob(const std::string& b) {
    return b.size() == 7 + 64 && b.rfind("sha256-", 0) == 0 &&
           std::all_of(b.begin() + 7, b.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

// A path that stays in its folder: relative, no "." or ".." component, no empty one.
bool inside(std::string_view p) {
    if (p.empty() || p.front() == '/') return false;
    std::size_t at = 0;
    for (;;) {
        const auto next = p.find('/', at);
        const auto part = p.substr(at, next - at);
        if (part.empty() || part == "." || part == "..") return false;
        if (next == std::string_view::npos) return true;
        at = next + 1;
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (const auto index = parse_safetensors_index(text)) {
        require(!index->shards.empty() &&
                std::is_sorted(index->shards.begin(), index->shards.end()));
        require(std::adjacent_find(index->shards.begin(), index->shards.end()) ==
                index->shards.end());
        for (const auto& s : index->shards) require(inside(s) && s.find('/') == std::string::npos);
    } else {
        require(printable_message(index.error().message));
    }
    if (const auto m = parse_ollama_manifest(text, "m")) {
        require(hex_blob(m->model_blob));
        for (const auto& p : m->projector_blobs) require(hex_blob(p));
    } else {
        require(printable_message(m.error().message));
    }
    // The same bytes as a model name: a manifest path inside the store, or not a name.
    if (const auto path = ollama_manifest_path(text))
        require(inside(*path) && path->rfind("manifests/", 0) == 0);
    return 0;
}
