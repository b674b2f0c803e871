#include "wiredcap/linux/trial.hpp"

#include "wiredcap/kernel/ttm.hpp"
#include "wiredcap/linux/band.hpp"
#include "wiredcap/linux/cmdline.hpp"
#include "wiredcap/linux/driver_ready.hpp"
#include "wiredcap/linux/boot_loader.hpp"
#include "wiredcap/linux/grub.hpp"
#include "wiredcap/linux/run.hpp"
#include "wiredcap/linux/sysfs_ttm.hpp"
#include "wiredcap/linux/trial_journal.hpp"
#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::linux_amd {
namespace {

using units::Pages;
using units::PageSize;

VerbResult fail(ExitCode code, std::string why) { return {code, {std::move(why)}}; }

// The driver's read-back against the trial's request: pages_limit and mem_info_gtt_total must
// both equal pages x page size.
std::optional<std::string> readback_mismatch(const kernel::TtmReadings& r, const Pages& want) {
    if (!r.pages_limit.value) return "pages_limit unreadable: " + r.pages_limit.note;
    if (*r.pages_limit.value != want)
        return "pages_limit reads " + units::describe(*r.pages_limit.value) + ", not " +
               units::describe(want);
    if (!r.gtt_total.value) return "mem_info_gtt_total unreadable: " + r.gtt_total.note;
    if (*r.gtt_total.value != want.to_bytes())
        return "the driver's GTT is " + units::describe(*r.gtt_total.value, want.page_size()) +
               ", not " + units::describe(want) + " (pages x page size)";
    return std::nullopt;
}

// The trial's value as a hang: one `hung` record, which the journal's readers take as a hang
// ceiling at once (the lowest binds); false if it could not be written.
bool remember_hang(TrialJournal& journal, const TrialState& s, const std::string& why) {
    return journal.record({journal::event::hung, why}, s);
}

// A trial that ran (its one-shot consumed) on an earlier boot and was never confirmed: what
// after_boot records as a hang. The boot it was scheduled on, the trial boot itself and a
// one-shot still armed are not.
bool ended_unconfirmed(const SystemRoot& root, const TrialState& s, const kernel::TtmReadings& r) {
    const std::string boot = r.boot_id.value.value_or("");
    if (boot.empty()) return false;
    if (s.phase == "booted") return boot != s.trial_boot_id;
    if (s.phase != "scheduled" || boot == s.scheduled_boot_id) return false;
    const auto now = r.cmdline.value ? cmdline_value(*r.cmdline.value, s.param) : std::nullopt;
    if (now && *now == std::to_string(s.pages)) return false;
    const auto loader = detect_boot_loader(root).loader;
    const auto armed = loader ? loader->oneshot_armed() : Expected<bool>(false);
    return armed && !*armed;
}

// Whether after_boot would read the driver back on this boot (the default's check, the trial
// boot, its health mark), rather than judge from the command line and the boot loader alone.
bool reads_back(const TrialState& s, const kernel::TtmReadings& r) {
    const std::string boot = r.boot_id.value.value_or("");
    if (s.phase == "default") return true;
    if (s.phase == "booted") return boot == s.trial_boot_id;
    if (s.phase != "scheduled" || boot == s.scheduled_boot_id) return false;
    const auto now = r.cmdline.value ? cmdline_value(*r.cmdline.value, s.param) : std::nullopt;
    return now && *now == std::to_string(s.pages);
}

// Whether the boot loader's default entry carries param=pages, read back: a value in force
// now that the default no longer carries (a hand edit, a regenerated config) is gone at the
// next boot.
bool default_entry_holds(const SystemRoot& root, const std::string& param, std::uint64_t pages) {
    const auto loader = detect_boot_loader(root).loader;
    const auto v = loader ? loader->default_value(param) : std::nullopt;
    return v && *v == std::to_string(pages);
}

}  // namespace

