// Finding models where people keep them: a GGUF by its magic, whatever its name;
// Ollama's store by model name (manifest + blobs/sha256-..., the projector counted); LM Studio's
// folders (the model and its mmproj); Hugging Face snapshots through model.safetensors.index.json,
// an incomplete download refused and a file the index does not name never summed. Fixtures are
// header-only (sparse weights), with the stores' real layouts.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <optional>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/hf_config.hpp"
#include "wiredcap/fit/model_files.hpp"
#include "wiredcap/fit/safetensors_header.hpp"
#include "wiredcap/fit/runtime_request.hpp"
#include "model_writer.hpp"

namespace wiredcap::fit {
namespace {

namespace fs = std::filesystem;
using testing::GgufWriter;
using testing::write_file;

// Sets an environment variable for one test and puts the old value back.
class EnvVar {
public:
    EnvVar(const char* name, const std::string& value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        ::setenv(name, value.c_str(), 1);
    }
    ~EnvVar() {
        if (old_) ::setenv(name_, old_->c_str(), 1);
        else ::unsetenv(name_);
    }
    EnvVar(const EnvVar&) = delete;
    EnvVar& operator=(const EnvVar&) = delete;

private:
    const char* name_;
    std::optional<std::string> old_;
};

class FitDiscovery : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("wiredcap-disc-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

// Llama 3.1 70B's attention layout (80 layers, 64 heads, 8 KV heads x 128) over `weights` bytes
// of f16 (a hole).
GgufWriter llama70b(std::uint64_t weights) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 80)
        .u32("llama.embedding_length", 8192)
        .u32("llama.attention.head_count", 64)
        .u32("llama.attention.head_count_kv", 8)
        .u32("llama.context_length", 131072);
    w.tensor("token_embd.weight", {8192, weights / (8192 * 2)}, 1, weights);
    return w;
}

GgufWriter projector(std::uint64_t weights) {
    GgufWriter w;
    w.str("general.architecture", "clip").str("general.type", "mmproj");
    w.tensor("v.patch_embd.weight", {1024, weights / 2048}, 1, weights);
    return w;
}

// The rule for this layout: 80 layers x (K + V) of 8 x 128 f16 values per token.
std::uint64_t llama70b_kv(std::uint64_t ctx) { return 80u * 2 * 8 * 128 * 2 * ctx; }

const std::string kModelDigest(64, 'a');
const std::string kProjectorDigest(64, 'b');

// ~/.ollama/models as `ollama pull llama3.1:70b` leaves it (plus a projector, as a vision
// model's manifest has).
fs::path ollama_store(const fs::path& root) {
    fs::create_directories(root / "blobs");
    fs::create_directories(root / "manifests/registry.ollama.ai/library/llama3.1");
    llama70b(64ULL << 20).write_sparse((root / "blobs" / ("sha256-" + kModelDigest)).string());
    projector(2ULL << 20).write_sparse((root / "blobs" / ("sha256-" + kProjectorDigest)).string());
    write_file((root / "blobs" / ("sha256-" + std::string(64, 'c'))).string(), "LICENSE TEXT");
    write_file(
        (root / "manifests/registry.ollama.ai/library/llama3.1/70b").string(),
        R"({"schemaVersion":2,"mediaType":"application/vnd.docker.distribution.manifest.v2+json",)"
        R"("config":{"mediaType":"application/vnd.docker.container.image.v1+json","digest":"sha256:)" +
            std::string(64, 'd') +
            R"(","size":485},"layers":[)"
            R"({"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
            kModelDigest +
            R"(","size":67109184},{"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:)" +
            kProjectorDigest +
            R"(","size":2097600},{"mediaType":"application/vnd.ollama.image.license",)"
            R"("digest":"sha256:)" +
            std::string(64, 'c') + R"(","size":12}]})");
    return root;
}

