#include "wiredcap/cli/readings/readings.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::cli {
namespace {

std::string string_or(const json::Value* v, std::string fallback = {}) {
    if (v == nullptr || json::as_string(*v) == nullptr) return fallback;
    return *json::as_string(*v);
}

// {"value":N|null,"source":"...","error":"..."} -> Reading<T>, converting N with `make`.
template <class T, class Make>
Reading<T> reading_of(const json::Value* o, Make make) {
    Reading<T> r;
    if (o == nullptr) {
        r.error = "not reported by the helper";
        return r;
    }
    r.source = string_or(json::get(*o, "source"));
    r.error = string_or(json::get(*o, "error"));
    if (const json::Value* v = json::get(*o, "value"); v != nullptr && !v->is_null())
        r.value = make(*v);
    if (!r.value && r.error.empty()) r.error = "no value";
    return r;
}

std::optional<units::MiB> mib_of(const json::Value& v) {
    const auto n = json::as_u64(v);
    return n ? units::MiB::from_count(*n) : std::nullopt;
}

std::optional<units::MiB> mib_field(const json::Value& o, std::string_view key) {
    const json::Value* v = json::get(o, key);
    return v ? mib_of(*v) : std::nullopt;
}

std::optional<PolicyView> policy_of(const json::Value& p) {
    PolicyView view;
    const auto min = mib_field(p, "min_mib"), max = mib_field(p, "max_mib");
    const auto reserve = mib_field(p, "reserve_mib"), step = mib_field(p, "max_step_mib");
    if (!min || !max || !reserve || !step) return std::nullopt;
    view.min = *min;
    view.max = *max;
    view.reserve = *reserve;
    view.max_step = *step;
    if (const json::Value* g = json::get(p, "group"); g && json::as_string(*g))
        view.group = *json::as_string(*g);
    if (const json::Value* h = json::get(p, "healthy_after_s"))
        view.healthy_after_s = json::as_u64(*h);
    view.source = string_or(json::get(p, "source"));
    if (const json::Value* path = json::get(p, "path"); path && json::as_string(*path))
        view.source += " " + *json::as_string(*path);
    view.vouched = mib_field(p, "vouched_mib");
    view.vouched_note = string_or(json::get(p, "vouched_note"));
    view.sha256 = string_or(json::get(p, "sha256"));
    if (const json::Value* w = json::get(p, "warnings"); w && w->is_array())
        for (const auto& item : *w)
            if (json::as_string(item)) view.warnings.push_back(*json::as_string(item));
    return view;
}

std::optional<bool> bool_field(const json::Value& o, std::string_view key) {
    const json::Value* v = json::get(o, key);
    return v ? json::as_bool(*v) : std::nullopt;
}

std::optional<std::uint64_t> u64_field(const json::Value& o, std::string_view key) {
    const json::Value* v = json::get(o, key);
    return v ? json::as_u64(*v) : std::nullopt;
}

// "persisted_mib": a number is the stored value; null is "nothing stored" unless the helper
// says why it could not tell (error); anything else, or no member at all, is unknown.
void persisted_of(const json::Value& o, BootGuard& g) {
    g.error = string_or(json::get(o, "error"));
    const json::Value* v = json::get(o, "persisted_mib");
    if (v != nullptr && !v->is_null()) {
        g.persisted = mib_of(*v);
        if (!g.persisted && g.error.empty())
            g.error = "the helper reported an unreadable persisted_mib";
    } else if (v == nullptr && g.error.empty()) {
        g.error = "the helper did not report persisted_mib";
    }
}

}  // namespace

std::optional<GuardState> guard_state_of(std::string_view name) {
    for (const GuardState g : {GuardState::armed, GuardState::trying, GuardState::healthy,
                               GuardState::tripped, GuardState::failed})
        if (guard_state_name(g) == name) return g;
    return std::nullopt;
}