VerbResult schedule_trial(const SystemRoot& root, TrialJournal& journal, const PolicyText& policy,
                          units::Bytes size, const VerbCommand& self) {
    const VerbLock lock(root);
    if (!lock.held())
        return fail(ExitCode::internal_error,
                    "another ttm-* command is running; nothing scheduled");
    SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    if (!r.page_size.value)
        return fail(ExitCode::unsupported_platform,
                    "page size unknown (" + r.page_size.source + "): nothing scheduled");
    if (!r.amdgpu_loaded)
        return fail(ExitCode::unsupported_platform,
                    "amdgpu is not loaded (/sys/module/amdgpu): no AMD GPU to raise the "
                    "limit for, and nothing to read a trial back from; nothing scheduled");
    if (!r.module.value)
        return fail(ExitCode::unsupported_platform,
                    "no TTM module to set: " + r.module.note + "; nothing scheduled");
    if (r.gttsize.value)
        return fail(
            ExitCode::unsupported_platform,
            "amdgpu.gttsize=" + *r.gttsize.value + " is set (" + r.gttsize.source +
                "): it overrides pages_limit for the GPU; remove it first; nothing scheduled");
    if (!r.mem_total.value)
        return fail(ExitCode::unsupported_platform, "MemTotal unknown: no band; nothing scheduled");
    const auto band = ttm_band(policy, *r.mem_total.value, *r.page_size.value);
    if (!band)
        return fail(
            policy.text && !*policy.text ? ExitCode::no_safe_band : ExitCode::policy_invalid,
            band.error().message + "; nothing scheduled");
    const auto exact = whole_pages("the trial's size", size, *r.page_size.value);
    if (!exact) return fail(ExitCode::usage, exact.error().message + "; nothing scheduled");
    const Pages want = *exact;
    if (auto why = band_refusal(*band, want, r.pages_limit.value))
        return fail(ExitCode::refused_by_policy, *why + "; nothing scheduled");
    const auto ceiling = journal.hang_ceiling();
    if (!ceiling)
        return fail(ExitCode::journal_failed, ceiling.error().message + ": nothing scheduled");
    // Compared as sizes: a hang counted in other pages (another kernel) binds all the same.
    if (*ceiling && want.to_bytes() >= units::Bytes(**ceiling))
        return fail(
            ExitCode::refused_by_policy,
            units::describe(want) + " is at or above the hang ceiling " +
                units::describe(ceiling_pages(**ceiling, want.page_size())) +
                " (the journal); nothing scheduled; forget it if it was not a hang: " +
                self.of(root, "ttm-forget-hang",
                        "--why other-cause"));  // not a journal word: wiredcap-system's verb
    auto loaded = load_trial_state(root);
    if (!loaded)
        return fail(ExitCode::journal_failed, loaded.error().message + ": nothing scheduled");
    TrialState s = *loaded;
    const std::string param = std::string(kernel::module_name(*r.module.value)) + ".pages_limit";
    if (s.phase == "scheduled" && s.param == param && s.pages == want.count() &&
        s.page_size == want.page_size().bytes())
        // This very trial is scheduled (a script's rerun): answered from the boot loader's
        // one-shot read back, nothing written.
        if (const auto loader = detect_boot_loader(root).loader)
            if (const auto armed = loader->oneshot_armed(); armed && *armed)
                return {
                    ExitCode::ok,
                    {"already scheduled: ONE boot with " +
                         kernel::pages_limit_parameter(*r.module.value, want),
                     "  = " + units::describe(want),
                     "  " + std::string(loader->name()) + ": " + loader->trial_places(),
                     "Reboot now. A hang or a reset boots the unchanged default entry.",
                     "After the trial boot: " +
                         self.of(root,
                                 "ttm-confirm")}};  // not a journal word: wiredcap-system's verb
    if (s.phase == "scheduled" || s.phase == "booted")
        return fail(ExitCode::refused_by_policy,
                    "a trial of " + std::to_string(s.pages) + " pages is pending (phase " +
                        s.phase + "): confirm it or reset first; nothing scheduled");
    if (s.phase == "default" && s.default_param == param && s.default_pages == want.count() &&
        r.pages_limit.value && *r.pages_limit.value == want &&
        default_entry_holds(root, param, want.count()))
        // Already the default (read back from the boot loader) and in force: nothing to try,
        // nothing written (a script's rerun).
        return {ExitCode::ok, {"already the default and in force: " + units::describe(want)}};
    s.phase = "scheduled";
    s.param = param;
    s.pages = want.count();
    s.page_size = want.page_size().bytes();
    s.scheduled_boot_id = r.boot_id.value.value_or("");
    s.trial_boot_id.clear();
    // Intent first: a crash between here and GRUB's write leaves a record, not a silent trial.
    if (auto w = save_trial_state(root, s); !w)
        return fail(ExitCode::journal_failed, "cannot record the trial: " + w.error().message);
    if (!journal.record({journal::event::intent}, s)) {
        s.phase = s.default_param.empty() ? "none" : "default";
        (void)save_trial_state(root, s);
        return fail(ExitCode::journal_failed, "cannot journal the trial; nothing scheduled");
    }
    const auto boot = detect_boot_loader(root);
    const auto g = boot.loader ? boot.loader->schedule(param, std::to_string(want.count()))
                               : Expected<Ok>(Error{boot.why_none});
    if (!g) {
        s.phase = s.default_param.empty() ? "none" : "default";
        (void)save_trial_state(root, s);
        (void)journal.record({journal::event::refused, g.error().message}, s);
        return fail(ExitCode::unsupported_platform,
                    "no one-shot boot loader: " + g.error().message + "; nothing scheduled");
    }
    (void)journal.record({journal::event::trial_scheduled, "", boot.loader->trial_places()}, s);
    return {ExitCode::ok,
            {"scheduled ONE boot with " + kernel::pages_limit_parameter(*r.module.value, want),
             "  = " + units::describe(want),
             "  " + std::string(boot.loader->name()) + ": " + boot.loader->trial_places(),
             "Reboot now. A hang or a reset boots the unchanged default entry.",
             "After the trial boot: " +
                 self.of(root, "ttm-confirm")}};  // not a journal word: wiredcap-system's verb
}

