#include "wiredcap/cli/commands/metrics_cmd.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "wiredcap/cli/commands/journal_metrics.hpp"
#include "wiredcap/cli/output/atomic_file.hpp"
#include "wiredcap/cli/output/prometheus_text.hpp"
#include "wiredcap/units/quantity.hpp"
#include "wiredcap/version.hpp"
#include "wiredcap/cli/fail.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::MiB;
std::optional<Bytes> bytes_of(const std::optional<MiB>& v) {
    return v ? std::optional<Bytes>(Bytes(*v)) : std::nullopt;
}

void info(Exposition& e, const StatusReadings* s) {
    e.family("wiredcap_up",
             "1 when wiredcap-helper answered and the readings below were made, else 0.");
    e.sample("wiredcap_up", s ? 1 : 0);
    e.family("wiredcap_info",
             "wiredcap's version, its kernel backend and the policy in force; always 1.");
    Labels l{{"version", kVersion}};
    if (s) {
        const auto& m = s->machine;
        l.emplace_back("backend", m.backend);
        l.emplace_back("policy_source", m.policy ? m.policy->source : "unknown");
        l.emplace_back("policy_sha256", m.policy ? m.policy->sha256 : "");
    }
    e.sample("wiredcap_info", 1, l);
}

void reading_ok(Exposition& e, const StatusReadings& s) {
    const auto& m = s.machine;
    const bool boot_state =
        m.boot_guard && (m.boot_guard->persisted || m.boot_guard->error.empty());
    const std::array<std::pair<const char*, bool>, 7> readings{{
        {"knob", m.knob.value.has_value()},
        {"effective_cap", s.metal.working_set.has_value()},
        {"memory", m.memsize.value.has_value()},
        {"wired", m.wired_now.value.has_value()},
        {"policy", m.policy.has_value()},
        {"journal", s.journal.has_value()},
        {"boot_state", boot_state},
    }};
    e.family("wiredcap_reading_ok",
             "1 when the reading was made, 0 when it is unknown (its metric is then absent).");
    for (const auto& [name, ok] : readings)
        e.sample("wiredcap_reading_ok", ok ? 1 : 0, {{"reading", name}});
}

void policy(Exposition& e, const MachineReadings& m) {
    if (!m.policy) return;
    const PolicyView& p = *m.policy;
    e.bytes("wiredcap_band_min_bytes", "The permitted band's lowest cap (policy min).",
            Bytes(p.min));
    e.bytes("wiredcap_band_max_bytes", "The permitted band's highest cap (policy max).",
            Bytes(p.max));
    e.bytes("wiredcap_reserve_bytes", "Memory always left to the OS (policy reserve).",
            Bytes(p.reserve));
    e.bytes("wiredcap_max_step_bytes", "The largest single raise (policy max_step).",
            Bytes(p.max_step));
    e.bytes("wiredcap_vouched_bytes", "The value root vouched for in the policy (vouched), if any.",
            bytes_of(p.vouched));
}

void boot_guard(Exposition& e, const MachineReadings& m) {
    if (!m.boot_guard) return;
    const BootGuard& g = *m.boot_guard;
    e.bytes("wiredcap_boot_stored_bytes", "The value stored for boot (wiredcap persist), if any.",
            bytes_of(g.persisted));
    if (g.disabled) {
        e.family("wiredcap_boot_action_disabled",
                 "1 when the boot action's disable switch exists.");
        e.sample("wiredcap_boot_action_disabled", *g.disabled ? 1 : 0);
    }
    // The guard's state: one sample per state, 1 for the current one; none = nothing stored.
    // Not written when it cannot be told (the boot state file unreadable, or an unknown state).
    std::optional<std::string> current;
    if (!g.persisted && g.error.empty()) current = "none";
    else if (g.persisted && g.guard) current = std::string(guard_state_name(*g.guard));
    if (!current) return;
    e.family("wiredcap_boot_guard_state",
             "The boot guard's state; none when nothing is stored for boot.");
    for (const char* state : {"none", "armed", "trying", "healthy", "tripped",
                              "failed"})  // not a journal word: boot.state's guard
        e.sample("wiredcap_boot_guard_state", *current == state ? 1 : 0, {{"state", state}});
}

