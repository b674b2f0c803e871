#include "readings.hpp"

namespace wiredcap::cli {
namespace {

std::string string_or(const json::Value* v, std::string fallback = {}) {
    if (v == nullptr || v->as_string() == nullptr) return fallback;
    return *v->as_string();
}

// {"value":N|null,"source":"...","error":"..."} -> Reading<T>, converting N with `make`.
template <class T, class Make>
Reading<T> reading_of(const json::Value* o, Make make) {
    Reading<T> r;
    if (o == nullptr) {
        r.error = "not reported by the helper";
        return r;
    }
    r.source = string_or(o->get("source"));
    r.error = string_or(o->get("error"));
    if (const json::Value* v = o->get("value"); v != nullptr && !v->is_null()) r.value = make(*v);
    if (!r.value && r.error.empty()) r.error = "no value";
    return r;
}

std::optional<units::MiB> mib_of(const json::Value& v) {
    const auto n = v.as_u64();
    return n ? units::MiB::from_count(*n) : std::nullopt;
}

std::optional<units::MiB> mib_field(const json::Value& o, std::string_view key) {
    const json::Value* v = o.get(key);
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
    if (const json::Value* g = p.get("group"); g && g->as_string()) view.group = *g->as_string();
    if (const json::Value* h = p.get("healthy_after_s")) view.healthy_after_s = h->as_u64();
    view.source = string_or(p.get("source"));
    if (const json::Value* path = p.get("path"); path && path->as_string()) view.source += " " + *path->as_string();
    if (const json::Value* w = p.get("warnings"); w && w->as_array())
        for (const auto& item : *w->as_array())
            if (item.as_string()) view.warnings.push_back(*item.as_string());
    return view;
}

std::optional<bool> bool_field(const json::Value& o, std::string_view key) {
    const json::Value* v = o.get(key);
    return v ? v->as_bool() : std::nullopt;
}

std::optional<std::uint64_t> u64_field(const json::Value& o, std::string_view key) {
    const json::Value* v = o.get(key);
    return v ? v->as_u64() : std::nullopt;
}

// "persisted_mib": a number is the stored value; null is "nothing stored" unless the helper
// says why it could not tell (error); anything else, or no member at all, is unknown.
void persisted_of(const json::Value& o, BootGuard& g) {
    g.error = string_or(o.get("error"));
    const json::Value* v = o.get("persisted_mib");
    if (v != nullptr && !v->is_null()) {
        g.persisted = mib_of(*v);
        if (!g.persisted && g.error.empty()) g.error = "the helper reported an unreadable persisted_mib";
    } else if (v == nullptr && g.error.empty()) {
        g.error = "the helper did not report persisted_mib";
    }
}

}  // namespace

std::optional<GuardState> guard_state_of(std::string_view name) {
    for (const GuardState g : {GuardState::armed, GuardState::trying, GuardState::healthy, GuardState::tripped,
                               GuardState::failed})
        if (guard_state_name(g) == name) return g;
    return std::nullopt;
}

std::string_view guard_state_name(GuardState g) {
    switch (g) {
        case GuardState::armed: return "armed";
        case GuardState::trying: return "trying";
        case GuardState::healthy: return "healthy";
        case GuardState::tripped: return "tripped";
        case GuardState::failed: return "failed";
    }
    return "unknown";
}

std::optional<BootGuard> boot_guard_of(const json::Value* o) {
    if (o == nullptr || o->as_object() == nullptr) return std::nullopt;
    BootGuard g;
    g.source = string_or(o->get("source"), "boot state file");
    g.switch_path = string_or(o->get("switch"));
    g.disabled = bool_field(*o, "disabled");
    persisted_of(*o, g);
    if (const json::Value* b = o->get("basis"); b && b->as_string()) {
        if (*b->as_string() == "confirmed") g.confirmed = true;
        else if (*b->as_string() == "unconfirmed") g.confirmed = false;
    }
    g.persisted_time = string_or(o->get("persisted_time"));
    g.guard_name = string_or(o->get("guard"));
    g.guard = guard_state_of(g.guard_name);
    g.guard_boot = string_or(o->get("guard_boot"));
    g.guard_time = string_or(o->get("guard_time"));
    g.applied_uptime_s = u64_field(*o, "applied_uptime_s");
    g.healthy_after_s = u64_field(*o, "healthy_after_s");
    g.reason = string_or(o->get("reason"));
    return g;
}

Expected<MachineReadings> read_machine(const HelperClient& helper) {
    const HelperReply reply = helper.run({"read"});
    if (!reply.json) return Error{"cannot read the machine through " + helper.path() + ": " + reply.error};
    return readings_of(*reply.json, reply.exit_code);
}

MachineReadings readings_of(const json::Value& j, int helper_exit) {
    MachineReadings m;
    m.helper_exit = helper_exit;
    m.backend = string_or(j.get("backend"), "unknown");
    m.knob = reading_of<units::MiB>(j.get("wired_limit_mib"), mib_of);
    m.memsize = reading_of<units::Bytes>(j.get("memsize_bytes"), [](const json::Value& v) {
        const auto n = v.as_u64();
        return n ? units::Bytes::from_count(*n) : std::nullopt;
    });
    m.boot_id = reading_of<std::string>(j.get("boot_id"), [](const json::Value& v) {
        return v.as_string() ? std::optional<std::string>(*v.as_string()) : std::nullopt;
    });
    m.uptime = reading_of<std::chrono::seconds>(j.get("uptime_s"), [](const json::Value& v) {
        const auto n = v.as_i64();
        return n && *n >= 0 ? std::optional<std::chrono::seconds>(*n) : std::nullopt;
    });
    m.boot_guard = boot_guard_of(j.get("boot_guard"));
    if (const json::Value* rel = j.get("related"); rel && rel->as_object())
        for (const auto& [name, v] : *rel->as_object())
            m.related.emplace_back(name, reading_of<std::string>(&v, [](const json::Value& x) {
                                       return x.as_string() ? std::optional<std::string>(*x.as_string()) : std::nullopt;
                                   }));
    if (const json::Value* p = j.get("policy")) {
        m.policy = policy_of(*p);
        if (!m.policy) m.policy_error = string_or(p->get("error"), "the helper reported no usable policy");
    } else {
        m.policy_error = string_or(j.get("error"), "the helper reported no policy");
    }
    if (const json::Value* c = j.get("caller")) {
        m.may_change = c->get("may_change") && c->get("may_change")->as_bool().value_or(false);
        m.may_change_why = string_or(c->get("why"));
    }
    return m;
}

}  // namespace wiredcap::cli