VerbResult after_boot(const SystemRoot& root, TrialJournal& journal, const VerbCommand& self) {
    const VerbLock lock(root);
    if (!lock.held()) return fail(ExitCode::internal_error, "another ttm-* command is running");
    auto loaded = load_trial_state(root);
    if (!loaded) return fail(ExitCode::journal_failed, loaded.error().message);
    TrialState s = *loaded;
    SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    const std::string boot = r.boot_id.value.value_or("");
    const auto pages = trial_pages(s);
    if (auto why = reads_back(s, r) ? driver_not_up(r) : std::nullopt)
        // Never read back before the driver is up: unknown, not a mismatch. Nothing changes;
        // udev's start when amdgpu binds, or the timer, runs this again.
        return fail(ExitCode::unsupported_platform,
                    "read-back unknown, the GPU driver is not up: " + *why + "; nothing changed");
    if (s.phase == "default") {
        // The value made default must still be what the driver holds: a kernel update, an
        // initramfs or another tool can drop or override it.
        const auto size = PageSize::from_bytes(s.page_size);
        const auto want = size ? Pages::from_count(s.default_pages, *size) : std::nullopt;
        if (want) {
            if (auto why = readback_mismatch(r, *want)) {
                (void)journal.record(
                    {journal::event::default_mismatch, *why, "", r.pages_limit.value}, s);
                return fail(ExitCode::readback_differs, "the default " + s.default_param + "=" +
                                                            std::to_string(s.default_pages) +
                                                            " is not in force: " + *why);
            }
            return {ExitCode::ok, {"default read back: " + units::describe(*want)}};
        }
    }
    if ((s.phase != "scheduled" && s.phase != "booted") || !pages)
        return {ExitCode::ok, {"no trial pending"}};
    const auto cmd_value =
        r.cmdline.value ? cmdline_value(*r.cmdline.value, s.param) : std::nullopt;
    const bool trial_boot = cmd_value && *cmd_value == std::to_string(s.pages);
    if (s.phase == "scheduled" && boot == s.scheduled_boot_id)
        return {ExitCode::ok, {"trial scheduled; not booted yet"}};
    if (s.phase == "scheduled" && trial_boot) {
        // This kernel runs with the trial's value whatever the driver says yet: the trial stays
        // at risk (a hang during this boot is remembered), and only a matching read-back confirms.
        s.phase = "booted";
        s.trial_boot_id = boot;
        s.healthy = false;
        (void)save_trial_state(root, s);
        if (auto why = readback_mismatch(r, *pages)) {
            (void)journal.record({journal::event::mismatch, *why, "", r.pages_limit.value}, s);
            if (const auto loader = detect_boot_loader(root).loader) (void)loader->cancel();
            return fail(
                ExitCode::readback_differs,
                "the trial boot's read-back does not match: " + *why +
                    "; still at risk: unconfirmed, the next boot records it as a hang ceiling");
        }
        (void)journal.record({journal::event::trial_booted, "", "", r.pages_limit.value}, s);
        return {ExitCode::ok,
                {"trial boot read back: " + units::describe(*pages),
                 "confirm with: " +
                     self.of(root, "ttm-confirm")}};  // not a journal word: wiredcap-system's verb
    }
    if (s.phase == "booted" && boot == s.trial_boot_id) {
        const std::uint64_t up = r.uptime_s.value.value_or(0);
        if (!s.healthy && up >= kHealthyAfterS) {
            // The health mark: up this long with the value, the driver still reading it back.
            if (auto why = readback_mismatch(r, *pages))
                return fail(ExitCode::readback_differs, "read-back differs now: " + *why);
            s.healthy = true;
            (void)save_trial_state(root, s);
            (void)journal.record({journal::event::healthy, "up " + std::to_string(up) + " s", "",
                                  r.pages_limit.value},
                                 s);
        }
        return {ExitCode::ok,
                {std::string(s.healthy ? "trial boot healthy" : "trial boot up") + " (" +
                 std::to_string(up) + " s); waiting for confirmation"}};
    }
    const auto boot_loader = detect_boot_loader(root);
    if (s.phase == "scheduled" && boot_loader.loader) {
        // A later boot that still finds the one-shot armed never tried it: the boot loader did
        // not consume it (GRUB cannot write grubenv on some file systems, or another loader
        // booted). Left armed it could fire at any later boot, unwatched: disarm it.
        if (auto armed = boot_loader.loader->oneshot_armed(); armed && *armed) {
            (void)boot_loader.loader->cancel();
            (void)journal.record(
                {journal::event::trial_not_consumed, std::string(boot_loader.loader->name())}, s);
            s.phase = s.default_param.empty() ? "none" : "default";
            (void)save_trial_state(root, s);
            return fail(ExitCode::unsupported_platform,
                        "the boot loader did not consume the one-shot: trial disarmed, "
                        "no value tried, no hang ceiling");
        }
    }
    // A later boot without the trial's confirmation: the trial hung, was reset, or was left
    // unconfirmed. All three are remembered as a hang ceiling at the trial's value.
    const std::string why = s.phase == "scheduled" ? "the trial boot never came up to read back"
                                                   : "the trial boot ended without a confirmation";
    if (!remember_hang(journal, s, why))
        return fail(
            ExitCode::journal_failed,
            "trial of " + units::describe(*pages) + " failed (" + why +
                ") and could NOT be recorded as the hang ceiling: the journal is not writable");
    if (boot_loader.loader) (void)boot_loader.loader->cancel();
    s.phase = s.default_param.empty() ? "none" : "default";
    (void)save_trial_state(root, s);
    return fail(ExitCode::ramp_reverted,
                "trial of " + units::describe(*pages) + " failed: " + why +
                    "; recorded as the hang ceiling, this boot runs the unchanged default");
}

