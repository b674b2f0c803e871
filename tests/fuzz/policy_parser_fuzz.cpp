// libFuzzer target for the policy parser: the bytes are the text of /etc/wiredcap.conf, parsed
// for several machine sizes. Whatever the bytes, policy::parse must not crash or throw, and an
// accepted policy must be a band the helper can enforce (the properties in check_policy), which
// refusal() then enforces exactly. Built with -fsanitize=fuzzer under clang; replayed over the
// corpus as an ordinary test in every build (replay_main.cpp).
//
// Every input is checked against every machine size below, so the corpus stays plain policy
// text, the same files a person writes.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "wiredcap/policy/policy.hpp"
#include "wiredcap/units/casts.hpp"
#include "wiredcap/units/format.hpp"

#include "fuzz_checks.hpp"

namespace {

using wiredcap::fuzz::printable_message;
using wiredcap::fuzz::require;
using namespace wiredcap;
using namespace wiredcap::units::literals;
using units::Bytes;
using units::MiB;

// 8 GiB is smaller than most bands allow; the last is not a whole number of MiB (memsize is a
// byte count; the parser must floor it, never round it up).
constexpr std::array<Bytes, 6> kMemsizes{Bytes(8_GiB),   Bytes(16_GiB),  Bytes(64_GiB),
                                         Bytes(192_GiB), Bytes(512_GiB), Bytes(96_GiB) + 4097_B};

MiB ram_of(Bytes memsize) { return units::floor_cast<MiB>(memsize); }

// The step rule, restated independently of policy.cpp: a raise is measured from the current
// cap, or from min when the cap is the OS default (0) or below the band; lowering is free.
bool step_ok(const policy::Policy& p, MiB current, MiB value) {
    const MiB base = (current.count() == 0 || current < p.min) ? p.min : current;
    return !(value > base) || !(value - base > p.max_step);
}

void check_refusal(const policy::Policy& p, Bytes memsize, MiB current, MiB value) {
    const auto why = policy::refusal(p, memsize, current, value);
    const bool in_band = !(value < p.min) && !(value > p.max);
    if (in_band && step_ok(p, current, value)) {
        require(!why.has_value());
    } else {
        require(why.has_value());
        require(!why->empty() && printable_message(*why));
    }
}

void check_policy(const policy::Policy& p, Bytes memsize) {
    require(p.source == policy::Source::file);
    require(p.min.count() > 0);
    require(p.min < p.max);
    require(!(p.reserve < policy::kReserveFloor));
    const auto usable = checked_sub(ram_of(memsize), p.reserve);
    require(usable.has_value() && !(p.max > *usable));
    require(p.max_step.count() > 0);
    for (const auto& w : p.warnings) require(!w.empty() && printable_message(w));
    if (p.group) require(!p.group->empty() && p.group->size() <= 32 && printable_message(*p.group));

    // The values a caller is most likely to try, from each kind of current cap.
    const MiB one = 1_MiB;
    const std::array<std::optional<MiB>, 5> values{p.min, p.max, checked_add(p.max, one),
                                                   checked_sub(p.min, one), MiB::zero()};
    const std::array<MiB, 4> currents{MiB::zero(), p.min, p.max, *checked_sub(p.min, one)};
    for (const auto& current : currents)
        for (const auto& value : values)
            if (value) check_refusal(p, memsize, current, *value);

    // Writing the accepted policy back out and parsing it again gives the same policy.
    std::string text = "min = " + units::to_string(p.min) + "\nmax = " + units::to_string(p.max) +
                       "\nreserve = " + units::to_string(p.reserve) +
                       "\nmax_step = " + units::to_string(p.max_step) + "\n";
    if (p.group) text += "group = " + *p.group + "\n";
    const auto again = policy::parse(text, memsize);
    require(again.has_value());
    require(again->min == p.min && again->max == p.max && again->reserve == p.reserve &&
            again->max_step == p.max_step && again->group == p.group &&
            again->warnings == p.warnings);
}

void check(std::string_view text, Bytes memsize) {
    const auto parsed = policy::parse(text, memsize);
    if (!parsed) {
        const std::string& message = parsed.error().message;
        require(!message.empty() && printable_message(message));
        return;
    }
    check_policy(*parsed, memsize);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    for (const Bytes memsize : kMemsizes) check(text, memsize);
    return 0;
}
