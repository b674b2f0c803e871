#include "wiredcap/fit/runtime_request.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>

#include "wiredcap/fit/printable.hpp"

namespace wiredcap::fit {
namespace {

constexpr std::uint64_t kAssumedContext = 4096;  // when the model does not say its own
constexpr std::uint64_t kGiB = std::uint64_t{1} << 30;

std::optional<std::string> env(const char* name) {
    const char* v = std::getenv(name);
    if (v == nullptr || *v == '\0') return std::nullopt;
    return std::string(v);
}

std::optional<std::uint64_t> whole(const std::string& text) {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
    return v;
}

// Go's strconv.ParseBool, as envconfig.BoolWithDefault reads OLLAMA_FLASH_ATTENTION.
std::optional<bool> go_bool(const std::string& t) {
    for (const char* s : {"1", "t", "T", "TRUE", "true", "True"})
        if (t == s) return true;
    for (const char* s : {"0", "f", "F", "FALSE", "false", "False"})
        if (t == s) return false;
    return std::nullopt;
}

struct Builder {
    RuntimeRequest out;
    void assume(std::string setting, std::string value, std::string_view source) {
        out.assumptions.push_back({std::move(setting), std::move(value), std::string(source)});
    }
};

std::string tokens(std::uint64_t n) { return std::to_string(n) + " tokens"; }

// Ollama's default context by the GPU memory it sees (server/routes.go:2050-2056, thresholds
// 47 and 23 GiB "to account for small differences").
std::uint64_t ollama_tier(std::uint64_t bytes) {
    if (bytes >= 47 * kGiB) return 262144;
    if (bytes >= 23 * kGiB) return 32768;
    return 4096;
}

Expected<std::monostate> ollama_context(Builder& b, const RequestFlags& f, const ModelInfo& m,
                                        std::optional<units::Bytes> gpu,
                                        std::optional<units::Bytes> memory,
                                        const OllamaEnvironment& e) {
    auto& r = b.out.request;
    const auto& d = runtime_defaults(Runtime::ollama);
    std::uint64_t ctx = 0;
    std::string why;
    if (f.context) {
        ctx = *f.context;
    } else if (m.ollama.num_ctx) {
        ctx = *m.ollama.num_ctx;
        why =
            "num_ctx of the model's params layer (server/routes.go: model options over the defaults)";
    } else if (const auto env_ctx = e.context_length ? whole(*e.context_length) : std::nullopt;
               env_ctx && *env_ctx > 0) {
        ctx = *env_ctx;
        why = "OLLAMA_CONTEXT_LENGTH (api/types.go:1115)";
    } else {
        if (e.context_length)
            b.out.notes.push_back("OLLAMA_CONTEXT_LENGTH=" + printable(*e.context_length) +
                                  " is not a whole number: Ollama ignores it");
        const auto seen = gpu ? gpu : memory;
        if (!seen)
            return Error{
                "Ollama's default context depends on the GPU memory, which could not be read: give --context"};
        ctx = ollama_tier(static_cast<std::uint64_t>(seen->count()));
        why = std::string(gpu ? "Ollama's default for "
                              : "Ollama's default for the memory size (the GPU's is unknown), ") +
              (ctx == 4096    ? "under 24 GiB"
               : ctx == 32768 ? "24-48 GiB"
                              : "48 GiB and more") +
              " of GPU memory [" + std::string(d.context_source) + "]";
    }
    // llm/server.go:113: never past the trained context; sched.go:176: a vision model at least 2048.
    if (!m.projector_files.empty() && ctx < 2048) {
        ctx = 2048;
        why += "; raised to 2048 for a vision model (server/sched.go:176)";
    }
    if (const auto t = m.arch.trained_context; t && ctx > *t) {
        ctx = *t;
        why += "; capped at the trained context (llm/server.go:113)";
    }
    r.context = ctx;
    if (!why.empty()) b.assume("context", tokens(ctx), why);
    return std::monostate{};
}

void ollama_rest(Builder& b, const RequestFlags& f, const ModelInfo& m,
                 const OllamaEnvironment& e) {
    auto& r = b.out.request;
    const auto& d = runtime_defaults(Runtime::ollama);
    if (!f.parallel) {
        const auto np = e.num_parallel ? whole(*e.num_parallel) : std::nullopt;
        r.parallel = np && *np > 0 ? *np : d.parallel;
        b.assume("sequences", std::to_string(r.parallel),
                 np && *np > 0 ? "OLLAMA_NUM_PARALLEL" : d.slots_source);
    }
    if (!f.batch && !f.ubatch) {
        r.batch = r.ubatch = m.ollama.num_batch.value_or(d.batch);
        b.assume("batch", std::to_string(r.batch) + "/" + std::to_string(r.ubatch),
                 m.ollama.num_batch ? "num_batch of the model's params layer, passed as -b and -ub"
                                    : d.batch_source);
    }
    if (!f.flash_attn) {
        const auto fa = e.flash_attention ? go_bool(*e.flash_attention) : std::nullopt;
        r.flash_attn = fa.value_or(d.flash_attn);
        b.assume("flash attention", r.flash_attn ? "on" : "off",
                 fa ? "OLLAMA_FLASH_ATTENTION (llm/llama_server.go:597)" : d.flash_source);
    }
    if (m.ollama.num_gpu && *m.ollama.num_gpu >= 0)
        b.out.notes.push_back(
            "num_gpu " + std::to_string(*m.ollama.num_gpu) +
            " in the params layer offloads fewer layers (llm/llama_server.go:405): the GPU holds less than this total");
}

}  // namespace

OllamaEnvironment OllamaEnvironment::from_process() {
    return {env("OLLAMA_CONTEXT_LENGTH"), env("OLLAMA_NUM_PARALLEL"), env("OLLAMA_FLASH_ATTENTION"),
            env("OLLAMA_KV_CACHE_TYPE")};
}

Runtime inferred_runtime(const ModelInfo& m) {
    if (m.found_in == FoundIn::ollama) return Runtime::ollama;
    if (m.found_in == FoundIn::lm_studio) return Runtime::lm_studio;
    if (m.format == ModelFormat::safetensors) return Runtime::mlx;
    return Runtime::llama_cpp;
}

Expected<RuntimeRequest> runtime_request(std::optional<Runtime> named, const RequestFlags& f,
                                         const ModelInfo& m, std::optional<units::Bytes> gpu,
                                         std::optional<units::Bytes> memory,
                                         const OllamaEnvironment& e) {
    Builder b;
    const Runtime rt = named.value_or(inferred_runtime(m));
    b.out.runtime = rt;
    b.out.chosen_because = named                              ? "--runtime"
                           : m.found_in == FoundIn::ollama    ? "an Ollama model name"
                           : m.found_in == FoundIn::lm_studio ? "an LM Studio folder"
                           : m.format == ModelFormat::safetensors
                               ? "a safetensors model (mlx-lm loads these on a Mac)"
                               : "a GGUF file (llama.cpp's format; --runtime names another)";
    const auto& d = runtime_defaults(rt);
    auto& r = b.out.request;

    // Slots first: llama-server shares one cache between its slots unless -np is given.
    const bool server_auto = rt == Runtime::llama_server && !f.parallel;
    r.unified = f.unified.value_or(server_auto ? d.unified : false);
    if (!f.unified && r.unified) b.assume("unified cache", "on", d.slots_source);

    if (rt == Runtime::ollama) {
        auto c = ollama_context(b, f, m, gpu, memory, e);
        if (!c) return c.error();
        ollama_rest(b, f, m, e);
    } else {
        r.parallel = f.parallel.value_or(server_auto ? d.parallel : 1);
        if (!f.parallel) {
            if (d.parallel != 1 || rt == Runtime::llama_server)
                b.assume("sequences", std::to_string(r.parallel), d.slots_source);
        }
        if (!f.context) {
            if (d.context) {
                r.context = *d.context;
                b.assume("context", tokens(r.context), d.context_source);
            } else if (const auto t = m.arch.trained_context) {
                // llama.cpp's -c is every sequence's together: without a unified cache each
                // holds its share (src/llama-context.cpp: n_ctx_seq = n_ctx / n_seq_max).
                r.context = r.unified ? *t : std::max<std::uint64_t>(1, *t / r.parallel);
                b.assume("context", tokens(r.context),
                         std::string("the model's trained context [") +
                             std::string(d.context_source) + "]" +
                             (r.unified ? ", shared by every sequence" : ""));
            } else {
                r.context = kAssumedContext;
                b.assume(
                    "context", tokens(r.context),
                    "the runtime would take the trained context, which the model does not give: 4096 assumed");
            }
        }
        if (!f.batch) r.batch = d.batch;
        if (!f.ubatch) r.ubatch = d.ubatch;
        if (!f.batch || !f.ubatch)
            b.assume("batch", std::to_string(r.batch) + "/" + std::to_string(r.ubatch),
                     d.batch_source);
        if (!f.flash_attn) {
            r.flash_attn = d.flash_attn;
            b.assume("flash attention", r.flash_attn ? "on" : "off", d.flash_source);
        }
    }
    if (f.context) r.context = *f.context;
    if (f.parallel) r.parallel = *f.parallel;
    if (f.batch) r.batch = *f.batch;
    if (f.ubatch) r.ubatch = *f.ubatch;
    if (f.flash_attn) r.flash_attn = *f.flash_attn;

    // Cache types: the flags, else Ollama's variable, else the runtime's own.
    KvType base = d.cache_type;
    std::string cache_source(d.cache_source);
    if (rt == Runtime::ollama && e.kv_cache_type) {
        const auto t = kv_type_of(*e.kv_cache_type);
        if (!t)
            return Error{"OLLAMA_KV_CACHE_TYPE=" + printable(*e.kv_cache_type) +
                         " is not a cache type llama.cpp takes (" + kv_type_names() + ")"};
        base = *t;
        cache_source = "OLLAMA_KV_CACHE_TYPE (llm/llama_server.go:394)";
    }
    r.k_type = f.k_type.value_or(base);
    r.v_type = f.v_type.value_or(base);
    if (!f.k_type || !f.v_type)
        b.assume("cache type", std::string(kv_type_name(base)), cache_source);

    if (!m.projector_files.empty()) {
        b.out.projector_counted = d.loads_projector;
        if (!d.loads_projector)
            b.out.notes.push_back("projector " + printable_path(m.projector_files.front()) +
                                  " not counted: " + std::string(d.projector_source));
    } else if (!m.projector_note.empty()) {
        b.out.notes.push_back("projector " + m.projector_note);
    }
    return b.out;
}

}  // namespace wiredcap::fit