TEST_F(FitDiscovery, OllamaModelByNameWithItsProjector) {
    const EnvVar store("OLLAMA_MODELS", ollama_store(dir_ / "ollama").string());
    const auto m = read_model("llama3.1:70b");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 64ULL << 20);   // the license is not weights
    EXPECT_EQ(m->projector.count(), 2ULL << 20);  // the projector apart: the runtime decides
    EXPECT_EQ(m->files.size(), 1u);
    EXPECT_EQ(m->projector_files.size(), 1u);
    EXPECT_EQ(m->found_in, FoundIn::ollama);
    for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
        const auto kv = estimate_kv(m->arch, KvRequest{ctx, 1, KvType::f16, KvType::f16});
        ASSERT_TRUE(kv);
        EXPECT_EQ(kv->total.count(), llama70b_kv(ctx)) << ctx;
    }
}

// A model made with ADAPTER in its Modelfile (`ollama create`) carries a LoRA adapter layer
// (application/vnd.ollama.image.adapter): Ollama hands it to the runner, which loads its tensors
// beside the model's (llama.cpp llama_adapter_lora_init), so its bytes count as weights do.
// A model made from a Modelfile with PARAMETER lines, a projector and an adapter: its params
// layer (application/vnd.ollama.image.params) gives num_ctx and num_batch, and Ollama's request
// (runtime_request) takes them, capped at the trained context; the projector and adapter count.
TEST_F(FitDiscovery, OllamaParamsLayerProjectorAndAdapter) {
    const fs::path root = ollama_store(dir_ / "ollama");
    const std::string adapter_digest(64, 'e');
    const std::string params_digest(64, 'f');
    GgufWriter lora;
    lora.str("general.architecture", "llama")
        .str("general.type", "adapter")
        .str("adapter.type", "lora");
    lora.tensor("blk.0.attn_q.weight.lora_a", {8192, (8ULL << 20) / (8192 * 2)}, 1, 8ULL << 20);
    lora.write_sparse((root / "blobs" / ("sha256-" + adapter_digest)).string());
    write_file((root / "blobs" / ("sha256-" + params_digest)).string(),
               R"({"num_ctx":32768,"num_batch":1024,"stop":["<|eot_id|>"],"temperature":0.6})");
    fs::create_directories(root / "manifests/registry.ollama.ai/library/vision-tuned");
    write_file(
        (root / "manifests/registry.ollama.ai/library/vision-tuned/latest").string(),
        R"({"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
            kModelDigest +
            R"("},{"mediaType":"application/vnd.ollama.image.projector","digest":"sha256:)" +
            kProjectorDigest +
            R"("},{"mediaType":"application/vnd.ollama.image.adapter","digest":"sha256:)" +
            adapter_digest +
            R"("},{"mediaType":"application/vnd.ollama.image.params","digest":"sha256:)" +
            params_digest + R"("}]})");
    const EnvVar store("OLLAMA_MODELS", root.string());
    const auto m = read_model("vision-tuned");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->ollama.num_ctx, 32768u);
    EXPECT_EQ(m->ollama.num_batch, 1024u);
    EXPECT_EQ(m->weights.count(), (64ULL << 20) + (8ULL << 20));
    EXPECT_EQ(m->projector.count(), 2ULL << 20);
    const auto r = runtime_request(
        std::nullopt, {}, *m, units::Bytes::from_count_or_throw(16ULL << 30), std::nullopt, {});
    ASSERT_TRUE(r) << r.error().message;
    EXPECT_EQ(r->runtime, Runtime::ollama);
    EXPECT_EQ(r->request.context, 32768u);  // the params layer over the 4096 of 16 GiB
    EXPECT_EQ(r->request.ubatch, 1024u);
    EXPECT_TRUE(r->projector_counted);
    const auto kv = estimate_kv(m->arch, r->request);
    ASSERT_TRUE(kv);
    EXPECT_EQ(kv->total.count(), llama70b_kv(32768));
    // Ollama's variables, as the environment fit runs in sets them: OLLAMA_NUM_PARALLEL=2 gives
    // two sequences of 32768 each (llm/llama_server.go:375-376: -c num_ctx x np -np np),
    // OLLAMA_KV_CACHE_TYPE=q8_0 both cache types (:394: 34 bytes per 32 values), and
    // OLLAMA_CONTEXT_LENGTH yields to the params layer (model options first).
    OllamaEnvironment env;
    env.num_parallel = "2";
    env.kv_cache_type = "q8_0";
    env.context_length = "8192";
    env.flash_attention = "1";
    const auto set = runtime_request(
        std::nullopt, {}, *m, units::Bytes::from_count_or_throw(16ULL << 30), std::nullopt, env);
    ASSERT_TRUE(set) << set.error().message;
    EXPECT_EQ(set->request.context, 32768u);
    EXPECT_EQ(set->request.parallel, 2u);
    const auto kv_set = estimate_kv(m->arch, set->request);
    ASSERT_TRUE(kv_set);
    EXPECT_EQ(kv_set->total.count(), std::uint64_t{80} * 2 * (8 * 128 / 32 * 34) * 32768 * 2);
    // A params layer that is not JSON is refused with its name, not skipped.
    write_file((root / "blobs" / ("sha256-" + params_digest)).string(), R"({"num_ctx":"big"})");
    const auto bad = read_model("vision-tuned");
    ASSERT_FALSE(bad);
    EXPECT_NE(bad.error().message.find("num_ctx is not a number"), std::string::npos)
        << bad.error().message;
}

