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
    view.source = string_or(p.get("source"));
    if (const json::Value* path = p.get("path"); path && path->as_string()) view.source += " " + *path->as_string();
    if (const json::Value* w = p.get("warnings"); w && w->as_array())
        for (const auto& item : *w->as_array())
            if (item.as_string()) view.warnings.push_back(*item.as_string());
    return view;
}

}  // namespace

Expected<MachineReadings> read_machine(const HelperClient& helper) {
    const HelperReply reply = helper.run({"read"});
    if (!reply.json) return Error{"cannot read the machine through " + helper.path() + ": " + reply.error};
    const json::Value& j = *reply.json;
    MachineReadings m;
    m.helper_exit = reply.exit_code;
    m.backend = string_or(j.get("backend"), "unknown");
    m.knob = reading_of<units::MiB>(j.get("wired_limit_mib"), mib_of);
    m.memsize = reading_of<units::Bytes>(j.get("memsize_bytes"), [](const json::Value& v) {
        const auto n = v.as_u64();
        return n ? units::Bytes::from_count(*n) : std::nullopt;
    });
    m.boot_id = reading_of<std::string>(j.get("boot_id"), [](const json::Value& v) {
        return v.as_string() ? std::optional<std::string>(*v.as_string()) : std::nullopt;
    });
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
