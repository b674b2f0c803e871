#include "commands/ramp_for.hpp"

#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::fit {

Expected<std::string, FitError> ramp_target_for(const cli::CliContext& ctx, const std::string& path,
                                                 const std::optional<std::string>& context, std::ostream& say) {
    FitRequest req;
    req.path = path;
    if (context) req.context = *context;
    auto a = analyse(ctx, req);
    if (!a) return a.error();
    const auto need = units::ceil_cast<units::MiB>(a->total);
    say << "model needs " << (need ? units::to_string(*need) : "?") << " at " << a->kv_request.context
        << " tokens (see: wiredcap fit)\n";
    const VerdictResult& v = a->verdict;
    switch (v.verdict) {
        case Verdict::fits_now:
            say << "it fits under the cap the GPU has now: nothing to ramp\n";
            return std::string();
        case Verdict::fits_after_raise: return size_argument(*v.recommended);
        case Verdict::does_not_fit: return FitError{ExitCode::refused_by_policy, "the model does not fit: " + v.why};
        case Verdict::unknown: break;
    }
    return FitError{ExitCode::internal_error, "cannot tell what the model needs the cap to be: " + v.why};
}

}  // namespace wiredcap::fit