TEST_F(FitDiscovery, OllamaAdapterLayersCountWithTheWeights) {
    const fs::path root = ollama_store(dir_ / "ollama");
    const std::string adapter_digest(64, 'e');
    GgufWriter lora;
    lora.str("general.architecture", "llama")
        .str("general.type", "adapter")
        .str("adapter.type", "lora");
    lora.tensor("blk.0.attn_q.weight.lora_a", {8192, (8ULL << 20) / (8192 * 2)}, 1, 8ULL << 20);
    lora.write_sparse((root / "blobs" / ("sha256-" + adapter_digest)).string());
    fs::create_directories(root / "manifests/registry.ollama.ai/library/tuned");
    write_file(
        (root / "manifests/registry.ollama.ai/library/tuned/latest").string(),
        R"({"schemaVersion":2,"layers":[{"mediaType":"application/vnd.ollama.image.model","digest":"sha256:)" +
            kModelDigest +
            R"("},{"mediaType":"application/vnd.ollama.image.adapter","digest":"sha256:)" +
            adapter_digest + R"("}]})");
    const EnvVar store("OLLAMA_MODELS", root.string());
    const auto m = read_model("tuned");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), (64ULL << 20) + (8ULL << 20));
    EXPECT_EQ(m->files.size(), 2u);
    EXPECT_NE(m->weights_source.find("adapter"), std::string::npos) << m->weights_source;
}

TEST_F(FitDiscovery, OllamaNamesAreResolvedAsOllamaDoes) {
    const EnvVar store("OLLAMA_MODELS", ollama_store(dir_ / "ollama").string());
    // No 'latest' tag was pulled: not found, and the message says where wiredcap looked.
    const auto latest = read_model("llama3.1");
    ASSERT_FALSE(latest);
    EXPECT_NE(latest.error().message.find("Ollama's"), std::string::npos) << latest.error().message;
    // A name cannot walk out of the store.
    EXPECT_FALSE(read_model("../../etc:passwd"));
    // A blob the manifest names but the store lacks: an interrupted pull, said as one.
    fs::remove(dir_ / "ollama" / "blobs" / ("sha256-" + kModelDigest));
    const auto missing = read_model("llama3.1:70b");
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().message.find("ollama pull llama3.1:70b"), std::string::npos)
        << missing.error().message;
}

TEST_F(FitDiscovery, OllamaStoreUnderHomeByDefault) {
    ollama_store(dir_ / "home" / ".ollama" / "models");
    const EnvVar home("HOME", (dir_ / "home").string());
    ::unsetenv("OLLAMA_MODELS");
    EXPECT_TRUE(read_model("llama3.1:70b"));
}

// Ollama's blob is a GGUF without .gguf: it is read by its magic.
TEST_F(FitDiscovery, GgufByMagicNotByName) {
    const fs::path blob = dir_ / ("sha256-" + kModelDigest);
    llama70b(64ULL << 20).write_sparse(blob.string());
    const auto m = read_model(blob.string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 64ULL << 20);
    write_file((dir_ / "notes.bin").string(), "not a model");
    const auto not_gguf = read_model((dir_ / "notes.bin").string());
    ASSERT_FALSE(not_gguf);
    EXPECT_NE(not_gguf.error().message.find("no GGUF magic"), std::string::npos);
}

