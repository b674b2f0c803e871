#include "wiredcap/cli/commands/ramp_for.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::fit {

Expected<std::string, FitError> ramp_target_for(const cli::CliContext& ctx, const FitRequest& model,
                                                std::ostream& say) {
    auto a = analyse(ctx, model);
    if (!a) return a.error();
    const auto need = units::ceil_cast<units::MiB>(a->total);
    const auto& k = a->kv_request;
    say << "model needs " << (need ? units::to_string(*need) : "?") << " at " << k.context
        << " tokens";
    if (k.parallel != 1) say << " x " << k.parallel << " sequences";
    if (k.k_type != KvType::f16 || k.v_type != KvType::f16) say << ", KV " << cache_types(k);
    if (micro_batch(k) != KvRequest{}.ubatch) say << ", micro-batch " << micro_batch(k);
    if (k.flash_attn) say << ", flash attention";
    say << " under " << runtime_defaults(a->runtime.runtime).name
        << "'s defaults (see: wiredcap fit)\n";
    const VerdictResult& v = a->verdict;
    switch (v.verdict) {
        case Verdict::fits_now:
            say << "it fits under the cap the GPU has now: nothing to ramp\n";
            return std::string();
        case Verdict::fits_after_raise: return size_argument(*v.recommended);
        case Verdict::does_not_fit:
            return FitError{ExitCode::refused_by_policy, "the model does not fit: " + v.why};
        case Verdict::unknown: break;
    }
    return FitError{ExitCode::internal_error,
                    "cannot tell what the model needs the cap to be: " + v.why};
}

}  // namespace wiredcap::fit
