#include "wiredcap/simulator/sim_kernel.hpp"

#include <chrono>
#include <exception>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "wiredcap/simulator/sim_profiles.hpp"
#include "wiredcap/simulator/sim_state.hpp"
#include "wiredcap/units/parse.hpp"

namespace wiredcap::kernel {
namespace {

namespace fs = std::filesystem;
using sim::SimState;
using units::MiB;
using Kind = KernelError::Kind;

constexpr std::string_view kKey = "iogpu.wired_limit_mb";

// Kernel methods must not throw; anything unexpected below them (allocation, a bug) becomes a
// KernelError of the kind the caller already handles for that call.
template <class Body>
auto guarded(Kind kind, Body&& body) -> decltype(body()) {
    try {
        return body();
    } catch (const std::exception& e) {
        return KernelError{kind, std::string("simulator internal error: ") + e.what()};
    }
}

KernelError state_error(Kind kind, const Error& e) {
    return KernelError{kind, "simulated Mac: " + e.message};
}

KernelError hung_error(const SimState& s) {
    return KernelError{Kind::machine_hung, "the simulated Mac is hung (a write above " +
                                               std::to_string(s.hang_above.count()) +
                                               " MiB); only a simulated reboot brings it back"};
}

// Why the knob cannot be reached at all, if it cannot. A hung machine answers nothing, so that
// comes first.
std::optional<KernelError> unreachable(const SimState& s) {
    if (s.hung) return hung_error(s);
    if (!s.wired_limit_mb_present)
        return KernelError{Kind::key_missing, std::string(kKey) + ": no such sysctl (simulated " +
                                                  s.profile + " has no iogpu.wired_limit_mb)"};
    if (s.fault_key_missing)
        return KernelError{Kind::key_missing,
                           std::string(kKey) + ": no such sysctl (simulated fault key-missing)"};
    return std::nullopt;
}

// The largest MiB count the kernel's integer can hold.
std::uint64_t width_limit(unsigned width) {
    return width == 4 ? std::numeric_limits<std::uint32_t>::max() : MiB::max_count;
}

// knob + offset, clamped to what the kernel's integer can hold and never below 0.
MiB read_back(const SimState& s) {
    const std::uint64_t knob = s.knob.count();
    const std::int64_t offset = s.fault_readback_offset_mib;
    const std::uint64_t limit = width_limit(s.value_width);
    if (offset < 0) {
        const std::uint64_t down =
            static_cast<std::uint64_t>(-(offset + 1)) + 1;  // |offset|, no overflow
        return *MiB::from_count(knob > down ? knob - down : 0);
    }
    const auto up = static_cast<std::uint64_t>(offset);
    return *MiB::from_count(up > limit - knob ? limit : knob + up);
}

std::optional<KernelError> write_refusal(const SimState& s, MiB value) {
    if (auto e = unreachable(s)) return e;
    if (s.fault_write_refused)
        return KernelError{
            Kind::write_refused,
            std::string(kKey) + ": Input/output error (simulated fault write-refused)"};
    if (!sim::fits_width(value, s.value_width))
        return KernelError{
            Kind::write_refused,
            std::string(kKey) + ": Invalid argument: " + std::to_string(value.count()) +
                " does not fit the kernel's " + std::to_string(s.value_width) + "-byte integer"};
    return std::nullopt;
}

void apply_write(SimState& s, MiB value) {
    s.knob = value;
    ++s.writes;
    if (s.history.size() == sim::kHistoryCap) s.history.erase(s.history.begin());
    s.history.push_back(value);
    // The sysctl returns before the GPU wires past the safe limit: the write succeeds, the
    // machine hangs afterwards.
    if (s.hang_above != MiB::zero() && value > s.hang_above) s.hung = true;
}

// A stall fault: the process sleeps, holding no lock, as if the sysctl were slow.
void stall(std::uint64_t ms) {
    if (ms != 0) std::this_thread::sleep_for(std::chrono::milliseconds(ms));
}

std::optional<std::string> as_text(const std::optional<std::uint64_t>& v) {
    if (!v) return std::nullopt;
    return std::to_string(*v);
}

// One locked update whose change may be refused with an Error.
Expected<Ok> update_or_refuse(const fs::path& path,
                              const std::function<std::optional<Error>(SimState&)>& change) {
    std::optional<Error> refusal;
    auto saved = sim::update_state(path, [&](SimState& s) {
        refusal = change(s);
        return !refusal;
    });
    if (!saved) return saved.error();
    if (refusal) return *refusal;
    return Ok{};
}

Expected<Ok> set_field(const fs::path& path, const std::function<void(SimState&)>& set) {
    return update_or_refuse(path, [&](SimState& s) -> std::optional<Error> {
        set(s);
        return std::nullopt;
    });
}

Expected<Ok> set_stall(const fs::path& path, std::uint64_t ms, std::uint64_t SimState::*field) {
    if (ms > sim::kMaxStallMs)
        return Error{"a stall of " + std::to_string(ms) + " ms is more than " +
                     std::to_string(sim::kMaxStallMs) + " ms (10 minutes)"};
    return update_or_refuse(path, [ms, field](SimState& s) -> std::optional<Error> {
        s.*field = ms;
        return std::nullopt;
    });
}

}  // namespace

SimKernel::SimKernel(fs::path state_path) : path_(std::move(state_path)) {}

std::string_view SimKernel::backend_name() const { return "simulated"; }

KernelResult<MiB> SimKernel::read_wired_limit() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<MiB> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (auto e = unreachable(*s)) return *e;
        return read_back(*s);
    });
}