// ~/.lmstudio/models/<publisher>/<model>/: the model and its vision projector.
TEST_F(FitDiscovery, LmStudioFolderByNameAndByPath) {
    const fs::path folder = dir_ / "home/.lmstudio/models/lmstudio-community/Llama-3.1-70B-GGUF";
    fs::create_directories(folder);
    llama70b(64ULL << 20).write_sparse((folder / "Llama-3.1-70B-Q4_K_M.gguf").string());
    projector(2ULL << 20).write_sparse((folder / "mmproj-model-f16.gguf").string());
    const EnvVar home("HOME", (dir_ / "home").string());
    for (const std::string& name :
         {std::string("lmstudio-community/Llama-3.1-70B-GGUF"), folder.string()}) {
        const auto m = read_model(name);
        ASSERT_TRUE(m) << m.error().message;
        EXPECT_EQ(m->weights.count(), 64ULL << 20) << name;
        EXPECT_EQ(m->projector.count(), 2ULL << 20) << name;
        EXPECT_EQ(m->found_in, FoundIn::lm_studio) << name;
        EXPECT_EQ(m->arch.layers.size(), 80u);
    }
}

const char* kConfig = R"({"model_type":"mistral","num_hidden_layers":4,"num_attention_heads":8,
  "num_key_value_heads":2,"hidden_size":512,"max_position_embeddings":32768})";

std::string shard(const std::string& tensor, std::uint64_t bytes) {
    return testing::safetensors_file(R"({")" + tensor + R"(":{"dtype":"U8","shape":[)" +
                                         std::to_string(bytes) + R"(],"data_offsets":[0,)" +
                                         std::to_string(bytes) + "]}}",
                                     bytes);
}

std::string five_digits(int n) {
    const std::string s = std::to_string(n);
    return std::string(5 - s.size(), '0') + s;
}

// model-0000I-of-0000N.safetensors, Hugging Face's shard names.
std::string shard_name(int i, int count) {
    return "model-" + five_digits(i) + "-of-" + five_digits(count) + ".safetensors";
}

// An index naming `count` shards, one tensor each.
std::string index_json(int count) {
    std::string map;
    for (int i = 1; i <= count; ++i)
        map += std::string(i == 1 ? "" : ",") + "\"t" + std::to_string(i) + "\":\"" +
               shard_name(i, count) + "\"";
    return R"({"metadata":{"total_size":)" + std::to_string(count * 1000) + R"(},"weight_map":{)" +
           map + "}}";
}

// A download stopped at 20 of 30 shards: refused, never summed as a smaller model.
TEST_F(FitDiscovery, IncompleteHuggingFaceDownloadIsRefused) {
    write_file((dir_ / "config.json").string(), kConfig);
    write_file((dir_ / "model.safetensors.index.json").string(), index_json(30));
    const auto none = read_model(dir_.string());
    ASSERT_FALSE(none);
    EXPECT_NE(none.error().message.find("30 of 30 shards are missing"), std::string::npos)
        << none.error().message;
    for (int i = 1; i <= 20; ++i)
        write_file((dir_ / shard_name(i, 30)).string(), shard("t" + std::to_string(i), 1000));
    const auto m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("incomplete download: 10 of 30 shards are missing"),
              std::string::npos)
        << m.error().message;
    for (int i = 21; i <= 30; ++i)
        write_file((dir_ / shard_name(i, 30)).string(), shard("t" + std::to_string(i), 1000));
    const auto whole = read_model(dir_.string());
    ASSERT_TRUE(whole) << whole.error().message;
    EXPECT_EQ(whole->weights.count(), 30000u);
}