VerbResult confirm_trial(const SystemRoot& root, TrialJournal& journal,
                         const std::vector<std::string>& check_cmd) {
    const VerbLock lock(root);
    if (!lock.held())
        return fail(ExitCode::internal_error,
                    "another ttm-* command is running; nothing made default");
    auto loaded = load_trial_state(root);
    if (!loaded)
        return fail(ExitCode::journal_failed, loaded.error().message + ": nothing made default");
    TrialState s = *loaded;
    const auto pages = trial_pages(s);
    SysfsTtmKernel kernel(root);
    const auto r = kernel.read();
    if (s.phase == "default" && pages && s.default_param == s.param && s.default_pages == s.pages &&
        !readback_mismatch(r, *pages))
        // The trial was made default (a script's rerun): answered from the boot loader's default
        // entry and the driver, both read back, nothing written.
        if (default_entry_holds(root, s.param, s.pages))
            return {ExitCode::ok, {"already the default and in force: " + units::describe(*pages)}};
    if (s.phase != "booted" || !pages || r.boot_id.value.value_or("") != s.trial_boot_id)
        return fail(ExitCode::refused_by_policy,
                    "no trial boot to confirm (phase " + s.phase + "): nothing made default");
    if (auto why = driver_not_up(r))
        return fail(
            ExitCode::unsupported_platform,
            "read-back unknown, the GPU driver is not up: " + *why + "; nothing made default");
    if (auto why = readback_mismatch(r, *pages))
        return fail(ExitCode::readback_differs, "read-back does not match: " + *why);
    if (!check_cmd.empty()) {
        auto ran = run_program(check_cmd);
        if (!ran || ran->exit_code != 0) {
            (void)journal.record(
                {journal::event::declined, "--check " + check_cmd.front() + " failed"}, s);
            return fail(ExitCode::declined,
                        "--check " + check_cmd.front() +
                            " failed: not confirmed; the next boot drops the value");
        }
    }
    const auto boot = detect_boot_loader(root);
    if (!boot.loader)
        return fail(ExitCode::unsupported_platform, "no boot loader: " + boot.why_none);
    if (!journal.record({journal::event::intent, "", boot.loader->default_place()}, s))
        return fail(ExitCode::journal_failed, "cannot journal the change; nothing made default");
    if (auto d = boot.loader->make_default(s.param, std::to_string(s.pages)); !d)
        return fail(ExitCode::kernel_write_failed,
                    "making it the default failed: " + d.error().message);
    (void)boot.loader->cancel();
    s.phase = "default";
    s.default_param = s.param;
    s.default_pages = s.pages;
    (void)save_trial_state(root, s);
    (void)journal.record(
        {journal::event::made_default, "", boot.loader->default_place(), r.pages_limit.value}, s);
    return {
        ExitCode::ok,
        {"confirmed: " + units::describe(*pages), "made default: " + boot.loader->default_place()}};
}

