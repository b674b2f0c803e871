// Ollama's model store: a model NAME[:TAG] (`llama3.1:70b`, `user/model`, `host/ns/model:tag`)
// is a manifest under $OLLAMA_MODELS (default ~/.ollama/models) at
// manifests/<host>/<namespace>/<model>/<tag> (registry.ollama.ai/library and latest by default),
// whose layers name blobs/sha256-<hex>: the model's GGUF (application/vnd.ollama.image.model)
// and, for vision models, its projector's (application/vnd.ollama.image.projector); a model made
// with ADAPTER in its Modelfile also names LoRA adapters (application/vnd.ollama.image.adapter),
// which the runner loads beside the model.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/fit/model_files.hpp"
#include "wiredcap/expected.hpp"

namespace wiredcap::fit {

struct OllamaModel {
    std::string manifest;                 // its path
    std::string model_blob;               // the model's GGUF
    std::vector<std::string> projectors;  // projector GGUFs, counted with the weights
    std::vector<std::string> adapters;    // LoRA adapter GGUFs, counted with the weights
    OllamaParams params;                  // the params layer's, when the manifest has one
};

// What a manifest names: the blob file names (sha256-<64 hex>) of the model layer, of its
// projectors and of its adapters. Pure, so it is fuzzed alone (tests/fuzz/model_index_fuzz.cpp); `manifest` names
// the file in messages.
struct OllamaManifest {
    std::string model_blob;
    std::vector<std::string> projector_blobs;
    std::vector<std::string> adapter_blobs;
    std::string
        params_blob;  // application/vnd.ollama.image.params (the Modelfile's PARAMETERs), or empty
};

// The params layer's JSON ({"num_ctx": 32768, "stop": [...]}): the members that change the need.
// Pure, so it is fuzzed with the manifest.
[[nodiscard]] Expected<OllamaParams> parse_ollama_params(const std::string& text);
[[nodiscard]] Expected<OllamaManifest> parse_ollama_manifest(const std::string& text,
                                                             const std::string& manifest);

// manifests/<host>/<namespace>/<model>/<tag> for NAME[:TAG], relative to the store; nullopt for
// what is not a model name (a path, "..", a character Ollama does not allow).
[[nodiscard]] std::optional<std::string> ollama_manifest_path(const std::string& name);

// Where Ollama keeps models: $OLLAMA_MODELS, else $HOME/.ollama/models; nullopt without either.
[[nodiscard]] std::optional<std::string> ollama_models_dir();

// nullopt when NAME is not a model name or the store has no manifest for it; an error when the
// manifest is there but unusable (its blob missing, no model layer).
[[nodiscard]] Expected<std::optional<OllamaModel>> find_ollama_model(const std::string& name,
                                                                     const std::string& store);

}  // namespace wiredcap::fit
