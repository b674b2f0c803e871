#include "wiredcap/cli/commands/boot_view.hpp"

#include "wiredcap/units/format.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::cli {
namespace {

using units::MiB;

bool unknown_boot(std::string_view b) { return b.empty() || b == "unknown"; }

std::string value_text(const BootGuard& g) {
    return g.persisted ? units::describe(*g.persisted)
                       : std::string("value (unknown: ") + g.error + ")";
}

// The helper's reasons are clauses; a sentence built from one must not end in "..".
std::string clause(std::string s) {
    while (!s.empty() && (s.back() == '.' || s.back() == ' ')) s.pop_back();
    return s.empty() ? "no reason recorded" : s;
}

// The same, opening a sentence.
std::string sentence(std::string s) {
    s = clause(std::move(s));
    if (s[0] >= 'a' && s[0] <= 'z') s[0] = static_cast<char>(s[0] - 'a' + 'A');
    return s;
}

std::string seconds_text(std::uint64_t s) { return std::to_string(s) + " s"; }

// When in this boot the value was applied: a model server started before then read the OS
// default's figure and keeps it (daemon_texts.hpp, kStartServersAfter).
std::string at_uptime(const BootGuard& g) {
    return g.applied_uptime_s ? " (applied at uptime " + seconds_text(*g.applied_uptime_s) + ")"
                              : "";
}

std::string trying_text(const BootGuard& g, const MachineReadings& m) {
    if (!guard_is_this_boot(g, m.boot_id)) {
        if (unknown_boot(g.guard_boot) || !m.boot_id.value)
            return "trying: applied at boot " + g.guard_boot + " at " + g.guard_time +
                   "; whether that is this boot is unknown (the boot id could not be read)";
        return "trying since boot " + g.guard_boot + " (" + g.guard_time +
               "), an earlier boot that never became healthy: the boot action's next run trips the guard and "
               "does not apply it again";
    }
    std::string text =
        "trying: applied at boot " + g.guard_boot + " at " + g.guard_time + at_uptime(g) + "; ";
    const HealthyIn in = healthy_in(g, m.boot_id, m.uptime);
    if (!in.seconds) text += "healthy after unknown more uptime (" + in.why_unknown + ")";
    else if (*in.seconds == 0)
        text += "up long enough: the boot action's next run marks it healthy";
    else text += "healthy after " + seconds_text(*in.seconds) + " more uptime";
    // Healthy is about surviving the boot's own apply; a value set by hand since then is noted.
    if (g.persisted && m.knob.value && *m.knob.value != *g.persisted)
        text += "; iogpu.wired_limit_mb has been changed since and reads " +
                units::to_string(*m.knob.value);
    return text;
}

std::string healthy_text(const BootGuard& g, const MachineReadings& m) {
    if (guard_is_this_boot(g, m.boot_id))
        return "healthy: applied in this boot (" + g.guard_boot + ")" + at_uptime(g) +
               ", marked healthy at " + g.guard_time;
    return "healthy in boot " + g.guard_boot + " (marked at " + g.guard_time +
           "): the boot action's next run applies it again";
}

JsonObject seconds_reading(const std::optional<std::uint64_t>& s, std::string_view source,
                           const std::string& why) {
    JsonObject o;
    if (s) o.num("value", *s);
    else o.null("value");
    o.str("source", source);
    if (!s) o.str("why_unknown", why);
    return o;
}

JsonObject stored_json(const BootGuard& g) {
    JsonObject o;
    // Null without why_unknown: nothing is stored (a valid answer, not an unknown one).
    if (g.persisted) o.num("value", g.persisted->count());
    else o.null("value");
    o.str("source", g.source);
    if (!g.persisted && !g.error.empty()) o.str("why_unknown", g.error);
    return o;
}

JsonObject switch_json(const BootGuard& g) {
    JsonObject o;
    o.str("path", g.switch_path);
    if (g.disabled) o.boolean("present", *g.disabled);
    else o.null("present");
    return o.str("source", "helper");
}

void add_guard_json(JsonObject& o, const BootGuard& g, const MachineReadings& m) {
    if (g.guard) o.str("guard", guard_state_name(*g.guard));
    else o.null("guard");
    if (!g.guard_boot.empty())
        o.str("guard_boot", g.guard_boot).boolean("this_boot", guard_is_this_boot(g, m.boot_id));
    if (!g.guard_time.empty()) o.str("guard_time", g.guard_time);
    if (!g.reason.empty()) o.str("reason", g.reason);
    if (g.applied_uptime_s) o.num("applied_uptime_s", *g.applied_uptime_s);
    if (g.healthy_after_s) o.num("healthy_after_s", *g.healthy_after_s);
    else o.null("healthy_after_s");
    if (g.guard == GuardState::trying) {
        const HealthyIn in = healthy_in(g, m.boot_id, m.uptime);
        o.object("healthy_in", seconds_reading(in.seconds, kHealthyInSource, in.why_unknown));
    }
}

// The last resort of docs/recovery.md, in the words of the man page: Safe Mode first, then
// Recovery. On a Mac the switch is under /etc, which is /private/etc on the Data volume, and
// Recovery mounts that volume as kRecoveryDataVolume ("Macintosh HD" is the sealed system one).
std::string every_start_hangs_text(const std::string& switch_path) {
    std::string text =
        "If the Mac hangs at every start: start in Safe Mode and run sudo touch " + switch_path;
    if (switch_path.starts_with("/etc/"))
        text +=
            "; if it hangs in Safe Mode too, from macOS Recovery (FileVault unlocked) run touch \"" +
            std::string(kRecoveryDataVolume) + "/private" + switch_path + "\"";
    return text + " (man wiredcap: If the Mac hangs at every start)";
}

}  // namespace