VerbResult reset_ttm(const SystemRoot& root, TrialJournal& journal) {
    // Reset always works for root: without the lock after 5 s, and it says so.
    const VerbLock lock(root);
    VerbResult out{ExitCode::ok, {}};
    if (!lock.held()) out.lines.push_back("another ttm-* command holds the lock; resetting anyway");
    auto loaded = load_trial_state(root);
    if (!loaded)
        out.lines.push_back(loaded.error().message + ": reset as if nothing were recorded");
    TrialState s = loaded ? *loaded : TrialState{};
    // What a trial taught outlives the reset: an unconfirmed trial the after-boot read-back has
    // not yet judged is remembered here, as it would have been there.
    const auto pages = trial_pages(s);
    if (pages && ended_unconfirmed(root, s, SysfsTtmKernel(root).read())) {
        if (remember_hang(journal, s, "reset after a trial boot that ended without a confirmation"))
            out.lines.push_back("the unconfirmed trial of " + units::describe(*pages) +
                                " is remembered as the hang ceiling");
        else
            out.lines.push_back("the unconfirmed trial of " + units::describe(*pages) +
                                " could NOT be recorded as the hang ceiling");
    }
    // Its intent is on record before any boot-loader file changes, as every writer's is; a
    // journal that cannot be written is said, never a reason to keep the parameter.
    if (!journal.record({journal::event::intent, "phase " + s.phase}, s))
        out.lines.push_back("the journal could not be written");
    bool default_left = false;  // wiredcap's default parameter could not be removed
    const auto boot = detect_boot_loader(root);
    if (!boot.loader)
        out.lines.push_back("no boot loader found (" + boot.why_none +
                            "): nothing of wiredcap's there");
    if (boot.loader) {
        auto cancelled = boot.loader->cancel();
        if (!cancelled)
            return fail(ExitCode::kernel_write_failed, "reset: " + cancelled.error().message);
        for (auto& line : *cancelled) out.lines.push_back(line);
        for (const char* name : {"ttm.pages_limit", "amdttm.pages_limit", "amd_ttm.pages_limit"}) {
            const auto v = boot.loader->default_value(name);
            if (v && name == s.default_param && *v == std::to_string(s.default_pages)) {
                if (auto d = boot.loader->remove_default(name); !d) {
                    // The rest of the reset still happens; this place is named for the admin.
                    out.code = ExitCode::kernel_write_failed;
                    default_left = true;
                    out.lines.push_back(boot.loader->default_place() + ": " + name + "=" + *v +
                                        " NOT removed (" + d.error().message +
                                        "): remove it by hand");
                } else {
                    out.lines.push_back(boot.loader->default_place() + ": " + name + "=" + *v +
                                        " removed (wiredcap wrote it)");
                }
            } else if (v) {
                out.lines.push_back(boot.loader->default_place() + ": " + name + "=" + *v +
                                    " was not written by wiredcap, left alone");
            }
            for (const auto& place : boot.loader->foreign_values(name))
                out.lines.push_back(place + ": not written by wiredcap, left alone");
        }
    }
    for (const auto& f : root.list("/etc/modprobe.d")) {
        const auto text = root.read("/etc/modprobe.d/" + f);
        if (text && text->find("pages_limit") != std::string::npos)
            out.lines.push_back("/etc/modprobe.d/" + f +
                                " sets pages_limit: not written by wiredcap, left alone");
    }
    const std::string before_phase = s.phase;
    s.phase = default_left ? "default" : "none";
    if (!default_left) {
        s.default_param.clear();
        s.default_pages = 0;
    }
    (void)save_trial_state(root, s);
    if (!journal.record({journal::event::reset, "was " + before_phase}, s))
        out.lines.push_back("the journal could not be written");
    if (out.lines.empty()) out.lines.push_back("nothing of wiredcap's to remove");
    if (!default_left)
        out.lines.push_back(
            "the next boot uses the kernel's default (half of RAM) unless a place above sets one");
    return out;
}