KernelResult<Ok> SimKernel::write_wired_limit(MiB value) {
    return guarded(Kind::write_refused, [&]() -> KernelResult<Ok> {
        // Before anything changes (the caller has journaled its intent): unlocked, so a state
        // that cannot be read only skips the stall and the locked update below reports it.
        if (auto before = sim::load_state(path_)) stall(before->fault_stall_write_ms);
        std::optional<KernelError> refusal;
        std::uint64_t stall_after_ms = 0;
        auto saved = sim::update_state(path_, [&](SimState& s) {
            refusal = write_refusal(s, value);
            if (!refusal) apply_write(s, value);
            stall_after_ms = refusal ? 0 : s.fault_stall_after_write_ms;
            return !refusal;
        });
        if (!saved) return state_error(Kind::write_refused, saved.error());
        if (refusal) return *refusal;
        // The knob has changed (the file is replaced and unlocked); the caller has not heard yet.
        stall(stall_after_ms);
        return Ok{};
    });
}

KernelResult<units::Bytes> SimKernel::read_memsize() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<units::Bytes> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (s->hung) return hung_error(*s);
        return s->memsize;
    });
}

KernelResult<std::string> SimKernel::read_boot_id() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<std::string> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (s->hung) return hung_error(*s);
        return s->boot_id;
    });
}

KernelResult<std::chrono::seconds> SimKernel::read_uptime() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<std::chrono::seconds> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (s->hung) return hung_error(*s);
        auto uptime = sim::uptime_at(*s, sim::unix_now());
        if (!uptime) return state_error(Kind::read_failed, uptime.error());
        return *uptime;
    });
}

KernelResult<units::Bytes> SimKernel::read_wired_now() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<units::Bytes> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (s->hung) return hung_error(*s);
        return s->wired;
    });
}

std::vector<RelatedKey> SimKernel::read_related() {
    try {
        auto s = sim::load_state(path_);
        if (!s || s->hung) return {};
        const auto& r = s->related;
        return {
            RelatedKey{"iogpu.wired_lwm_mb", as_text(r.wired_lwm_mb)},
            RelatedKey{"iogpu.dynamic_lwm", as_text(r.dynamic_lwm)},
            RelatedKey{"iogpu.disable_wired_collector", as_text(r.disable_wired_collector)},
            RelatedKey{"debug.iogpu.wired_limit", as_text(r.debug_wired_limit_bytes)},
        };
    } catch (const std::exception&) {
        return {};
    }
}

KernelResult<MiB> SimKernel::simulated_metal_working_set() {
    return guarded(Kind::read_failed, [&]() -> KernelResult<MiB> {
        auto s = sim::load_state(path_);
        if (!s) return state_error(Kind::read_failed, s.error());
        if (s->hung) return hung_error(*s);
        return s->knob == MiB::zero() ? s->default_cap : s->knob;
    });
}

Expected<Ok> SimKernel::init(const fs::path& state_path, std::string_view profile_name) {
    const auto* profile = sim::find_profile(profile_name);
    if (profile == nullptr)
        return Error{"unknown profile " + units::quote_input(profile_name) +
                     " (known: " + sim::profile_names() + ")"};
    auto state = sim::fresh_state(*profile);
    if (!state) return state.error();
    return sim::replace_state(state_path, *state);
}