std::optional<std::string> boot_alert(const BootGuard& g) {
    if (g.guard == GuardState::tripped)
        return "BOOT GUARD TRIPPED at " + g.guard_time + ": the stored " + value_text(g) +
               " was not applied at boot. " + sentence(g.reason) +
               ". Run: wiredcap persist --off (or persist a lower value). " +
               every_start_hangs_text(g.switch_path);
    if (g.guard == GuardState::failed)
        return "BOOT ACTION FAILED at " + g.guard_time + ": " + clause(g.reason) +
               ". Run: wiredcap persist --off (or persist a value again)";
    return std::nullopt;
}

bool guard_is_this_boot(const BootGuard& g, const Reading<std::string>& boot_id) {
    return boot_id.value && !unknown_boot(*boot_id.value) && !unknown_boot(g.guard_boot) &&
           g.guard_boot == *boot_id.value;
}

HealthyIn healthy_in(const BootGuard& g, const Reading<std::string>& boot_id,
                     const Reading<std::chrono::seconds>& uptime) {
    if (g.guard != GuardState::trying || !guard_is_this_boot(g, boot_id))
        return {std::nullopt, "the boot guard is not trying a value in this boot"};
    if (!uptime.value) return {std::nullopt, "the uptime is unknown: " + uptime.error};
    if (!g.applied_uptime_s)
        return {std::nullopt, "the boot state does not say at what uptime it was applied"};
    if (!g.healthy_after_s)
        return {std::nullopt, "healthy_after is unknown: the policy does not load"};
    const auto now = static_cast<std::uint64_t>(uptime.value->count());
    if (now < *g.applied_uptime_s)
        return {std::nullopt, "the uptime reads less than when the value was applied"};
    const std::uint64_t up = now - *g.applied_uptime_s;
    return {up >= *g.healthy_after_s ? 0 : *g.healthy_after_s - up, {}};
}

std::string stored_text(const BootGuard& g) {
    if (!g.persisted) return g.error.empty() ? "nothing" : "unknown (" + g.error + ")";
    std::string basis = !g.confirmed   ? "basis unknown"
                        : *g.confirmed ? "confirmed in a ramp"
                                       : "unconfirmed (stored with --unconfirmed)";
    return units::describe(*g.persisted) + ", " + basis + ", stored " + g.persisted_time;
}

std::string guard_text(const BootGuard& g, const MachineReadings& m) {
    if (!g.guard) return "unknown (the helper reported guard '" + g.guard_name + "')";
    const bool off = g.disabled.value_or(false);
    switch (*g.guard) {
        case GuardState::armed: {
            // The helper stamps the boot it was stored in, and applies it from the next one on.
            const bool later = !unknown_boot(g.guard_boot) && m.boot_id.value &&
                               !unknown_boot(*m.boot_id.value) && !guard_is_this_boot(g, m.boot_id);
            const std::string when =
                later ? "stored in an earlier boot: the boot action's next run applies it"
                      : "applied at the next boot";
            return off ? "armed: " + when + ", but the boot action is disabled" : "armed: " + when;
        }
        case GuardState::trying: return trying_text(g, m);
        case GuardState::healthy: return healthy_text(g, m);
        case GuardState::tripped: return "TRIPPED at " + g.guard_time + ": " + clause(g.reason);
        case GuardState::failed: return "FAILED at " + g.guard_time + ": " + clause(g.reason);
    }
    return "unknown";
}

std::string guard_source(const BootGuard& g, const MachineReadings& m) {
    if (g.guard == GuardState::trying && guard_is_this_boot(g, m.boot_id))
        return std::string(kHealthyInSource) + "; " + g.source + ", kernel uptime";
    return g.source;
}

std::string switch_text(const BootGuard& g) {
    if (!g.disabled) return "unknown (the helper did not say whether " + g.switch_path + " exists)";
    if (*g.disabled)
        return "DISABLED: " + g.switch_path +
               " exists (or cannot be checked), so the boot action does nothing";
    return "enabled (nothing at " + g.switch_path + ")";
}

JsonObject boot_guard_status_json(const MachineReadings& m) {
    JsonObject o;
    if (!m.boot_guard) {
        return o
            .object("stored", JsonObject()
                                  .null("value")
                                  .str("source", "helper")
                                  .str("why_unknown", "not reported by the helper"))
            .null("guard")
            .null("alert");
    }
    const BootGuard& g = *m.boot_guard;
    o.object("stored", stored_json(g));
    if (g.persisted) {
        if (g.confirmed)
            o.str("basis", *g.confirmed ? journal::basis::confirmed : journal::basis::unconfirmed);
        else o.null("basis");
        o.str("stored_time", g.persisted_time);
        add_guard_json(o, g, m);
    } else {
        o.null("guard");
    }
    o.object("switch", switch_json(g));
    if (auto alert = boot_alert(g)) o.str("alert", *alert);
    else o.null("alert");
    return o;
}

}  // namespace wiredcap::cli
