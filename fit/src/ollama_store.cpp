#include "wiredcap/fit/ollama_store.hpp"

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <type_traits>
#include <nlohmann/json.hpp>

#include "json_nesting.hpp"
#include "regular_file.hpp"
#include "wiredcap/fit/byte_reader.hpp"
#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {
namespace {

namespace fs = std::filesystem;

// Ollama's name parts: letters, digits, '.', '_', '-' (and ':' only before the tag). Anything
// else (a path, "..") is not a model name, so it cannot walk out of the store.
bool name_part(const std::string& s) {
    return !s.empty() && s.size() <= 128 && s != "." && s != ".." &&
           std::all_of(s.begin(), s.end(), [](char c) {
               return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                      c == '.' || c == '_' || c == '-';
           });
}

std::vector<std::string> split(const std::string& s, char sep) {
    std::vector<std::string> out;
    std::string::size_type at = 0;
    for (;;) {
        const auto next = s.find(sep, at);
        out.push_back(s.substr(at, next - at));
        if (next == std::string::npos) return out;
        at = next + 1;
    }
}

}  // namespace

std::optional<std::string> ollama_manifest_path(const std::string& name) {
    std::string path_part = name;
    std::string tag = "latest";
    if (const auto colon = name.rfind(':');
        colon != std::string::npos && name.find('/', colon) == std::string::npos) {
        path_part = name.substr(0, colon);
        tag = name.substr(colon + 1);
    }
    auto parts = split(path_part, '/');
    if (parts.size() == 1) parts.insert(parts.begin(), "library");
    if (parts.size() == 2) parts.insert(parts.begin(), "registry.ollama.ai");
    if (parts.size() != 3 || !name_part(tag)) return std::nullopt;
    for (const auto& p : parts)
        if (!name_part(p)) return std::nullopt;
    return (fs::path("manifests") / parts[0] / parts[1] / parts[2] / tag).string();
}