// An index or a manifest is three levels deep. A crafted one nested a million levels deep was
// parsed to the end (64 MiB of '[' took the parser 8 s and the manifest's tree 40 MB), where a
// safetensors header is refused at its ninth level: so are they now, before any work is done.
TEST_F(FitDiscovery, IndexAndManifestNestedDeeperThanTheyAreAreRefused) {
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    write_file((dir_ / "config.json").string(), kConfig);
    write_file(
        (dir_ / "model.safetensors.index.json").string(),
        R"({"metadata":{"x":)" + deep + R"(},"weight_map":{"t1":")" + shard_name(1, 1) + R"("}})");
    write_file((dir_ / shard_name(1, 1)).string(), shard("t1", 1000));
    const auto index = read_model(dir_.string());
    ASSERT_FALSE(index);
    EXPECT_NE(index.error().message.find("nests deeper"), std::string::npos)
        << index.error().message;

    const fs::path root = ollama_store(dir_ / "ollama");
    write_file((root / "manifests/registry.ollama.ai/library/llama3.1/70b").string(),
               R"({"annotations":)" + deep +
                   R"(,"layers":[{"mediaType":"application/vnd.ollama.image.model",)"
                   R"("digest":"sha256:)" +
                   kModelDigest + R"("}]})");
    const EnvVar store("OLLAMA_MODELS", root.string());
    const auto manifest = read_model("llama3.1:70b");
    ASSERT_FALSE(manifest);
    EXPECT_NE(manifest.error().message.find("nests deeper"), std::string::npos)
        << manifest.error().message;
}

// config.json is read before any shard, as a tree: nested two million levels deep (its old 4 MiB
// limit allows it) it took 3.6 s and 163 MB to refuse. A real one nests at most a handful of
// levels (a compressed-tensors quantization_config: config_groups, a group, its weights).
TEST_F(FitDiscovery, ConfigNestedDeeperThanAConfigIsRefused) {
    const std::string deep = std::string(200000, '[') + std::string(200000, ']');
    write_file((dir_ / "config.json").string(), R"({"x":)" + deep + R"(,"model_type":"mistral"})");
    write_file((dir_ / "model.safetensors").string(), shard("t1", 1000));
    const auto m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("nests deeper"), std::string::npos) << m.error().message;
    const std::string quantized =
        std::string(kConfig).substr(0, std::string(kConfig).size() - 1) +
        R"(,"quantization_config":{"quant_method":"compressed-tensors","config_groups":{"group_0":)"
        R"({"targets":["Linear"],"weights":{"num_bits":4,"type":"int","strategy":"group",)"
        R"("group_size":128,"actorder":null,"observer_kwargs":{}}}},"ignore":["lm_head"]}})";
    write_file((dir_ / "config.json").string(), quantized);
    const auto q = read_model(dir_.string());
    EXPECT_TRUE(q) << q.error().message;
}

// A header at the safetensors format's own 100 MB limit, nearly all of it one string: answered
// (the string is cut as it is read, never buffered; bench/fit_hostile.sh gives the time and peak
// memory of this and every other shape of 100 MB header). An index names files (at most
// NAME_MAX, 255 bytes), a config.json is a few KiB: past their limits each is refused, named.
TEST_F(FitDiscovery, HeaderIndexAndConfigAtTheirLimits) {
    write_file((dir_ / "config.json").string(), kConfig);
    const std::string
        pre =
            R"({"t1":{"dtype":"U8","shape":[1000],"data_offsets":[0,1000]},"__metadata__":{"x":")",
        post = R"("}})";
    write_file((dir_ / "model.safetensors").string(),
               GgufWriter::le(kMaxSafetensorsHeader, 8) + pre +
                   std::string(kMaxSafetensorsHeader - pre.size() - post.size(), 'a') + post +
                   std::string(1000, '\0'));
    auto m = read_model(dir_.string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 1000u);

    write_file((dir_ / "model.safetensors").string(), shard("t1", 1000));
    write_file((dir_ / "model.safetensors.index.json").string(),
               R"({"weight_map":{"t1":")" + std::string(256, 'x') + R"("}})");
    m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("names a shard outside its folder"), std::string::npos)
        << m.error().message;
    write_file((dir_ / "model.safetensors.index.json").string(),
               R"({"metadata":{"x":)" + std::string(1025, '1') +
                   R"(},"weight_map":{"t1":"model.safetensors"}})");
    m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find(
                  "model.safetensors.index.json is refused: it holds a number longer than 1 KiB"),
              std::string::npos)
        << m.error().message;
    write_file((dir_ / "model.safetensors.index.json").string(),
               R"({"weight_map":{"t1":"model.safetensors"}})");
    ASSERT_TRUE(read_model(dir_.string())) << "the index as a model has it";

    const std::string config = kConfig;
    write_file((dir_ / "config.json").string(),
               config.substr(0, config.size() - 1) + R"(,"x":")" +
                   std::string(kMaxConfigJson - config.size(), 'x') + R"("})");
    m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("config.json is larger than a config file can be"),
              std::string::npos)
        << m.error().message;
}