std::string_view guard_state_name(GuardState g) {
    switch (g) {
        case GuardState::armed: return "armed";
        case GuardState::trying: return "trying";    // not a journal word: boot.state's guard
        case GuardState::healthy: return "healthy";  // not a journal word: boot.state's guard
        case GuardState::tripped: return "tripped";  // not a journal word: boot.state's guard
        case GuardState::failed: return "failed";
    }
    return "unknown";
}

std::optional<BootGuard> boot_guard_of(const json::Value* o) {
    if (o == nullptr || !o->is_object()) return std::nullopt;
    BootGuard g;
    g.source = string_or(json::get(*o, "source"), "boot state file");
    g.switch_path = string_or(json::get(*o, "switch"));
    g.disabled = bool_field(*o, "disabled");
    persisted_of(*o, g);
    if (const json::Value* b = json::get(*o, "basis"); b && json::as_string(*b)) {
        if (*json::as_string(*b) == journal::basis::confirmed) g.confirmed = true;
        else if (*json::as_string(*b) == "unconfirmed") g.confirmed = false;
    }
    g.persisted_time = string_or(json::get(*o, "persisted_time"));
    g.guard_name = string_or(json::get(*o, "guard"));
    g.guard = guard_state_of(g.guard_name);
    g.guard_boot = string_or(json::get(*o, "guard_boot"));
    g.guard_time = string_or(json::get(*o, "guard_time"));
    g.applied_uptime_s = u64_field(*o, "applied_uptime_s");
    g.healthy_after_s = u64_field(*o, "healthy_after_s");
    g.reason = string_or(json::get(*o, "reason"));
    return g;
}

Expected<MachineReadings> read_machine(const HelperClient& helper) {
    const HelperReply reply = helper.run({"read"});
    if (!reply.json)
        return Error{"cannot read the machine through " + helper.path() + ": " + reply.error};
    return readings_of(*reply.json, reply.exit_code);
}

MachineReadings readings_of(const json::Value& j, int helper_exit) {
    MachineReadings m;
    m.helper_exit = helper_exit;
    m.backend = string_or(json::get(j, "backend"), "unknown");
    m.knob = reading_of<units::MiB>(json::get(j, "wired_limit_mib"), mib_of);
    const auto bytes_of = [](const json::Value& v) {
        const auto n = json::as_u64(v);
        return n ? units::Bytes::from_count(*n) : std::nullopt;
    };
    m.memsize = reading_of<units::Bytes>(json::get(j, "memsize_bytes"), bytes_of);
    m.wired_now = reading_of<units::Bytes>(json::get(j, "wired_bytes"), bytes_of);
    m.boot_id = reading_of<std::string>(json::get(j, "boot_id"), [](const json::Value& v) {
        return json::as_string(v) ? std::optional<std::string>(*json::as_string(v)) : std::nullopt;
    });
    m.uptime = reading_of<std::chrono::seconds>(json::get(j, "uptime_s"), [](const json::Value& v) {
        const auto n = json::as_i64(v);
        return n && *n >= 0 ? std::optional<std::chrono::seconds>(*n) : std::nullopt;
    });
    m.boot_guard = boot_guard_of(json::get(j, "boot_guard"));
    if (const json::Value* rel = json::get(j, "related"); rel && rel->is_object())
        for (const auto& [name, v] : rel->items())
            m.related.emplace_back(name, reading_of<std::string>(&v, [](const json::Value& x) {
                                       return json::as_string(x)
                                                  ? std::optional<std::string>(*json::as_string(x))
                                                  : std::nullopt;
                                   }));
    if (const json::Value* p = json::get(j, "policy")) {
        m.policy = policy_of(*p);
        if (!m.policy)
            m.policy_error =
                string_or(json::get(*p, "error"), "the helper reported no usable policy");
    } else {
        m.policy_error = string_or(json::get(j, "error"), "the helper reported no policy");
    }
    if (const json::Value* c = json::get(j, "caller")) {
        const json::Value* may = json::get(*c, "may_change");
        m.may_change = may && json::as_bool(*may).value_or(false);
        m.may_change_why = string_or(json::get(*c, "why"));
    }
    return m;
}

}  // namespace wiredcap::cli
