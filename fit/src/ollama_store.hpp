// Ollama's model store: a model NAME[:TAG] (`llama3.1:70b`, `user/model`, `host/ns/model:tag`)
// is a manifest under $OLLAMA_MODELS (default ~/.ollama/models) at
// manifests/<host>/<namespace>/<model>/<tag> (registry.ollama.ai/library and latest by default),
// whose layers name blobs/sha256-<hex>: the model's GGUF (application/vnd.ollama.image.model)
// and, for vision models, its projector's (application/vnd.ollama.image.projector).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "wiredcap/units/expected.hpp"

namespace wiredcap::fit {

struct OllamaModel {
    std::string manifest;                 // its path
    std::string model_blob;               // the model's GGUF
    std::vector<std::string> projectors;  // projector GGUFs, counted with the weights
};

// Where Ollama keeps models: $OLLAMA_MODELS, else $HOME/.ollama/models; nullopt without either.
[[nodiscard]] std::optional<std::string> ollama_models_dir();

// nullopt when NAME is not a model name or the store has no manifest for it; an error when the
// manifest is there but unusable (its blob missing, no model layer).
[[nodiscard]] Expected<std::optional<OllamaModel>> find_ollama_model(const std::string& name, const std::string& store);

}  // namespace wiredcap::fit