// A Mistral snapshot carries consolidated.safetensors (the same weights for mistral-inference)
// beside the sharded model: only the shards the index names count, and the other file is said.
TEST_F(FitDiscovery, FileTheIndexDoesNotNameIsNotSummed) {
    write_file((dir_ / "config.json").string(), kConfig);
    write_file((dir_ / "model.safetensors.index.json").string(), index_json(2));
    write_file((dir_ / shard_name(1, 2)).string(), shard("t1", 1000));
    write_file((dir_ / shard_name(2, 2)).string(), shard("t2", 1000));
    write_file((dir_ / "consolidated.safetensors").string(), shard("w", 2000));
    const auto m = read_model(dir_.string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 2000u);
    EXPECT_EQ(m->files.size(), 2u);
    ASSERT_FALSE(m->arch.notes.empty());
    bool said = false;
    for (const auto& n : m->arch.notes)
        said = said || n.find("consolidated.safetensors") != std::string::npos;
    EXPECT_TRUE(said);
}

// Without an index, numbered shards must all be there; unnumbered extras make the model unknown.
TEST_F(FitDiscovery, NumberedShardsWithoutIndexMustBeComplete) {
    write_file((dir_ / "config.json").string(), kConfig);
    write_file((dir_ / shard_name(1, 3)).string(), shard("t1", 1000));
    write_file((dir_ / shard_name(3, 3)).string(), shard("t3", 1000));
    const auto m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("1 of 3 shards are missing"), std::string::npos)
        << m.error().message;
}

// A Hugging Face repo id, from the hub's cache: $HF_HUB_CACHE, else $HF_HOME/hub, else
// ~/.cache/huggingface/hub; the snapshot refs/main names, or the revision after '@'.
TEST_F(FitDiscovery, HuggingFaceRepoIdFromTheCache) {
    const auto snapshot = [&](const fs::path& hub, const std::string& hash, std::uint64_t bytes) {
        const fs::path snap = hub / "models--mistralai--Mistral-Small" / "snapshots" / hash;
        fs::create_directories(snap);
        fs::create_directories(hub / "models--mistralai--Mistral-Small" / "refs");
        write_file((snap / "config.json").string(), kConfig);
        write_file((snap / "model.safetensors").string(), shard("w", bytes));
    };
    const fs::path home_hub = dir_ / "home/.cache/huggingface/hub";
    snapshot(home_hub, "aaaa", 1000);
    snapshot(home_hub, "bbbb", 2000);
    write_file((home_hub / "models--mistralai--Mistral-Small/refs/main").string(), "bbbb\n");
    const EnvVar home("HOME", (dir_ / "home").string());
    auto m = read_model("mistralai/Mistral-Small");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 2000u);
    m = read_model("mistralai/Mistral-Small@aaaa");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 1000u);
    EXPECT_FALSE(read_model("mistralai/Mistral-Small@cccc"));
    // HF_HOME over the home directory's cache, HF_HUB_CACHE over both.
    snapshot(dir_ / "hf-home/hub", "cccc", 3000);
    write_file((dir_ / "hf-home/hub/models--mistralai--Mistral-Small/refs/main").string(), "cccc");
    const EnvVar hf_home("HF_HOME", (dir_ / "hf-home").string());
    m = read_model("mistralai/Mistral-Small");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 3000u);
    snapshot(dir_ / "hub-cache", "dddd", 4000);
    write_file((dir_ / "hub-cache/models--mistralai--Mistral-Small/refs/main").string(), "dddd");
    const EnvVar hub_cache("HF_HUB_CACHE", (dir_ / "hub-cache").string());
    m = read_model("mistralai/Mistral-Small");
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 4000u);
}

