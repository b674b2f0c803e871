// The exit codes of wiredcap and wiredcap-helper (docs/design.md section 7). One list for both
// programs, so a script sees the same number whichever of them refused. Documented in
// README.md ("Exit codes") and in `wiredcap --help`; a value never changes meaning.
#pragma once

namespace wiredcap {

enum class ExitCode : int {
    ok = 0,
    internal_error = 1,        // a bug or an unexpected system failure; nothing was changed
    usage = 2,                 // bad command line or bad size
    refused_by_policy = 3,     // outside the permitted band, over max_step, above memsize - reserve
    not_permitted = 4,         // the caller may not change the cap
    kernel_write_failed = 5,   // the kernel refused the write
    readback_differs = 6,      // written, but reading it back gave another value
    unsupported_platform = 7,  // no iogpu.wired_limit_mb here (or only the read-only Ventura key)
    ramp_stopped = 8,   // the person typed `stop`: the last confirmed value is kept, the target
                        // was not reached (not 0: a script must not carry on as if it were)
    ramp_reverted = 9,  // no confirmation: reverted to the last confirmed value
    unresolved_journal = 10,  // an earlier ramp was never concluded; run `wiredcap recover`
    policy_invalid = 11,      // the policy file is unsafe or malformed
    journal_failed = 12,  // the journal or the boot state could not be written: nothing was changed
    declined = 13,        // asked at the prompt, the person did not answer yes: nothing was changed
    // Why there is no band, told apart by wiredcap (the helper answers 11 for all of them):
    no_safe_band = 14,       // no policy file, and this Mac is too small for the built-in band
    policy_missing = 15,     // the policy file named (policy check FILE) does not exist
    policy_unreadable = 16,  // the policy file exists but cannot be read (permissions, not a file)
    raise_needed =
        17,  // fit --check: the model fits only after a raise (the cap does not hold it yet)
    trial_scheduled =
        18,              // Linux set: one trial boot is scheduled; the machine holds the value only
                         // once that boot reads it back and it is confirmed (docs/linux.md)
    output_failed = 19,  // the answer could not be written (stdout, stderr, metrics' textfile
                         // directory): whatever the command changed is done and journaled
};

[[nodiscard]] constexpr int to_int(ExitCode c) noexcept { return static_cast<int>(c); }

}  // namespace wiredcap
