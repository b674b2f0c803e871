// Finding a model's files and reading only their headers: single and split GGUF, safetensors
// directories with config.json, Hugging Face cache snapshots, and a sparse 100 GiB model.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/model_files.hpp"
#include "model_writer.hpp"

namespace wiredcap::fit {
namespace {

namespace fs = std::filesystem;
using testing::GgufWriter;
using testing::write_file;

class FitModelFiles : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = fs::temp_directory_path() /
               ("wiredcap-fit-" + std::to_string(::getpid()) + "-" +
                ::testing::UnitTest::GetInstance()->current_test_info()->name());
        fs::remove_all(dir_);
        fs::create_directories(dir_);
    }
    void TearDown() override { fs::remove_all(dir_); }
    fs::path dir_;
};

GgufWriter llama_part(std::uint32_t no, std::uint32_t count, std::uint64_t tensor_bytes_f32) {
    GgufWriter w;
    if (no == 0) {
        w.str("general.architecture", "llama")
            .u32("llama.block_count", 4)
            .u32("llama.embedding_length", 512)
            .u32("llama.attention.head_count", 8)
            .u32("llama.attention.head_count_kv", 2);
    }
    if (count > 1) w.u32("split.no", no).u32("split.count", count);
    w.tensor("t" + std::to_string(no), {tensor_bytes_f32 / 4}, 0, tensor_bytes_f32);
    return w;
}

TEST_F(FitModelFiles, SplitGgufSumsEveryPartFromAnyPart) {
    for (std::uint32_t i = 0; i < 3; ++i)
        write_file((dir_ / ("m-0000" + std::to_string(i + 1) + "-of-00003.gguf")).string(),
                   llama_part(i, 3, 4096 * (i + 1)).file());
    for (const char* name : {"m-00001-of-00003.gguf", "m-00003-of-00003.gguf"}) {
        const auto m = read_model((dir_ / name).string());
        ASSERT_TRUE(m) << m.error().message;
        EXPECT_EQ(m->weights.count(), 4096u * (1 + 2 + 3));
        EXPECT_EQ(m->files.size(), 3u);
        EXPECT_EQ(m->arch.layers.size(), 4u);
        // The layout is the first part's: 4 layers x (K + V) of 2 KV heads x 64 (512 / 8) f16.
        for (const std::uint64_t ctx : {4096u, 32768u, 131072u}) {
            const auto kv = estimate_kv(m->arch, KvRequest{ctx, 1, KvType::f16, KvType::f16});
            ASSERT_TRUE(kv) << kv.error().message;
            EXPECT_EQ(kv->total.count(), 4u * 2 * 2 * 64 * 2 * ctx) << ctx;
        }
    }
    // The directory holds one model (its parts): the directory names it too.
    EXPECT_TRUE(read_model(dir_.string()));
    // A missing part is an error, not a smaller model.
    fs::remove(dir_ / "m-00002-of-00003.gguf");
    EXPECT_FALSE(read_model((dir_ / "m-00001-of-00003.gguf").string()));
}

TEST_F(FitModelFiles, SplitPartFromAnotherSplitIsRefused) {
    write_file((dir_ / "m-00001-of-00002.gguf").string(), llama_part(0, 2, 64).file());
    write_file((dir_ / "m-00002-of-00002.gguf").string(), llama_part(1, 3, 64).file());
    EXPECT_FALSE(read_model((dir_ / "m-00001-of-00002.gguf").string()));
}

// A 100 GiB model whose weights are a hole: the answer comes from the header alone.
TEST_F(FitModelFiles, SparseHundredGiBModelReadsOnlyItsHeader) {
    GgufWriter w;
    w.str("general.architecture", "llama")
        .u32("llama.block_count", 80)
        .u32("llama.embedding_length", 8192)
        .u32("llama.attention.head_count", 64)
        .u32("llama.attention.head_count_kv", 8);
    const std::uint64_t rows = 25ULL * 1024 * 1024 * 1024 / (8192 * 2);  // 25 GiB of f16 per tensor
    for (int i = 0; i < 4; ++i) w.tensor("w" + std::to_string(i), {8192, rows}, 1, 8192 * 2 * rows);
    const auto path = (dir_ / "huge.gguf").string();
    w.write_sparse(path);
    ASSERT_GE(fs::file_size(path), 100ULL << 30);
    const auto m = read_model(path);
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->weights.count(), 100ULL << 30);
    EXPECT_LE(m->header_bytes_read, 64u * 1024u);  // one read chunk: the header, not the weights
}

const char* kConfig = R"({"model_type":"qwen2","num_hidden_layers":4,"num_attention_heads":8,
  "num_key_value_heads":2,"hidden_size":512,"max_position_embeddings":32768,
  "sliding_window":4096,"use_sliding_window":false,"quantization":{"group_size":64,"bits":4}})";