// A GGUF named alone: the one projector beside it is found (the runtime decides whether it counts);
// with two, none is, and the note says why.
TEST_F(FitDiscovery, TheProjectorBesideANamedFile) {
    llama70b(64ULL << 20).write_sparse((dir_ / "gemma-Q4_K_M.gguf").string());
    projector(2ULL << 20).write_sparse((dir_ / "mmproj-F16.gguf").string());
    auto m = read_model((dir_ / "gemma-Q4_K_M.gguf").string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->projector.count(), 2ULL << 20);
    EXPECT_EQ(m->found_in, FoundIn::file);
    projector(4ULL << 20).write_sparse((dir_ / "mmproj-F32.gguf").string());
    m = read_model((dir_ / "gemma-Q4_K_M.gguf").string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->projector.count(), 0u);
    EXPECT_NE(m->projector_note.find("mmproj-F16.gguf, mmproj-F32.gguf"), std::string::npos)
        << m->projector_note;
}

TEST_F(FitDiscovery, AFolderOfSeveralQuantsNamesTheChoices) {
    llama70b(64ULL << 20).write_sparse((dir_ / "m-Q4_K_M.gguf").string());
    llama70b(64ULL << 20).write_sparse((dir_ / "m-Q8_0-00001-of-00002.gguf").string());
    llama70b(64ULL << 20).write_sparse((dir_ / "m-Q8_0-00002-of-00002.gguf").string());
    const auto m = read_model(dir_.string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("name the file: m-Q4_K_M.gguf, m-Q8_0-00001-of-00002.gguf"),
              std::string::npos)
        << m.error().message;
    EXPECT_EQ(m.error().message.find("00002-of"), std::string::npos) << m.error().message;
}

TEST_F(FitDiscovery, AProjectorOrAdapterNamedAloneIsSaidAsSuch) {
    llama70b(64ULL << 20).write_sparse((dir_ / "model-Q4_K_M.gguf").string());
    projector(2ULL << 20).write_sparse((dir_ / "mmproj-F16.gguf").string());
    auto m = read_model((dir_ / "mmproj-F16.gguf").string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("is a vision projector (mmproj)"), std::string::npos)
        << m.error().message;
    EXPECT_NE(m.error().message.find("model-Q4_K_M.gguf"), std::string::npos) << m.error().message;
    GgufWriter lora;
    lora.str("general.architecture", "llama")
        .str("general.type", "adapter")
        .str("adapter.type", "lora");
    lora.tensor("blk.0.attn_q.weight.lora_a", {16, 4096}, 1, 16 * 4096 * 2);
    lora.write_sparse((dir_ / "lora.gguf").string());
    m = read_model((dir_ / "lora.gguf").string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("is a LoRA adapter"), std::string::npos) << m.error().message;
}

// A file fit cannot read says why, not that it lacks the GGUF magic: a FIFO is said to be one
// (and never opened, which would block); a file it may not read, below (as root, every file is
// readable: hostile.fit_unreadable_model_is_said runs it as nobody, with an unlistable folder).
TEST_F(FitDiscovery, AFifoIsSaidToBeOne) {
    const std::string fifo = (dir_ / "model.gguf").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    auto m = read_model(fifo);
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("is a FIFO"), std::string::npos) << m.error().message;
}

TEST_F(FitDiscovery, AnUnreadableFileSaysWhy) {
    const std::string locked = (dir_ / "locked.gguf").string();
    llama70b(64ULL << 20).write_sparse(locked);
    ASSERT_EQ(::chmod(locked.c_str(), 0), 0);
    if (::geteuid() == 0) GTEST_SKIP() << "root reads a mode-0 file";
    const auto r = read_model(locked);
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().message.find("Permission denied"), std::string::npos) << r.error().message;
}

}  // namespace
}  // namespace wiredcap::fit