// The boot LaunchDaemon as launchd reports it: a stored value applies at boot only while it is
// loaded and enabled (a person can switch it off in Login Items). Left out where there is no
// launchd (not a Mac, or the simulated one) and where launchctl could not tell.
void daemon(Exposition& e, const DaemonState& d) {
    if (!d.applicable) return;
    if (d.loaded) {
        e.family("wiredcap_daemon_loaded",
                 "1 when launchd has org.wiredcap.boot loaded in its system domain.");
        e.sample("wiredcap_daemon_loaded", *d.loaded ? 1 : 0);
    }
    if (d.enabled) {
        e.family("wiredcap_daemon_enabled",
                 "1 unless launchd lists org.wiredcap.boot as disabled (Login Items).");
        e.sample("wiredcap_daemon_enabled", *d.enabled ? 1 : 0);
    }
}

// Whether the helper wiredcap runs is root's and setuid: a member's set, ramp and persist need it,
// and an install or upgrade that lost the bit breaks them on that Mac. Left out when stat(2) failed.
void helper_file(Exposition& e, const HelperFile& h) {
    if (!h.mode || !h.uid) return;
    e.family("wiredcap_helper_setuid_root",
             "1 when the helper wiredcap runs is owned by root with its setuid bit set.");
    e.sample("wiredcap_helper_setuid_root", (*h.mode & S_ISUID) != 0 && *h.uid == 0 ? 1 : 0);
}

}  // namespace

std::string prometheus_text(const StatusReadings* s) {
    Exposition e;
    info(e, s);
    if (!s) return e.text();
    const auto& m = s->machine;
    reading_ok(e, *s);
    e.bytes("wiredcap_knob_bytes",
            "iogpu.wired_limit_mb in bytes, as the kernel reads it; 0 is the OS default.",
            bytes_of(m.knob.value));
    e.bytes("wiredcap_effective_cap_bytes",
            "The GPU's effective cap (Metal recommendedMaxWorkingSetSize).", s->metal.working_set);
    e.bytes("wiredcap_memory_bytes", "Physical memory (hw.memsize).", m.memsize.value);
    e.bytes("wiredcap_wired_bytes", "Memory wired now, system-wide (the kernel's wired pages).",
            m.wired_now.value);
    policy(e, m);
    journal_metrics(e, s->journal ? &*s->journal : nullptr, s->journal_bytes);
    helper_file(e, s->helper);
    boot_guard(e, m);
    daemon(e, s->daemon);
    return e.text();
}

// A directory another user can write is refused: there anyone may plant wiredcap.prom first,
// and with the sticky bit (/tmp) a writer who is not root can then never replace it, so the
// scrape would serve their numbers. Only the caller or root may own it, and no one else write it.
std::optional<std::string> shared_dir_problem(const std::string& dir) {
    struct stat st {};
    if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
        return std::nullopt;  // the write says why
    if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return dir + " is writable by " +
               ((st.st_mode & S_IWOTH) != 0 ? "every user" : "its group") +
               ", who could plant or keep a wiredcap.prom there; use a directory only you (or root) can write";
    if (st.st_uid != ::geteuid() && st.st_uid != 0)
        return dir + " belongs to uid " + std::to_string(st.st_uid) +
               ", who could plant or keep a wiredcap.prom there; use a directory only you (or root) can write";
    return std::nullopt;
}

ExitCode run_metrics(CliContext& ctx, const MetricsRequest& req) {
    if (req.textfile_dir)
        if (auto why = shared_dir_problem(*req.textfile_dir)) {
            return fail(ctx.err, "metrics", ExitCode::usage, "refusing --textfile-dir ", *why);
        }
    auto read = read_status(ctx);
    if (!read) say(ctx.err, "metrics", read.error().message);
    const std::string text = prometheus_text(read ? &*read : nullptr);
    const ExitCode code = read ? ExitCode::ok : ExitCode::internal_error;
    if (!req.textfile_dir) {
        ctx.out << text;
        return code;
    }
    // Written even without readings: wiredcap_up 0 replaces values that would otherwise go stale.
    if (auto ok = replace_file_atomically(*req.textfile_dir, kTextfileName, text); !ok) {
        // The directory is the machine's (missing, read-only, full), not a fault of wiredcap's.
        return fail(ctx.err, "metrics", ExitCode::output_failed, ok.error().message);
    }
    return code;
}

}  // namespace wiredcap::cli
