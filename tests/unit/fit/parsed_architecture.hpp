// A test model's architecture as the fit library reads it: the GGUF a GgufWriter wrote, parsed
// and interpreted by the same code `wiredcap fit` runs. Throws with the library's message.
#pragma once

#include <span>
#include <stdexcept>
#include <string>

#include "model_writer.hpp"
#include "wiredcap/fit/gguf_architecture.hpp"
#include "wiredcap/fit/gguf_header.hpp"

namespace wiredcap::fit::testing {

inline Architecture parsed_architecture(const GgufWriter& w) {
    const std::string f = w.file();
    ByteReader in = ByteReader::of_memory(std::as_bytes(std::span(f.data(), f.size())));
    auto h = parse_gguf(in);
    if (!h) throw std::runtime_error(h.error().message);
    auto a = gguf_architecture(*h);
    if (!a) throw std::runtime_error(a.error().message);
    return *a;
}

}  // namespace wiredcap::fit::testing
