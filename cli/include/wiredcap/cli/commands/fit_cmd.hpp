// `wiredcap fit PATH`: how much memory a model needs (weights from its tensor table, KV cache
// from its attention layout, the compute buffer as a stated estimate) against the machine's effective cap,
// the policy's highest value and memory minus the reserve; with the one command to run.
#pragma once

#include <optional>
#include <string>

#include "wiredcap/cli/cli_context.hpp"
#include "wiredcap/cli/commands/fit_verdict.hpp"
#include "wiredcap/fit/compute_buffer.hpp"
#include "wiredcap/fit/kv_cache.hpp"
#include "wiredcap/fit/model_files.hpp"
#include "wiredcap/fit/runtime_request.hpp"
#include "wiredcap/exit_codes.hpp"

namespace wiredcap::fit {

// What the person asked; nullopt where a flag said nothing and the runtime's default applies
// (wiredcap/fit/runtime_defaults.hpp).
struct FitRequest {
    std::string path;
    std::optional<std::string>
        runtime;  // --runtime: llama.cpp, llama-server, ollama, lm-studio, mlx
    std::optional<std::string> context;  // tokens per sequence (a unified cache: all sequences')
    std::optional<std::string> kv_type;  // both caches, unless one is named below
    std::optional<std::string> kv_type_k;
    std::optional<std::string> kv_type_v;
    std::optional<std::string> parallel;
    std::optional<std::string> batch;   // llama.cpp's -b
    std::optional<std::string> ubatch;  // llama.cpp's -ub
    std::optional<bool> flash_attn;     // --flash-attn / --no-flash-attn
    std::optional<bool> kv_unified;     // --kv-unified / --no-kv-unified
    bool check = false;                 // fit --check: the exit code tells the verdict
};

struct FitAnswer {
    ModelInfo model;
    RuntimeRequest runtime;  // which runtime, and every value assumed for it
    KvRequest kv_request;
    KvEstimate kv;
    ComputeEstimate compute;
    units::Bytes total = units::Bytes::zero();
    bool simulated = false;
    VerdictResult verdict;
    // When it does not fit: by how much, the largest context that would, the first smaller
    // cache type that would at the context asked (each nullopt when none would), and whether
    // flash attention (a smaller compute buffer) would.
    std::optional<units::Bytes> over_by;
    std::optional<std::uint64_t> largest_context;
    std::optional<KvType> fitting_kv_type;
    bool fits_with_flash_attn = false;    // at the context asked, with --flash-attn
    std::optional<units::Bytes> memsize;  // physical memory, for the picture of need and cap
};

struct FitError {
    ExitCode code;
    std::string message;
};

// Reads the model's headers and the machine, and decides. Used by `fit` and `ramp --for`.
[[nodiscard]] Expected<FitAnswer, FitError> analyse(const cli::CliContext& ctx,
                                                    const FitRequest& req);

// "q8_0", or "K q8_0, V f16" when the two caches differ.
[[nodiscard]] std::string cache_types(const KvRequest& k);

// fit --check's exit code for a verdict: 0 only when the cap holds the model now (as 0 means
// everywhere), 17 when a raise would, 3 when the policy and memory allow no cap that does (as
// `ramp --for` refuses it), 1 when it cannot be told (as `ramp --for`).
[[nodiscard]] ExitCode check_exit_code(Verdict v);

[[nodiscard]] ExitCode run_fit(cli::CliContext& ctx, const FitRequest& req);

}  // namespace wiredcap::fit
