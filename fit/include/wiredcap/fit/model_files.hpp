// Finds a model's files from the PATH a person gives and reads their headers: a GGUF file by
// its magic, whatever its name (a split one's every part); a directory of .safetensors files
// with config.json (the Hugging Face and MLX layout; with model.safetensors.index.json only the
// shards it names, all of them present); a Hugging Face cache entry (models--org--name, or one
// of its snapshots/<hash>/ directories, whose files are symlinks into blobs/); an LM Studio
// folder (a GGUF model and its mmproj projector); or, when PATH is no file, a Hugging Face repo
// id (org/name[@revision]) in the hub's cache ($HF_HUB_CACHE, $HF_HOME/hub,
// ~/.cache/huggingface/hub), or a model name as Ollama (ollama_store.hpp) or LM Studio
// (~/.lmstudio/models/PUBLISHER/MODEL) keep it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/expected.hpp"
#include "wiredcap/units/quantity.hpp"

namespace wiredcap::fit {

enum class ModelFormat { gguf, safetensors };

// Where the model was found: it tells which runtime will most likely load it.
enum class FoundIn { file, folder, ollama, lm_studio };

// What an Ollama model's params layer (application/vnd.ollama.image.params) sets, where it
// changes the need.
struct OllamaParams {
    std::optional<std::uint64_t> num_ctx;
    std::optional<std::uint64_t> num_batch;
    std::optional<std::int64_t> num_gpu;
};

struct ModelInfo {
    ModelFormat format = ModelFormat::gguf;
    std::string format_text;         // "GGUF v3", "safetensors"
    std::vector<std::string> files;  // the files whose headers were read
    units::Bytes weights = units::Bytes::zero();
    std::string weights_source;  // "GGUF tensor table (2 files)", ...
    Architecture arch;
    std::uint64_t header_bytes_read = 0;  // bytes read from the model files (headers only)
    FoundIn found_in = FoundIn::file;
    // A vision projector loaded with the model when the runtime loads one: its weights apart,
    // so the runtime decides whether they count.
    units::Bytes projector = units::Bytes::zero();
    std::vector<std::string> projector_files;
    std::string projector_note;  // why a projector beside the model was not taken, if one was not
    OllamaParams ollama;
};

// Split GGUF files and safetensors shards beyond this are refused (real models have dozens).
inline constexpr std::size_t kMaxModelFiles = 4096;

[[nodiscard]] Expected<ModelInfo> read_model(const std::string& path);

}  // namespace wiredcap::fit