namespace {

Expected<std::string> read_text(const std::string& path, std::uint64_t limit) {
    auto file = RegularFile::open(path);
    if (!file) return file.error();
    if (file->size() > limit)
        return Error{printable_path(path) + " is larger than a manifest can be"};
    std::string text(static_cast<std::size_t>(file->size()), '\0');
    ByteReader in = ByteReader::of_file(file->fd(), text.size());
    if (!in.read(text.data(), text.size())) return Error{"cannot read " + printable_path(path)};
    return text;
}

// blobs/sha256-<64 hex> for a digest "sha256:<64 hex>".
std::optional<std::string> blob_name(const std::string& digest) {
    constexpr std::string_view prefix = "sha256:";
    if (digest.size() != prefix.size() + 64 || digest.compare(0, prefix.size(), prefix) != 0)
        return std::nullopt;
    const std::string hex = digest.substr(prefix.size());
    if (!std::all_of(hex.begin(), hex.end(),
                     [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
        return std::nullopt;
    return "sha256-" + hex;
}

}  // namespace

std::optional<std::string> ollama_models_dir() {
    if (const char* env = std::getenv("OLLAMA_MODELS"); env != nullptr && *env != '\0')
        return std::string(env);
    if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
        return (fs::path(home) / ".ollama" / "models").string();
    return std::nullopt;
}

Expected<OllamaManifest> parse_ollama_manifest(const std::string& text,
                                               const std::string& manifest) {
    // Three levels deep; one nested far deeper is refused before a tree is built of it.
    if (json_nesting(text) > kMaxJsonNesting)
        return Error{"the Ollama manifest " + printable_path(manifest) +
                     " nests deeper than a manifest does"};
    const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    const auto layers = doc.is_object() ? doc.find("layers") : doc.end();
    if (!doc.is_object() || layers == doc.end() || !layers->is_array())
        return Error{"the Ollama manifest " + printable_path(manifest) + " has no layers"};
    // A member of another type than a string is taken as absent (json::value would throw).
    const auto text_of = [](const nlohmann::json& o, const char* key) {
        const auto it = o.find(key);
        return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
    };
    OllamaManifest m;
    for (const auto& layer : *layers) {
        if (!layer.is_object()) continue;
        const auto type = text_of(layer, "mediaType");
        const bool model = type == "application/vnd.ollama.image.model";
        const bool adapter = type == "application/vnd.ollama.image.adapter";
        if (type == "application/vnd.ollama.image.params") {
            const auto blob = blob_name(text_of(layer, "digest"));
            if (!blob)
                return Error{"the Ollama manifest " + printable_path(manifest) +
                             " has a layer with no sha256 digest"};
            m.params_blob = *blob;
            continue;
        }
        if (!model && !adapter && type != "application/vnd.ollama.image.projector") continue;
        const auto blob = blob_name(text_of(layer, "digest"));
        if (!blob)
            return Error{"the Ollama manifest " + printable_path(manifest) +
                         " has a layer with no sha256 digest"};
        if (model) {
            if (!m.model_blob.empty())
                return Error{"the Ollama manifest " + printable_path(manifest) +
                             " names two models"};
            m.model_blob = *blob;
        } else if (adapter) {
            m.adapter_blobs.push_back(*blob);
        } else {
            m.projector_blobs.push_back(*blob);
        }
    }
    if (m.model_blob.empty())
        return Error{"the Ollama manifest " + printable_path(manifest) + " names no model layer"};
    return m;
}

Expected<OllamaParams> parse_ollama_params(const std::string& text) {
    if (json_nesting(text) > kMaxJsonNesting) return Error{"nests deeper than a params layer does"};
    const auto doc = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
    if (!doc.is_object()) return Error{"is not a JSON object"};
    OllamaParams p;
    // Ollama reads a number given as a float too (api.Options via JSON): a whole one is taken,
    // anything else refused rather than guessed.
    const auto whole = [&](const char* key, auto& into, auto lo, auto hi) -> std::optional<Error> {
        const auto it = doc.find(key);
        if (it == doc.end()) return std::nullopt;
        if (!it->is_number()) return Error{std::string(key) + " is not a number"};
        const double d = it->get<double>();
        if (d != static_cast<double>(static_cast<std::int64_t>(d)) || d < static_cast<double>(lo) ||
            d > static_cast<double>(hi))
            return Error{std::string(key) + " is not a whole number from " + std::to_string(lo) +
                         " to " + std::to_string(hi)};
        into = static_cast<std::remove_reference_t<decltype(*into)>>(d);
        return std::nullopt;
    };
    if (auto e = whole("num_ctx", p.num_ctx, std::uint64_t{1}, std::uint64_t{1} << 24)) return *e;
    if (auto e = whole("num_batch", p.num_batch, std::uint64_t{1}, std::uint64_t{1} << 20))
        return *e;
    if (auto e = whole("num_gpu", p.num_gpu, std::int64_t{-1}, std::int64_t{1} << 20)) return *e;
    return p;
}

Expected<std::optional<OllamaModel>> find_ollama_model(const std::string& name,
                                                       const std::string& store) {
    using Out = std::optional<OllamaModel>;
    const auto rel = ollama_manifest_path(name);
    if (!rel) return Out();
    const fs::path manifest = fs::path(store) / *rel;
    std::error_code ec;
    if (!fs::is_regular_file(manifest, ec)) return Out();
    auto text = read_text(manifest.string(), 1u << 20);
    if (!text) return text.error();
    auto parsed = parse_ollama_manifest(*text, manifest.string());
    if (!parsed) return parsed.error();
    OllamaModel m;
    m.manifest = manifest.string();
    const auto present = [&](const std::string& blob) -> Expected<std::string> {
        const std::string path = (fs::path(store) / "blobs" / blob).string();
        if (!fs::exists(path, ec))
            return Error{"Ollama's blob " + printable_path(path) + " for " + printable(name) +
                         " is missing (an interrupted pull? run: ollama pull " + printable(name) +
                         ")"};
        return path;
    };
    auto model = present(parsed->model_blob);
    if (!model) return model.error();
    m.model_blob = *model;
    for (const auto& [blobs, paths] : {std::pair{&parsed->projector_blobs, &m.projectors},
                                       std::pair{&parsed->adapter_blobs, &m.adapters}}) {
        for (const auto& b : *blobs) {
            auto p = present(b);
            if (!p) return p.error();
            paths->push_back(*p);
        }
    }
    if (!parsed->params_blob.empty()) {
        auto path = present(parsed->params_blob);
        if (!path) return path.error();
        auto ptext = read_text(*path, 1u << 20);
        if (!ptext) return ptext.error();
        auto params = parse_ollama_params(*ptext);
        if (!params)
            return Error{"the params layer " + printable_path(*path) + " of " + printable(name) +
                         " " + params.error().message};
        m.params = *params;
    }
    return Out(std::move(m));
}

}  // namespace wiredcap::fit