std::string shard(std::uint64_t bytes) {
    return testing::safetensors_file(R"({"w":{"dtype":"U8","shape":[)" + std::to_string(bytes) +
                                         R"(],"data_offsets":[0,)" + std::to_string(bytes) + "]}}",
                                     bytes);
}

TEST_F(FitModelFiles, SafetensorsDirectoryWithConfig) {
    write_file((dir_ / "config.json").string(), kConfig);
    write_file((dir_ / "model-00001-of-00002.safetensors").string(), shard(1000));
    write_file((dir_ / "model-00002-of-00002.safetensors").string(), shard(24));
    const auto m = read_model(dir_.string());
    ASSERT_TRUE(m) << m.error().message;
    EXPECT_EQ(m->format, ModelFormat::safetensors);
    EXPECT_EQ(m->weights.count(), 1024u);
    ASSERT_EQ(m->arch.layers.size(), 4u);
    EXPECT_EQ(m->arch.layers[0].k_values, 2u * 64u);
    EXPECT_FALSE(m->arch.sliding_window);  // use_sliding_window: false
    EXPECT_EQ(m->arch.trained_context, 32768u);
    fs::remove(dir_ / "config.json");
    EXPECT_FALSE(read_model(dir_.string()));
}

// models--org--name/snapshots/<hash>/ with symlinks into blobs/, and refs/main naming the hash.
TEST_F(FitModelFiles, HuggingFaceCacheSnapshotThroughSymlinks) {
    const fs::path repo = dir_ / "models--org--name";
    fs::create_directories(repo / "blobs");
    fs::create_directories(repo / "refs");
    const fs::path snap = repo / "snapshots" / "0123abcd";
    fs::create_directories(snap);
    write_file((repo / "blobs" / "aaa").string(), kConfig);
    write_file((repo / "blobs" / "bbb").string(), shard(4096));
    fs::create_symlink("../../blobs/aaa", snap / "config.json");
    fs::create_symlink("../../blobs/bbb", snap / "model.safetensors");
    write_file((repo / "refs" / "main").string(), "0123abcd\n");
    for (const fs::path& p : {repo, snap}) {
        const auto m = read_model(p.string());
        ASSERT_TRUE(m) << m.error().message;
        EXPECT_EQ(m->weights.count(), 4096u);
    }
}

TEST_F(FitModelFiles, NotAModel) {
    EXPECT_FALSE(read_model((dir_ / "missing.gguf").string()));
    EXPECT_FALSE(read_model(dir_.string()));  // empty directory
    write_file((dir_ / "a.gguf").string(), llama_part(0, 1, 64).file());
    write_file((dir_ / "b.gguf").string(), llama_part(0, 1, 64).file());
    EXPECT_FALSE(read_model(dir_.string()));  // two models: name one
    ASSERT_EQ(::mkfifo((dir_ / "fifo.gguf").c_str(), 0600), 0);
    EXPECT_FALSE(read_model((dir_ / "fifo.gguf").string()));  // never blocks on a FIFO
}

}  // namespace
}  // namespace wiredcap::fit

namespace wiredcap::fit {
namespace {

TEST_F(FitModelFiles, SymlinkLoopIsSaidToBeOne) {
    fs::create_symlink(dir_ / "b.gguf", dir_ / "a.gguf");
    fs::create_symlink(dir_ / "a.gguf", dir_ / "b.gguf");
    const auto m = read_model((dir_ / "a.gguf").string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("symbolic link loop"), std::string::npos) << m.error().message;
}

// A name with an escape sequence reaches messages as \x1b, never as the byte.
TEST_F(FitModelFiles, EscapeBytesInAFileNameAreEscaped) {
    const fs::path shard = dir_ / "model\x1b[31m-00001-of-00002.gguf";
    llama_part(0, 2, 1024).write_sparse(shard.string());
    const auto m = read_model(shard.string());
    ASSERT_FALSE(m);  // the second part is missing
    EXPECT_EQ(m.error().message.find('\x1b'), std::string::npos) << m.error().message;
    EXPECT_NE(m.error().message.find("\\x1b[31m"), std::string::npos) << m.error().message;
}

TEST_F(FitModelFiles, TensorNamedInTwoSplitPartsIsRefused) {
    llama_part(0, 2, 1024).write_sparse((dir_ / "m-00001-of-00002.gguf").string());
    GgufWriter second = llama_part(1, 2, 1024);
    second.tensor("t0", {256}, 0, 1024);  // part 1's tensor again
    second.write_sparse((dir_ / "m-00002-of-00002.gguf").string());
    const auto m = read_model((dir_ / "m-00001-of-00002.gguf").string());
    ASSERT_FALSE(m);
    EXPECT_NE(m.error().message.find("is also in another part"), std::string::npos)
        << m.error().message;
}

}  // namespace
}  // namespace wiredcap::fit