VerbResult forget_hang(const SystemRoot& root, TrialJournal& journal, std::string_view why) {
    if (why != "kernel-update" && why != "hardware-change" && why != "other-cause")
        return fail(ExitCode::usage, "--why takes kernel-update, hardware-change or other-cause");
    const VerbLock lock(root);
    if (!lock.held())
        return fail(ExitCode::internal_error,
                    "another ttm-* command is running; nothing forgotten");
    const auto ceiling = journal.hang_ceiling();
    if (ceiling && !*ceiling) return {ExitCode::ok, {"no hang ceiling to forget"}};
    const auto loaded = load_trial_state(root);
    TrialState record = loaded ? *loaded : TrialState{};
    // The record names the ceiling it cleared, in this machine's pages (none when either is
    // unknown: the record still clears every hang before it).
    const auto page_size = SysfsTtmKernel(root).read().page_size.value;
    const auto cleared = ceiling && page_size
                             ? std::optional<Pages>(ceiling_pages(**ceiling, *page_size))
                             : std::nullopt;
    record.pages = cleared ? cleared->count() : 0;
    record.page_size = cleared ? cleared->page_size().bytes() : 0;
    if (!journal.record({journal::event::forgotten, std::string(why)}, record))
        return fail(ExitCode::journal_failed, "cannot journal it; the hang ceiling stays");
    const std::string what = !ceiling  ? "(unreadable: " + ceiling.error().message + ")"
                             : cleared ? units::describe(*cleared)
                                       : units::describe(**ceiling);
    return {ExitCode::ok, {"forgot the hang ceiling " + what + " (" + std::string(why) + ")"}};
}

}  // namespace wiredcap::linux_amd