Expected<Ok> SimKernel::reboot(const fs::path& state_path) {
    auto boot_id = sim::new_boot_id();
    if (!boot_id) return boot_id.error();
    return set_field(state_path, [&](SimState& s) {
        s.boot_id = *boot_id;
        ++s.boot_count;
        s.boot_time = sim::unix_now();
        s.uptime_advanced_s = 0;
        s.knob = MiB::zero();
        s.hung = false;
        s.wired = sim::idle_wired(s.memsize);  // a boot frees what was stranded
    });
}

Expected<Ok> SimKernel::advance_uptime(const fs::path& state_path, std::chrono::seconds by) {
    if (by.count() < 0)
        return Error{"the uptime cannot go back (" + std::to_string(by.count()) + " s)"};
    const auto step = static_cast<std::uint64_t>(by.count());
    return update_or_refuse(state_path, [step](SimState& s) -> std::optional<Error> {
        SimState after = s;
        after.uptime_advanced_s += step;
        // Checked on the result, at the current time, so that the next read_uptime can answer:
        // a sum that wrapped in 64 bits is smaller than what it was added to.
        if (after.uptime_advanced_s < s.uptime_advanced_s ||
            !sim::uptime_at(after, sim::unix_now()))
            return Error{"advancing the uptime by " + std::to_string(step) +
                         " s would overflow 64-bit seconds"};
        s.uptime_advanced_s = after.uptime_advanced_s;
        return std::nullopt;
    });
}

Expected<Ok> SimKernel::set_fault_write_refused(const fs::path& state_path, bool on) {
    return set_field(state_path, [on](SimState& s) { s.fault_write_refused = on; });
}

Expected<Ok> SimKernel::set_fault_readback_offset(const fs::path& state_path,
                                                  std::int64_t offset_mib) {
    return set_field(state_path,
                     [offset_mib](SimState& s) { s.fault_readback_offset_mib = offset_mib; });
}

Expected<Ok> SimKernel::set_fault_key_missing(const fs::path& state_path, bool on) {
    return set_field(state_path, [on](SimState& s) { s.fault_key_missing = on; });
}

Expected<Ok> SimKernel::set_fault_stall_write(const fs::path& state_path, std::uint64_t ms) {
    return set_stall(state_path, ms, &SimState::fault_stall_write_ms);
}

Expected<Ok> SimKernel::set_fault_stall_after_write(const fs::path& state_path, std::uint64_t ms) {
    return set_stall(state_path, ms, &SimState::fault_stall_after_write_ms);
}

Expected<Ok> SimKernel::set_value_width(const fs::path& state_path, unsigned width) {
    if (width != 4 && width != 8)
        return Error{"value width must be 4 or 8 (bytes), not " + std::to_string(width)};
    return update_or_refuse(state_path, [width](SimState& s) -> std::optional<Error> {
        if (!sim::fits_width(s.knob, width))
            return Error{"the knob is " + std::to_string(s.knob.count()) +
                         " MiB, which does not fit " + std::to_string(width) +
                         " bytes; write a smaller value or reboot first"};
        s.value_width = width;
        return std::nullopt;
    });
}

Expected<Ok> SimKernel::set_clock_pinned(const fs::path& state_path, bool pinned) {
    return set_field(state_path, [pinned](SimState& s) { s.clock_pinned = pinned; });
}

Expected<Ok> SimKernel::set_launchd(const fs::path& state_path, std::string_view state) {
    if (state != "none" && state != "loaded" && state != "not-loaded" && state != "not-installed" &&
        state != "disabled")
        return Error{"launchd takes none, loaded, not-loaded, not-installed or disabled"};
    return set_field(state_path, [state](SimState& s) { s.launchd = std::string(state); });
}

Expected<Ok> SimKernel::set_hang_above(const fs::path& state_path, MiB above) {
    return set_field(state_path, [above](SimState& s) { s.hang_above = above; });
}

Expected<Ok> SimKernel::set_default_cap(const fs::path& state_path, MiB cap) {
    auto s = sim::load_state(state_path);
    if (!s) return s.error();
    if (cap.count() == 0 || !(units::Bytes(cap) < s->memsize))
        return Error{"the default cap must be above 0 and below the memory size"};
    return set_field(state_path, [cap](SimState& st) { st.default_cap = cap; });
}

Expected<Ok> SimKernel::set_wired(const fs::path& state_path, units::Bytes wired) {
    return update_or_refuse(state_path, [wired](SimState& s) -> std::optional<Error> {
        if (s.memsize < wired) return Error{"wired memory cannot exceed the memory size"};
        s.wired = wired;
        return std::nullopt;
    });
}

}  // namespace wiredcap::kernel
