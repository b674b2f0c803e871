// How deeply a JSON text nests objects and arrays, counted before it is parsed. The files fit
// reads as JSON (a safetensors header, a Hugging Face index, an Ollama manifest) are three
// levels deep; one nested a million levels deep costs a parser seconds and a tree of it tens of
// megabytes, so it is refused by this one linear pass first.
#pragma once

#include <cstddef>
#include <string_view>

namespace wiredcap::fit {

// Deeper than any of fit's JSON files nests (each is three levels; room is left for metadata).
inline constexpr std::size_t kMaxJsonNesting = 8;

// The deepest nesting of objects and arrays outside strings.
[[nodiscard]] std::size_t json_nesting(std::string_view text);

}  // namespace wiredcap::fit
