// The simulated Mac: profiles, the state file, and Kernel behaviour as docs/design.md section 2
// describes macOS. Every test gets its own temporary directory.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "wiredcap/simulator/default_state_path.hpp"
#include "wiredcap/helper/kernel/make_kernel.hpp"
#include "wiredcap/simulator/sim_kernel.hpp"
#include "wiredcap/simulator/sim_profiles.hpp"
#include "wiredcap/simulator/sim_state.hpp"
#include "wiredcap/units/literals.hpp"

namespace {

namespace fs = std::filesystem;
namespace sim = wiredcap::kernel::sim;
using wiredcap::Expected;
using wiredcap::kernel::KernelError;
using wiredcap::kernel::KernelResult;
using wiredcap::kernel::SimKernel;
using wiredcap::units::Bytes;
using wiredcap::units::MiB;
using namespace wiredcap::units::literals;
using Kind = KernelError::Kind;

constexpr std::uint64_t kU32Max = std::numeric_limits<std::uint32_t>::max();

MiB mib(std::uint64_t n) { return *MiB::from_count(n); }

template <class T, class E>
testing::AssertionResult succeeded(const Expected<T, E>& r) {
    if (r) return testing::AssertionSuccess();
    return testing::AssertionFailure() << "failed: " << r.error().message;
}

template <class T>
testing::AssertionResult fails_with(const KernelResult<T>& r, Kind kind) {
    if (r) return testing::AssertionFailure() << "succeeded, expected a failure";
    if (r.error().kind != kind)
        return testing::AssertionFailure()
               << "wrong kind " << static_cast<int>(r.error().kind) << ": " << r.error().message;
    return testing::AssertionSuccess();
}

bool looks_like_boot_id(const std::string& id) {
    if (id.size() != 36) return false;
    for (std::size_t i = 0; i < id.size(); ++i) {
        const bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        const bool hex = (id[i] >= '0' && id[i] <= '9') || (id[i] >= 'A' && id[i] <= 'F');
        if (dash ? id[i] != '-' : !hex) return false;
    }
    return id[14] == '4';  // version 4: random
}

// Share of RAM in tenths of a percent, integer arithmetic only.
std::uint64_t permille(MiB cap, Bytes memsize) { return cap.bytes() / (memsize.count() / 1000); }

class SimTest : public testing::Test {
protected:
    void SetUp() override {
        std::string tmpl = (fs::temp_directory_path() / "wiredcap-sim-test-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
        path_ = dir_ / "state";
    }
    void TearDown() override {
        std::error_code ec;
        fs::remove_all(dir_, ec);
    }

    void init(std::string_view profile) { ASSERT_TRUE(succeeded(SimKernel::init(path_, profile))); }
    sim::SimState state() const {
        auto s = sim::load_state(path_);
        EXPECT_TRUE(succeeded(s));
        return s ? *s : sim::SimState{};
    }
    std::string file_text() const {
        std::string text(fs::file_size(path_), '\0');
        std::ifstream in(path_, std::ios::binary);
        in.read(text.data(), static_cast<std::streamsize>(text.size()));
        return text;
    }
    void write_file(const std::string& text) const {
        std::ofstream out(path_, std::ios::binary | std::ios::trunc);
        out << text;
    }
    // Every entry but the lock file `state.lock`, which stays by design (a 0600 sidecar that no
    // other user can open and hold; sim_state.hpp); checked here to be exactly that.
    std::vector<std::string> dir_entries() const {
        std::vector<std::string> names;
        for (const auto& e : fs::directory_iterator(dir_)) {
            const auto name = e.path().filename().string();
            if (name == "state.lock") {
                struct stat st {};
                EXPECT_EQ(::lstat(e.path().c_str(), &st), 0);
                EXPECT_TRUE(S_ISREG(st.st_mode) && (st.st_mode & 07777) == 0600)
                    << "state.lock mode " << st.st_mode;
                continue;
            }
            names.push_back(name);
        }
        return names;
    }
    ino_t inode() const {
        struct stat st {};
        EXPECT_EQ(::lstat(path_.c_str(), &st), 0);
        return st.st_ino;
    }

    fs::path dir_;
    fs::path path_;
    SimKernel k() const { return SimKernel(path_); }
};

// ---------------------------------------------------------------------------------------------
// Profiles

TEST(Profiles, TheNamedMachinesExist) {
    std::set<std::string_view> names;
    for (const auto& p : sim::all_profiles()) names.insert(p.name);
    EXPECT_EQ(names, (std::set<std::string_view>{"m2-8", "m4-16", "m3pro-18", "m4-24", "m4-32",
                                                 "m3max-36", "m5pro-48", "m1max-64", "m2max-96",
                                                 "m4max-128", "m2ultra-192", "m3ultra-256",
                                                 "m3ultra-512", "ventura-64"}));
    EXPECT_EQ(sim::find_profile("m9-1"), nullptr);
    EXPECT_EQ(sim::find_profile("M4-16"), nullptr);  // names are exact
}

TEST(Profiles, DefaultIsM2Ultra192) {
    EXPECT_EQ(sim::default_profile().name, "m2ultra-192");
    EXPECT_EQ(&sim::default_profile(), sim::find_profile(sim::kDefaultProfileName));
}

// Apple's "16 GB" is 16 GiB of bytes: the number in each name is the RAM in GiB.
TEST(Profiles, MemsizeIsTheGiBInTheName) {
    for (const auto& p : sim::all_profiles()) {
        const auto gib = std::stoull(std::string(p.name.substr(p.name.find('-') + 1)));
        EXPECT_EQ(p.memsize, Bytes(*wiredcap::units::GiB::from_count(gib))) << p.name;
    }
}

// Every Apple Silicon memory size sold has a profile, and each default cap says
// whether it was measured (with its source) or is an estimate.
TEST(Profiles, EveryMemorySizeSoldHasOneAndItsCapSaysWhereItComesFrom) {
    std::set<std::uint64_t> sizes;
    for (const auto& p : sim::all_profiles()) {
        if (p.has_wired_limit_mb) sizes.insert(p.memsize.count() >> 30);
        const auto basis = p.default_cap_basis;
        EXPECT_TRUE(basis.starts_with("measured: ") || basis.starts_with("estimate: ")) << p.name;
    }
    EXPECT_EQ(sizes,
              (std::set<std::uint64_t>{8, 16, 18, 24, 32, 36, 48, 64, 96, 128, 192, 256, 512}));
}

// About 2/3 up to 36 GiB, about 75-78% at 48-96 GiB, about 80-84% from 128 GiB.
TEST(Profiles, DefaultCapFollowsTheReportedBands) {
    for (const auto& p : sim::all_profiles()) {
        if (!p.has_wired_limit_mb) continue;
        const auto share = permille(p.default_cap, p.memsize);
        const auto gib = p.memsize.count() >> 30;
        if (gib <= 36) {
            EXPECT_GE(share, 660U) << p.name;
            EXPECT_LE(share, 670U) << p.name;
        } else if (gib <= 96) {
            EXPECT_GE(share, 750U) << p.name;
            EXPECT_LE(share, 780U) << p.name;
        } else {
            EXPECT_GE(share, 800U) << p.name;
            EXPECT_LE(share, 840U) << p.name;
        }
    }
}

TEST(Profiles, DefaultCapIsNotAFixedFraction) {
    std::set<std::uint64_t> shares;
    for (const auto& p : sim::all_profiles())
        if (p.has_wired_limit_mb) shares.insert(permille(p.default_cap, p.memsize));
    EXPECT_GE(shares.size(), 3U);
}

TEST(Profiles, OnlyVenturaLacksTheKnobAndHasTheBytesKey) {
    for (const auto& p : sim::all_profiles()) {
        const bool ventura = p.name == "ventura-64";
        EXPECT_EQ(p.has_wired_limit_mb, !ventura) << p.name;
        EXPECT_EQ(p.related.debug_wired_limit_bytes.has_value(), ventura) << p.name;
        EXPECT_EQ(p.related.wired_lwm_mb.has_value(), !ventura) << p.name;
    }
}

TEST_F(SimTest, EveryProfileLoadsWithSaneNumbers) {
    for (const auto& p : sim::all_profiles()) {
        init(p.name);
        auto kernel = k();
        auto memsize = kernel.read_memsize();
        ASSERT_TRUE(succeeded(memsize)) << p.name;
        EXPECT_EQ(*memsize, p.memsize) << p.name;
        EXPECT_LT(p.default_cap.bytes(), p.memsize.count()) << p.name;
        auto metal = kernel.simulated_metal_working_set();
        ASSERT_TRUE(succeeded(metal)) << p.name;
        EXPECT_EQ(*metal, p.default_cap) << p.name;
        auto boot_id = kernel.read_boot_id();
        ASSERT_TRUE(succeeded(boot_id)) << p.name;
        EXPECT_TRUE(looks_like_boot_id(*boot_id)) << *boot_id;
        const auto knob = kernel.read_wired_limit();
        if (p.has_wired_limit_mb) {
            ASSERT_TRUE(succeeded(knob)) << p.name;
            EXPECT_EQ(*knob, 0_MiB) << p.name;
        } else {
            EXPECT_TRUE(fails_with(knob, Kind::key_missing)) << p.name;
        }
        EXPECT_EQ(state().profile, p.name);
    }
}

// ---------------------------------------------------------------------------------------------
// A fresh machine

TEST_F(SimTest, MissingFileIsAFreshDefaultMachineWithKnobZero) {
    ASSERT_FALSE(fs::exists(path_));
    auto kernel = k();
    auto knob = kernel.read_wired_limit();
    ASSERT_TRUE(succeeded(knob));
    EXPECT_EQ(*knob, 0_MiB);
    EXPECT_TRUE(fs::is_regular_file(path_));
    const auto s = state();
    EXPECT_EQ(s.profile, "m2ultra-192");
    EXPECT_EQ(s.memsize, Bytes(192_GiB));
    EXPECT_EQ(s.boot_count, 1U);
    EXPECT_EQ(s.writes, 0U);
    EXPECT_TRUE(s.history.empty());
    EXPECT_FALSE(s.hung || s.fault_write_refused || s.fault_key_missing);
    EXPECT_EQ(s.fault_readback_offset_mib, 0);
    EXPECT_EQ(s.hang_above, 0_MiB);
    EXPECT_EQ(s.fault_stall_write_ms, 0U);
    EXPECT_EQ(s.fault_stall_after_write_ms, 0U);
    EXPECT_EQ(s.value_width, 4U);
    EXPECT_EQ(*kernel.simulated_metal_working_set(), sim::default_profile().default_cap);
}

TEST_F(SimTest, BootIdIsStableWithinABootAndDiffersBetweenMachines) {
    auto kernel = k();
    const auto first = kernel.read_boot_id();
    ASSERT_TRUE(succeeded(first));
    EXPECT_TRUE(looks_like_boot_id(*first)) << *first;
    EXPECT_EQ(*kernel.read_boot_id(), *first);
    EXPECT_EQ(*SimKernel(path_).read_boot_id(), *first);

    SimKernel other(dir_ / "other");
    EXPECT_NE(*other.read_boot_id(), *first);
}

TEST_F(SimTest, ConcurrentFirstReadersAgreeOnOneMachine) {
    constexpr int kThreads = 8;
    std::vector<std::string> ids(kThreads);
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t)
        threads.emplace_back([&, t] {
            auto id = SimKernel(path_).read_boot_id();
            ids[static_cast<std::size_t>(t)] = id ? *id : "error: " + id.error().message;
        });
    for (auto& t : threads) t.join();
    for (const auto& id : ids) EXPECT_EQ(id, ids[0]);
    EXPECT_TRUE(looks_like_boot_id(ids[0])) << ids[0];
    EXPECT_EQ(dir_entries(), std::vector<std::string>{"state"});
}

TEST_F(SimTest, BackendNameIsSimulated) { EXPECT_EQ(k().backend_name(), "simulated"); }

// ---------------------------------------------------------------------------------------------
// Writing and reading the knob

TEST_F(SimTest, WriteThenReadBack) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(232_GiB)));
    auto knob = kernel.read_wired_limit();
    ASSERT_TRUE(succeeded(knob));
    EXPECT_EQ(*knob, 237568_MiB);
    EXPECT_EQ(state().writes, 1U);
}

TEST_F(SimTest, ZeroMeansTheDefaultCapForMetal) {
    init("m3ultra-512");
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(500_GiB)));
    EXPECT_EQ(*kernel.simulated_metal_working_set(), 512000_MiB);
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(0_MiB)));
    EXPECT_EQ(*kernel.read_wired_limit(), 0_MiB);
    EXPECT_EQ(*kernel.simulated_metal_working_set(), sim::find_profile("m3ultra-512")->default_cap);
}

TEST_F(SimTest, MetalFollowsTheKnobBelowTheDefaultToo) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(8_GiB)));
    EXPECT_EQ(*kernel.simulated_metal_working_set(), 8192_MiB);
}

// Memory wired now: RAM/32 on a fresh machine, set by `wired` (stranded memory), back
// to RAM/32 at a boot; never more than the memory; unreadable while hung.
TEST_F(SimTest, WiredNowIsAReadingThatABootResets) {
    auto kernel = k();
    const auto mem = *kernel.read_memsize();
    EXPECT_EQ(*kernel.read_wired_now(), *wiredcap::units::Bytes::from_count(mem.count() / 32));
    ASSERT_TRUE(succeeded(SimKernel::set_wired(path_, wiredcap::units::Bytes(40_GiB))));
    EXPECT_EQ(*kernel.read_wired_now(), wiredcap::units::Bytes(40_GiB));
    EXPECT_FALSE(succeeded(
        SimKernel::set_wired(path_, *wiredcap::units::Bytes::from_count(mem.count() + 1))));
    EXPECT_EQ(*kernel.read_wired_now(), wiredcap::units::Bytes(40_GiB));
    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    EXPECT_EQ(*kernel.read_wired_now(), *wiredcap::units::Bytes::from_count(mem.count() / 32));
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 100_GiB)));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(120_GiB)));
    EXPECT_EQ(kernel.read_wired_now().error().kind, KernelError::Kind::machine_hung);
}

// ---------------------------------------------------------------------------------------------
// Reboot

TEST_F(SimTest, RebootChangesBootIdResetsKnobAndKeepsFaults) {
    auto kernel = k();
    const auto before = *kernel.read_boot_id();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(150_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_readback_offset(path_, 1)));
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 170_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, 7)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_after_write(path_, 9)));

    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));

    const auto after = kernel.read_boot_id();
    ASSERT_TRUE(succeeded(after));
    EXPECT_NE(*after, before);
    EXPECT_TRUE(looks_like_boot_id(*after));
    const auto s = state();
    EXPECT_EQ(s.knob, 0_MiB);
    EXPECT_EQ(s.boot_count, 2U);
    EXPECT_EQ(s.fault_readback_offset_mib, 1);
    EXPECT_EQ(s.hang_above, 170_GiB);
    EXPECT_EQ(s.fault_stall_write_ms, 7U);
    EXPECT_EQ(s.fault_stall_after_write_ms, 9U);
    EXPECT_EQ(s.history, std::vector<MiB>{150_GiB});  // what was written stays on record
    EXPECT_EQ(*kernel.simulated_metal_working_set(), s.default_cap);
}

// ---------------------------------------------------------------------------------------------
// Uptime: real time since the simulated boot plus what advance_uptime added

using std::chrono::seconds;

// Seconds of real time a test may take between two readings; generous, for a loaded machine.
constexpr seconds kSlack{60};

TEST(Uptime, IsTimeSinceBootPlusWhatWasAdvanced) {
    sim::SimState s;
    s.boot_time = 1'000;
    auto up = sim::uptime_at(s, 1'612);
    ASSERT_TRUE(succeeded(up));
    EXPECT_EQ(*up, seconds{612});
    s.uptime_advanced_s = 3'600;
    EXPECT_EQ(*sim::uptime_at(s, 1'612), seconds{4'212});
    EXPECT_EQ(*sim::uptime_at(s, 1'000), seconds{3'600});
}

// The host clock set back before the boot: no time has passed, the uptime is not negative.
TEST(Uptime, ABootTimeInTheFutureCountsAsNoTimePassed) {
    sim::SimState s;
    s.boot_time = 2'000;
    s.uptime_advanced_s = 5;
    EXPECT_EQ(*sim::uptime_at(s, 1'000), seconds{5});
    s.boot_time = std::numeric_limits<std::int64_t>::max();
    EXPECT_EQ(*sim::uptime_at(s, std::numeric_limits<std::int64_t>::min()), seconds{5});
}

TEST(Uptime, TooLargeForSecondsIsAnErrorNotAWrappedNumber) {
    constexpr auto kMin = std::numeric_limits<std::int64_t>::min();
    constexpr auto kMax = std::numeric_limits<std::int64_t>::max();
    sim::SimState s;
    s.boot_time = kMin;
    EXPECT_EQ(*sim::uptime_at(s, -1), seconds{kMax});  // the largest difference that fits
    EXPECT_FALSE(sim::uptime_at(s, 0));                // one more does not
    EXPECT_FALSE(sim::uptime_at(s, kMax));             // 2^64 - 1 seconds
    s.uptime_advanced_s = 1;
    const auto sum = sim::uptime_at(s, -1);
    ASSERT_FALSE(sum);
    EXPECT_NE(sum.error().message.find("does not fit in 64-bit seconds"), std::string::npos)
        << sum.error().message;
    s.boot_time = 0;
    s.uptime_advanced_s = static_cast<std::uint64_t>(kMax);
    EXPECT_EQ(*sim::uptime_at(s, 0), seconds{kMax});
    EXPECT_FALSE(sim::uptime_at(s, 1));
    s.uptime_advanced_s = std::numeric_limits<std::uint64_t>::max();
    EXPECT_FALSE(sim::uptime_at(s, 0));
}

TEST_F(SimTest, AFreshMachineBootedNowWithNothingAdvanced) {
    const auto before = sim::unix_now();
    init("m4-16");
    const auto after = sim::unix_now();
    const auto s = state();
    EXPECT_GE(s.boot_time, before);
    EXPECT_LE(s.boot_time, after);
    EXPECT_EQ(s.uptime_advanced_s, 0U);
    const auto up = k().read_uptime();
    ASSERT_TRUE(succeeded(up));
    EXPECT_GE(*up, seconds{0});
    EXPECT_LT(*up, kSlack);
}

TEST_F(SimTest, UptimeGrowsByWhatIsAdvanced) {
    auto kernel = k();
    const auto before = kernel.read_uptime();
    ASSERT_TRUE(succeeded(before));
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{3'600})));
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{600})));
    const auto after = kernel.read_uptime();
    ASSERT_TRUE(succeeded(after));
    EXPECT_GE(*after - *before, seconds{4'200});
    EXPECT_LT(*after - *before, seconds{4'200} + kSlack);
    EXPECT_EQ(state().uptime_advanced_s, 4'200U);
    EXPECT_EQ(state().boot_count, 1U);  // time passing is not a reboot
}

TEST_F(SimTest, AdvanceRefusesNegativeAndOverflowAndChangesNothing) {
    init("m4-16");
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{0})));  // nothing passes: fine
    const auto untouched = file_text();
    const auto back = SimKernel::advance_uptime(path_, seconds{-1});
    ASSERT_FALSE(back);
    EXPECT_NE(back.error().message.find("cannot go back"), std::string::npos)
        << back.error().message;
    EXPECT_EQ(file_text(), untouched);

    auto s = state();
    s.uptime_advanced_s = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - 10;
    ASSERT_TRUE(succeeded(sim::replace_state(path_, s)));
    const auto full = file_text();
    const auto over =
        SimKernel::advance_uptime(path_, seconds{std::numeric_limits<std::int64_t>::max()});
    ASSERT_FALSE(over);
    EXPECT_NE(over.error().message.find("overflow"), std::string::npos) << over.error().message;
    EXPECT_FALSE(
        SimKernel::advance_uptime(path_, seconds{3'600}));  // the sum fits, the uptime would not
    EXPECT_EQ(file_text(), full);
}

TEST_F(SimTest, RebootStartsTheUptimeAgain) {
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{86'400})));
    auto s = state();
    s.boot_time -= 7'200;  // booted two hours ago
    ASSERT_TRUE(succeeded(sim::replace_state(path_, s)));
    auto kernel = k();
    const auto long_up = kernel.read_uptime();
    ASSERT_TRUE(succeeded(long_up));
    ASSERT_GE(*long_up, seconds{86'400 + 7'200});

    const auto before = sim::unix_now();
    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    const auto up = kernel.read_uptime();
    ASSERT_TRUE(succeeded(up));
    EXPECT_LT(*up, kSlack);
    EXPECT_EQ(state().uptime_advanced_s, 0U);
    EXPECT_GE(state().boot_time, before);
    EXPECT_EQ(state().boot_count, 2U);
}

// A pinned clock lets no real time pass: the uptime is exactly what was advanced, on any host
// time, so two runs of a test compare equal; unpinning lets the host's time count again.
TEST(Uptime, APinnedClockCountsOnlyWhatWasAdvanced) {
    sim::SimState s;
    s.boot_time = 1'000;
    s.clock_pinned = true;
    EXPECT_EQ(*sim::uptime_at(s, 1'612), seconds{0});
    s.uptime_advanced_s = 660;
    EXPECT_EQ(*sim::uptime_at(s, 999'999), seconds{660});
    s.clock_pinned = false;
    EXPECT_EQ(*sim::uptime_at(s, 1'612), seconds{1'272});
}

TEST_F(SimTest, PinningTheClockIsKeptInTheStateAndSurvivesAReboot) {
    init("m4-16");
    EXPECT_FALSE(state().clock_pinned);  // a new machine follows the host's clock
    ASSERT_TRUE(succeeded(SimKernel::set_clock_pinned(path_, true)));
    EXPECT_NE(file_text().find("\nclock_pinned=1\n"), std::string::npos) << file_text();
    auto s = state();
    s.boot_time -= 7'200;  // booted two hours ago by the host's clock: none of it counts
    ASSERT_TRUE(succeeded(sim::replace_state(path_, s)));
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{600})));
    auto kernel = k();
    EXPECT_EQ(*kernel.read_uptime(), seconds{600});
    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    EXPECT_TRUE(state().clock_pinned);
    EXPECT_EQ(*kernel.read_uptime(), seconds{0});
    ASSERT_TRUE(succeeded(SimKernel::set_clock_pinned(path_, false)));
    EXPECT_FALSE(state().clock_pinned);
}

// A hung machine answers nothing, its uptime included; time still passes for the simulator.
TEST_F(SimTest, AHungMachineHasNoUptimeUntilReboot) {
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 100_GiB)));
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(101_GiB)));
    const auto hung = kernel.read_uptime();
    ASSERT_TRUE(fails_with(hung, Kind::machine_hung));
    EXPECT_NE(hung.error().message.find("hung"), std::string::npos) << hung.error().message;
    ASSERT_TRUE(succeeded(SimKernel::advance_uptime(path_, seconds{600})));
    EXPECT_TRUE(fails_with(kernel.read_uptime(), Kind::machine_hung));
    EXPECT_TRUE(state().hung);

    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    const auto up = kernel.read_uptime();
    ASSERT_TRUE(succeeded(up));
    EXPECT_LT(*up, kSlack);
}

// A state file written before the uptime keys existed is refused by name, with the way out.
TEST_F(SimTest, AStateFileWithoutTheUptimeKeysIsRefusedByName) {
    init("m4-16");
    const auto text = file_text();
    const auto without = [&](std::string_view key) {
        const auto at = text.find("\n" + std::string(key) + "=") + 1;
        return text.substr(0, at) + text.substr(text.find('\n', at) + 1);
    };
    for (const std::string_view key : {"boot_time", "uptime_advanced_s"}) {
        write_file(without(key));
        const auto up = k().read_uptime();
        ASSERT_TRUE(fails_with(up, Kind::read_failed)) << key;
        EXPECT_NE(up.error().message.find("missing key '" + std::string(key) + "'"),
                  std::string::npos)
            << up.error().message;
        EXPECT_NE(up.error().message.find("wiredcap-sim --state " + path_.string() + " init"),
                  std::string::npos)
            << up.error().message;
        EXPECT_FALSE(SimKernel::advance_uptime(path_, seconds{1}));
    }
}

// ---------------------------------------------------------------------------------------------
// Hangs

TEST_F(SimTest, AWriteAboveTheHangPointIsAcceptedThenTheMachineIsHungUntilReboot) {
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 180_GiB)));
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(180_GiB)));  // at the point: fine
    ASSERT_TRUE(succeeded(kernel.read_wired_limit()));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(181_GiB)));  // accepted ...

    EXPECT_TRUE(fails_with(kernel.read_wired_limit(), Kind::machine_hung));  // ... then hung
    EXPECT_TRUE(fails_with(kernel.write_wired_limit(0_MiB), Kind::machine_hung));
    EXPECT_TRUE(fails_with(kernel.read_memsize(), Kind::machine_hung));
    EXPECT_TRUE(fails_with(kernel.read_boot_id(), Kind::machine_hung));
    EXPECT_TRUE(fails_with(kernel.read_uptime(), Kind::machine_hung));
    EXPECT_TRUE(fails_with(kernel.simulated_metal_working_set(), Kind::machine_hung));
    EXPECT_TRUE(kernel.read_related().empty());
    EXPECT_EQ(state().history,
              (std::vector<MiB>{180_GiB, 181_GiB}));  // the write while hung did nothing

    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    auto knob = kernel.read_wired_limit();
    ASSERT_TRUE(succeeded(knob));
    EXPECT_EQ(*knob, 0_MiB);
    EXPECT_EQ(state().hang_above, 180_GiB);  // the machine is the same machine
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(181_GiB)));
    EXPECT_TRUE(fails_with(kernel.read_wired_limit(), Kind::machine_hung));
}

TEST_F(SimTest, WithoutAHangPointNothingHangs) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(192_GiB)));
    ASSERT_TRUE(succeeded(kernel.read_wired_limit()));
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 100_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_hang_above(path_, 0_MiB)));  // off again
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(190_GiB)));
    EXPECT_TRUE(succeeded(kernel.read_wired_limit()));
}

// ---------------------------------------------------------------------------------------------
// Faults

TEST_F(SimTest, WriteRefusedFaultChangesNothing) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(100_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, true)));
    const auto ino = inode();
    EXPECT_TRUE(fails_with(kernel.write_wired_limit(120_GiB), Kind::write_refused));
    EXPECT_EQ(*kernel.read_wired_limit(), 100_GiB);
    EXPECT_EQ(state().writes, 1U);
    EXPECT_EQ(inode(), ino);  // a refused write does not even rewrite the file

    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, false)));
    EXPECT_TRUE(succeeded(kernel.write_wired_limit(120_GiB)));
    EXPECT_EQ(*kernel.read_wired_limit(), 120_GiB);
}

TEST_F(SimTest, ReadBackDiffersByTheOffsetButMetalFollowsTheKnob) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(100_MiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_readback_offset(path_, 7)));
    EXPECT_EQ(*kernel.read_wired_limit(), 107_MiB);
    EXPECT_EQ(*kernel.simulated_metal_working_set(), 100_MiB);

    ASSERT_TRUE(succeeded(SimKernel::set_fault_readback_offset(path_, -1)));
    EXPECT_EQ(*kernel.read_wired_limit(), 99_MiB);
    ASSERT_TRUE(succeeded(SimKernel::set_fault_readback_offset(path_, -1000)));
    EXPECT_EQ(*kernel.read_wired_limit(), 0_MiB);  // never below 0
    ASSERT_TRUE(succeeded(
        SimKernel::set_fault_readback_offset(path_, std::numeric_limits<std::int64_t>::min())));
    EXPECT_EQ(*kernel.read_wired_limit(), 0_MiB);
    ASSERT_TRUE(succeeded(
        SimKernel::set_fault_readback_offset(path_, std::numeric_limits<std::int64_t>::max())));
    EXPECT_EQ(*kernel.read_wired_limit(), mib(kU32Max));  // no more than a 4-byte integer holds

    ASSERT_TRUE(succeeded(SimKernel::set_fault_readback_offset(path_, 0)));
    EXPECT_EQ(*kernel.read_wired_limit(), 100_MiB);
}

TEST_F(SimTest, KeyMissingFault) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(100_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_key_missing(path_, true)));
    EXPECT_TRUE(fails_with(kernel.read_wired_limit(), Kind::key_missing));
    EXPECT_TRUE(fails_with(kernel.write_wired_limit(0_MiB), Kind::key_missing));
    EXPECT_TRUE(succeeded(kernel.read_memsize()));  // only the one key is gone
    EXPECT_EQ(state().knob, 100_GiB);

    ASSERT_TRUE(succeeded(SimKernel::set_fault_key_missing(path_, false)));
    EXPECT_EQ(*kernel.read_wired_limit(), 100_GiB);
}

// Stall faults: a write that is slow on purpose, so a test can kill the writer at an exact
// point. Only lower bounds on time are asserted, and the upper ones are far off, so a slow
// machine cannot make these fail.

using Clock = std::chrono::steady_clock;

std::uint64_t ms_since(Clock::time_point t) {
    return static_cast<std::uint64_t>(
        std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count());
}

TEST_F(SimTest, StallWriteSleepsBeforeTheKnobChanges) {
    constexpr std::uint64_t kStall = 300;
    ASSERT_TRUE(succeeded(k().write_wired_limit(64_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, kStall)));
    const auto start = Clock::now();
    std::atomic<bool> returned{false};
    std::thread writer([&] {
        EXPECT_TRUE(succeeded(k().write_wired_limit(80_GiB)));
        returned = true;
    });
    // Until the knob changes, the file says 64 GiB; it cannot change before the stall is over,
    // and the state file stays readable and writable (not locked) meanwhile.
    std::uint64_t changed_after = 0;
    for (;;) {  // no ASSERT while the writer runs: a joinable thread must not be abandoned
        const auto s = sim::load_state(path_);
        EXPECT_TRUE(succeeded(s));
        if (!s) break;
        if (s->knob != 64_GiB) {
            changed_after = ms_since(start);
            EXPECT_EQ(s->knob, 80_GiB);
            break;
        }
        EXPECT_EQ(s->writes, 1U);
        std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    writer.join();
    EXPECT_TRUE(returned);
    EXPECT_GE(changed_after, kStall);
    EXPECT_EQ(state().history, (std::vector<MiB>{64_GiB, 80_GiB}));
}

TEST_F(SimTest, StallWriteDoesNotHoldTheStateLock) {
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, 60'000)));
    const pid_t pid = ::fork();
    ASSERT_NE(pid, -1);
    if (pid == 0) {
        (void)SimKernel(path_).write_wired_limit(80_GiB);
        ::_exit(0);
    }
    // The child is stalled (or about to be): a locked update still goes through at once, and
    // the knob has not moved.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const auto start = Clock::now();
    EXPECT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, false)));
    EXPECT_LT(ms_since(start), 30'000U);
    EXPECT_EQ(state().knob, 0_MiB);
    ::kill(pid, SIGKILL);  // the crash the fault exists for: killed before the knob changed
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(state().knob, 0_MiB);
    EXPECT_EQ(state().writes, 0U);
    EXPECT_EQ(dir_entries(), std::vector<std::string>{"state"});
}

TEST_F(SimTest, StallWriteAppliesToARefusedWriteToo) {
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, 200)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, true)));
    const auto start = Clock::now();
    EXPECT_TRUE(fails_with(k().write_wired_limit(80_GiB), Kind::write_refused));
    EXPECT_GE(ms_since(start), 200U);
    EXPECT_EQ(state().writes, 0U);
}

TEST_F(SimTest, StallAfterWriteSleepsOnceTheKnobHasChanged) {
    constexpr std::uint64_t kStall = 1000;
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_after_write(path_, kStall)));
    const auto start = Clock::now();
    std::atomic<bool> returned{false};
    std::thread writer([&] {
        EXPECT_TRUE(succeeded(k().write_wired_limit(80_GiB)));
        returned = true;
    });
    bool seen_before_return = false;
    for (;;) {
        const auto s = sim::load_state(path_);
        EXPECT_TRUE(succeeded(s));
        if (!s) break;
        if (s->knob == 80_GiB) {
            seen_before_return = !returned;  // the writer is still asleep: it has not heard back
            break;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
    writer.join();
    EXPECT_TRUE(seen_before_return);
    EXPECT_GE(ms_since(start), kStall);
    EXPECT_EQ(state().writes, 1U);
}

TEST_F(SimTest, StallAfterWriteFollowsOnlyAnAcceptedWrite) {
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_after_write(path_, sim::kMaxStallMs)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, true)));
    const auto start = Clock::now();
    EXPECT_TRUE(fails_with(k().write_wired_limit(80_GiB), Kind::write_refused));
    EXPECT_LT(ms_since(start), 60'000U);  // not ten minutes
}

TEST_F(SimTest, StallsAreBoundedAndCanBeTurnedOff) {
    EXPECT_FALSE(SimKernel::set_fault_stall_write(path_, sim::kMaxStallMs + 1));
    EXPECT_FALSE(SimKernel::set_fault_stall_after_write(path_, sim::kMaxStallMs + 1));
    EXPECT_EQ(state().fault_stall_write_ms, 0U);
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, sim::kMaxStallMs)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_after_write(path_, 5)));
    EXPECT_NE(file_text().find("\nfault_stall_write_ms=600000\nfault_stall_after_write_ms=5\n"),
              std::string::npos)
        << file_text();
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_write(path_, 0)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_stall_after_write(path_, 0)));
    EXPECT_EQ(state().fault_stall_write_ms, 0U);
    EXPECT_EQ(state().fault_stall_after_write_ms, 0U);
    const auto start = Clock::now();
    ASSERT_TRUE(succeeded(k().write_wired_limit(80_GiB)));
    EXPECT_LT(ms_since(start), 60'000U);
}

TEST_F(SimTest, VenturaHasNoKnobOnlyTheReadOnlyBytesKey) {
    init("ventura-64");
    auto kernel = k();
    EXPECT_TRUE(fails_with(kernel.read_wired_limit(), Kind::key_missing));
    EXPECT_TRUE(fails_with(kernel.write_wired_limit(40_GiB), Kind::key_missing));
    EXPECT_EQ(state().writes, 0U);
    EXPECT_EQ(*kernel.read_memsize(), Bytes(64_GiB));
    EXPECT_EQ(*kernel.simulated_metal_working_set(), 48_GiB);

    std::map<std::string, std::optional<std::string>> related;
    for (const auto& r : kernel.read_related()) related[r.name] = r.value;
    EXPECT_EQ(related.at("debug.iogpu.wired_limit"), std::optional<std::string>("0"));
    EXPECT_EQ(related.at("iogpu.wired_lwm_mb"), std::nullopt);
    EXPECT_EQ(related.at("iogpu.dynamic_lwm"), std::nullopt);
    EXPECT_EQ(related.at("iogpu.disable_wired_collector"), std::nullopt);
}

TEST_F(SimTest, RelatedKeysOnRecentMacOS) {
    init("m4-16");
    const auto related = k().read_related();
    ASSERT_EQ(related.size(), 4U);
    EXPECT_EQ(related[0].name, "iogpu.wired_lwm_mb");
    EXPECT_EQ(related[0].value, std::optional<std::string>("0"));
    EXPECT_EQ(related[1].name, "iogpu.dynamic_lwm");
    EXPECT_EQ(related[1].value, std::optional<std::string>("1"));
    EXPECT_EQ(related[2].name, "iogpu.disable_wired_collector");
    EXPECT_EQ(related[2].value, std::optional<std::string>("0"));
    EXPECT_EQ(related[3].name, "debug.iogpu.wired_limit");
    EXPECT_EQ(related[3].value, std::nullopt);
}

// ---------------------------------------------------------------------------------------------
// The kernel's integer width

TEST_F(SimTest, Width4HoldsUpToUint32MaxMiBAndNotOneMore) {
    ASSERT_EQ(state().value_width, 4U);
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(mib(kU32Max))));
    EXPECT_EQ(*kernel.read_wired_limit(), mib(kU32Max));
    const auto refused = kernel.write_wired_limit(mib(kU32Max + 1));
    EXPECT_TRUE(fails_with(refused, Kind::write_refused));
    EXPECT_NE(refused.error().message.find("Invalid argument"), std::string::npos)
        << refused.error().message;
    EXPECT_EQ(*kernel.read_wired_limit(), mib(kU32Max));  // unchanged, not truncated
    EXPECT_EQ(state().history, std::vector<MiB>{mib(kU32Max)});
}

TEST_F(SimTest, Width8HoldsMoreAndTheWidthCannotShrinkUnderIt) {
    ASSERT_TRUE(succeeded(SimKernel::set_value_width(path_, 8)));
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(mib(kU32Max + 1))));
    EXPECT_EQ(*kernel.read_wired_limit(), mib(kU32Max + 1));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(MiB::max())));
    EXPECT_EQ(*kernel.read_wired_limit(), MiB::max());

    EXPECT_FALSE(SimKernel::set_value_width(path_, 4));  // the knob would not fit
    EXPECT_EQ(state().value_width, 8U);
    ASSERT_TRUE(succeeded(SimKernel::reboot(path_)));
    EXPECT_TRUE(succeeded(SimKernel::set_value_width(path_, 4)));
    EXPECT_FALSE(SimKernel::set_value_width(path_, 2));
    EXPECT_FALSE(SimKernel::set_value_width(path_, 16));
}

// ---------------------------------------------------------------------------------------------
// History

TEST_F(SimTest, HistoryRecordsExactlyTheAcceptedWritesInOrder) {
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(160_GiB)));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(168_GiB)));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, true)));
    ASSERT_FALSE(kernel.write_wired_limit(176_GiB));
    ASSERT_TRUE(succeeded(SimKernel::set_fault_write_refused(path_, false)));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(0_MiB)));
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(168_GiB)));  // a repeat is still a write
    const auto s = state();
    EXPECT_EQ(s.history, (std::vector<MiB>{160_GiB, 168_GiB, 0_MiB, 168_GiB}));
    EXPECT_EQ(s.writes, 4U);
    EXPECT_NE(file_text().find("\nhistory=163840,172032,0,172032\n"), std::string::npos)
        << file_text();
}

TEST_F(SimTest, HistoryKeepsTheLast256) {
    auto kernel = k();
    for (std::uint64_t i = 1; i <= 300; ++i)
        ASSERT_TRUE(succeeded(kernel.write_wired_limit(mib(i))));
    const auto s = state();
    EXPECT_EQ(s.writes, 300U);
    ASSERT_EQ(s.history.size(), sim::kHistoryCap);
    EXPECT_EQ(s.history.front(), mib(300 - sim::kHistoryCap + 1));
    EXPECT_EQ(s.history.back(), 300_MiB);
}

// ---------------------------------------------------------------------------------------------
// Strict parsing

class ParseTest : public testing::Test {
protected:
    void SetUp() override {
        auto fresh = sim::fresh_state(sim::default_profile());
        ASSERT_TRUE(succeeded(fresh));
        good_ = sim::serialize_state(*fresh);
    }
    // The good text with the line "key=..." replaced by `line`.
    std::string with_line(std::string_view key, const std::string& line) const {
        const auto at =
            ("\n" + good_).find("\n" + std::string(key) + "=");  // the line's start in good_
        const auto end = good_.find('\n', at);
        return good_.substr(0, at) + line + good_.substr(end);
    }
    // The parse error for `text`, or "" when it parsed.
    static std::string error_of(std::string_view text) {
        auto s = sim::parse_state(text);
        return s ? "" : s.error().message;
    }
    std::string good_;
};

#define EXPECT_ERROR_HAS(TEXT, PART)                                                        \
    do {                                                                                    \
        const auto message_ = error_of(TEXT);                                               \
        EXPECT_NE(message_.find(PART), std::string::npos) << "error: '" << message_ << "'"; \
    } while (0)

TEST_F(ParseTest, SerializeThenParseGivesTheSameState) {
    auto s = sim::fresh_state(*sim::find_profile("ventura-64"));
    ASSERT_TRUE(succeeded(s));
    auto state = *s;
    state.knob = 5_MiB;
    state.fault_readback_offset_mib = -12;
    state.fault_stall_write_ms = 250;
    state.fault_stall_after_write_ms = sim::kMaxStallMs;
    state.history = {1_MiB, 0_MiB, 5_MiB};
    state.writes = 3;
    state.boot_time = -5;  // a host clock before 1970 is odd, not damage
    state.uptime_advanced_s = 86400;
    auto parsed = sim::parse_state(sim::serialize_state(state));
    ASSERT_TRUE(succeeded(parsed));
    EXPECT_EQ(*parsed, state);
}

TEST_F(ParseTest, CommentsAndBlankLinesAreAllowed) {
    EXPECT_EQ(error_of("# a comment\n\n" + good_ + "# trailing\n"), "");
}

TEST_F(ParseTest, UnknownKeyNamesTheLine) {
    EXPECT_ERROR_HAS(good_ + "colour=blue\n", "line 27: unknown key 'colour'");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib =5"), "unknown key 'knob_mib '");
    EXPECT_ERROR_HAS(with_line("knob_mib", "just words"), "line 5: expected key=value");
}

TEST_F(ParseTest, DuplicateKeyNamesBothLines) {
    EXPECT_ERROR_HAS(good_ + "knob_mib=0\n", "line 27: duplicate key 'knob_mib' (first on line 5)");
}

TEST_F(ParseTest, MissingKeyIsAnError) {
    EXPECT_ERROR_HAS(with_line("boot_count", "# gone"), "missing key 'boot_count'");
}

TEST_F(ParseTest, BadNumbersNameTheLine) {
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=12x"),
                     "line 5: knob_mib: '12x' is not a whole number");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=-1"), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=+1"), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=012"), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib="), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=0x10"), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib= 1"), "line 5: knob_mib:");
    EXPECT_ERROR_HAS(with_line("writes", "writes=18446744073709551616"), "line 22: writes:");
    // A count of MiB whose bytes do not fit in 64 bits is not a size.
    EXPECT_ERROR_HAS(with_line("default_cap_mib", "default_cap_mib=17592186044416"), "too large");
    EXPECT_ERROR_HAS(with_line("hung", "hung=2"), "line 12: hung: '2' is not 0 or 1");
    EXPECT_ERROR_HAS(with_line("value_width", "value_width=2"), "line 6: value_width:");
    EXPECT_ERROR_HAS(with_line("wired_lwm_mb", "wired_lwm_mb=none"),
                     "neither a whole number nor 'absent'");
    EXPECT_ERROR_HAS(with_line("history", "history=1,,2"), "line 23: history: entry 2:");
    EXPECT_ERROR_HAS(with_line("history", "history=1,2,"), "ends with a comma");
    EXPECT_ERROR_HAS(with_line("profile", "profile=m9-1"), "unknown profile 'm9-1'");
    EXPECT_ERROR_HAS(with_line("boot_id", "boot_id=not-a-uuid"), "is not a boot id");
    EXPECT_ERROR_HAS(with_line("boot_id", "boot_id=8d1a9f0c-1111-4222-8333-444455556666"),
                     "is not a boot id");
}

TEST_F(ParseTest, SignedOffsetCoversInt64Exactly) {
    EXPECT_EQ(error_of(with_line("fault_readback_offset_mib",
                                 "fault_readback_offset_mib=-9223372036854775808")),
              "");
    EXPECT_EQ(error_of(with_line("fault_readback_offset_mib",
                                 "fault_readback_offset_mib=9223372036854775807")),
              "");
    EXPECT_ERROR_HAS(
        with_line("fault_readback_offset_mib", "fault_readback_offset_mib=-9223372036854775809"),
        "not a signed whole number");
    EXPECT_ERROR_HAS(
        with_line("fault_readback_offset_mib", "fault_readback_offset_mib=9223372036854775808"),
        "not a signed whole number");
    EXPECT_ERROR_HAS(with_line("fault_readback_offset_mib", "fault_readback_offset_mib=-0"),
                     "not a signed whole number");
}

TEST_F(ParseTest, StallsAreCanonicalMillisecondsUpToTenMinutes) {
    EXPECT_EQ(error_of(with_line("fault_stall_write_ms", "fault_stall_write_ms=600000")), "");
    EXPECT_EQ(error_of(with_line("fault_stall_after_write_ms", "fault_stall_after_write_ms=1")),
              "");
    EXPECT_ERROR_HAS(with_line("fault_stall_write_ms", "fault_stall_write_ms=600001"),
                     "line 16: fault_stall_write_ms: '600001' is more than 600000 milliseconds");
    EXPECT_ERROR_HAS(
        with_line("fault_stall_after_write_ms", "fault_stall_after_write_ms=18446744073709551616"),
        "line 17: fault_stall_after_write_ms: '18446744073709551616' is not a whole number");
    for (const auto* bad : {"-1", "+5", "05", "5ms", "", " 5", "off", "0x10"}) {
        EXPECT_ERROR_HAS(
            with_line("fault_stall_write_ms", std::string("fault_stall_write_ms=") + bad),
            "line 16: fault_stall_write_ms:");
        EXPECT_ERROR_HAS(with_line("fault_stall_after_write_ms",
                                   std::string("fault_stall_after_write_ms=") + bad),
                         "line 17: fault_stall_after_write_ms:");
    }
    EXPECT_ERROR_HAS(with_line("fault_stall_write_ms", "# gone"),
                     "missing key 'fault_stall_write_ms'");
    EXPECT_ERROR_HAS(with_line("fault_stall_after_write_ms", "# gone"),
                     "missing key 'fault_stall_after_write_ms'");
    EXPECT_ERROR_HAS(good_ + "fault_stall_write_ms=0\n",
                     "line 27: duplicate key 'fault_stall_write_ms' (first on line 16)");
}

// boot_time and uptime_advanced_s follow boot_count, in the documented order.
TEST_F(ParseTest, UptimeKeysFollowBootCount) {
    const auto at = good_.find("\nboot_count=1\nboot_time=");
    ASSERT_NE(at, std::string::npos) << good_;
    EXPECT_NE(good_.find("\nuptime_advanced_s=0\nhang_above_mib=", at), std::string::npos) << good_;
}

TEST_F(ParseTest, UptimeKeysAreStrict) {
    EXPECT_EQ(error_of(with_line("boot_time", "boot_time=-9223372036854775808")), "");
    EXPECT_EQ(error_of(with_line("uptime_advanced_s", "uptime_advanced_s=18446744073709551615")),
              "");
    for (const auto* bad : {"", "x", "1.5", "01", "-0", "+1", " 1", "1s", "9223372036854775808"})
        EXPECT_ERROR_HAS(with_line("boot_time", std::string("boot_time=") + bad),
                         "line 9: boot_time:");
    for (const auto* bad : {"", "-1", "+1", "01", "10m", "18446744073709551616"})
        EXPECT_ERROR_HAS(with_line("uptime_advanced_s", std::string("uptime_advanced_s=") + bad),
                         "line 10: uptime_advanced_s:");
    EXPECT_ERROR_HAS(with_line("boot_time", "# gone"), "missing key 'boot_time'");
    EXPECT_ERROR_HAS(with_line("uptime_advanced_s", "# gone"), "missing key 'uptime_advanced_s'");
    EXPECT_ERROR_HAS(good_ + "boot_time=0\n",
                     "line 27: duplicate key 'boot_time' (first on line 9)");
}

TEST_F(ParseTest, HistoryLongerThan256IsRefused) {
    std::string list = "1";
    for (std::size_t i = 1; i <= sim::kHistoryCap; ++i) list += ",1";
    EXPECT_ERROR_HAS(with_line("history", "history=" + list), "more than 256 entries");
}

TEST_F(ParseTest, KnobMustFitTheWidth) {
    EXPECT_ERROR_HAS(with_line("knob_mib", "knob_mib=4294967296"), "does not fit value_width 4");
    EXPECT_EQ(error_of(with_line("knob_mib", "knob_mib=4294967295")), "");
}

TEST_F(ParseTest, EmptyAndTornFilesAreErrors) {
    EXPECT_ERROR_HAS("", "empty");
    EXPECT_ERROR_HAS(good_.substr(0, good_.size() - 1),
                     "line 26: no newline at the end: the file is torn");
    EXPECT_ERROR_HAS(good_.substr(0, good_.find("\nhung=") + 3), "line 12: no newline at the end");
    EXPECT_ERROR_HAS(good_.substr(0, good_.find("\nhung=") + 1), "missing key 'hung'");
}

// ---------------------------------------------------------------------------------------------
// The file on disk

TEST_F(SimTest, ACorruptFileIsAnErrorNotAFreshMachine) {
    write_file("profile=m4-16\nknob_mib=oops\n");
    auto kernel = k();
    const auto read = kernel.read_wired_limit();
    ASSERT_TRUE(fails_with(read, Kind::read_failed));
    EXPECT_NE(read.error().message.find(path_.string()), std::string::npos) << read.error().message;
    EXPECT_NE(read.error().message.find("line 2: knob_mib:"), std::string::npos)
        << read.error().message;
    EXPECT_TRUE(fails_with(kernel.write_wired_limit(1_MiB), Kind::write_refused));
    EXPECT_TRUE(fails_with(kernel.read_memsize(), Kind::read_failed));
    EXPECT_TRUE(fails_with(kernel.read_uptime(), Kind::read_failed));
    EXPECT_TRUE(kernel.read_related().empty());
    EXPECT_FALSE(SimKernel::reboot(path_));
    EXPECT_FALSE(SimKernel::advance_uptime(path_, std::chrono::seconds{1}));
    EXPECT_EQ(file_text(), "profile=m4-16\nknob_mib=oops\n");  // left for a person to look at

    init("m4-16");  // init replaces even an unreadable state
    EXPECT_TRUE(succeeded(kernel.read_wired_limit()));
}

TEST_F(SimTest, AnEmptyFileIsTornNotFresh) {
    write_file("");
    const auto read = k().read_wired_limit();
    ASSERT_TRUE(fails_with(read, Kind::read_failed));
    EXPECT_NE(read.error().message.find("empty"), std::string::npos) << read.error().message;
}

TEST_F(SimTest, ASymbolicLinkIsRefused) {
    init("m4-16");
    const auto link = dir_ / "link";
    fs::create_symlink(path_, link);
    const auto read = SimKernel(link).read_wired_limit();
    ASSERT_TRUE(fails_with(read, Kind::read_failed));
    EXPECT_NE(read.error().message.find("symbolic link"), std::string::npos)
        << read.error().message;
    EXPECT_FALSE(SimKernel(link).write_wired_limit(1_MiB));
    EXPECT_EQ(state().writes, 0U);
}

TEST_F(SimTest, AWriteReplacesTheFileAtomicallyWithMode0644) {
    const auto old_mask = ::umask(077);  // the mode must not depend on the caller's umask
    auto kernel = k();
    ASSERT_TRUE(succeeded(kernel.read_wired_limit()));  // creates the file
    const auto before = inode();
    ASSERT_TRUE(succeeded(kernel.write_wired_limit(100_GiB)));
    ::umask(old_mask);

    EXPECT_NE(inode(), before);  // a new file was renamed into place, not the old one rewritten
    EXPECT_EQ(dir_entries(), std::vector<std::string>{"state"});  // no temporary file left behind
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644U);
    EXPECT_EQ(file_text().back(), '\n');
    EXPECT_EQ(file_text().rfind("# wiredcap simulated Mac", 0), 0U);
}

TEST_F(SimTest, AFreshFileHasMode0644Too) {
    const auto old_mask = ::umask(077);
    const auto id = k().read_boot_id();
    ::umask(old_mask);
    ASSERT_TRUE(succeeded(id));
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644U);
}

// ---------------------------------------------------------------------------------------------
// Concurrent writers

// Each writer writes its own increasing values; with the lock, every write lands, and each
// writer's values appear in the history in the order it wrote them.
void expect_all_writes_landed(const sim::SimState& s, int writers, int per_writer) {
    EXPECT_EQ(s.writes, static_cast<std::uint64_t>(writers * per_writer));
    ASSERT_EQ(s.history.size(), static_cast<std::size_t>(writers * per_writer));
    std::map<std::uint64_t, std::uint64_t> last_of_writer;
    for (const auto& v : s.history) {
        const auto writer = v.count() / 1000;
        const auto seq = v.count() % 1000;
        EXPECT_EQ(seq, last_of_writer[writer] + 1) << "writer " << writer;
        last_of_writer[writer] = seq;
    }
    EXPECT_EQ(last_of_writer.size(), static_cast<std::size_t>(writers));
}

TEST_F(SimTest, ConcurrentThreadsLoseNoUpdate) {
    constexpr int kWriters = 4;
    constexpr int kEach = 50;
    ASSERT_TRUE(succeeded(SimKernel::init(path_, "m2ultra-192")));
    std::vector<std::thread> threads;
    for (int w = 1; w <= kWriters; ++w)
        threads.emplace_back([this, w] {
            SimKernel kernel(path_);
            for (int i = 1; i <= kEach; ++i)
                EXPECT_TRUE(succeeded(
                    kernel.write_wired_limit(mib(static_cast<std::uint64_t>(w * 1000 + i)))));
        });
    for (auto& t : threads) t.join();
    expect_all_writes_landed(state(), kWriters, kEach);
    EXPECT_EQ(dir_entries(), std::vector<std::string>{"state"});
}

TEST_F(SimTest, ConcurrentProcessesLoseNoUpdate) {
    constexpr int kWriters = 2;
    constexpr int kEach = 100;
    ASSERT_TRUE(succeeded(SimKernel::init(path_, "m2ultra-192")));
    std::vector<pid_t> children;
    for (int w = 1; w <= kWriters; ++w) {
        const pid_t pid = ::fork();
        ASSERT_NE(pid, -1);
        if (pid == 0) {
            SimKernel kernel(path_);
            for (int i = 1; i <= kEach; ++i)
                if (!kernel.write_wired_limit(mib(static_cast<std::uint64_t>(w * 1000 + i))))
                    ::_exit(1);
            ::_exit(0);
        }
        children.push_back(pid);
    }
    for (const pid_t pid : children) {
        int status = 0;
        ASSERT_EQ(::waitpid(pid, &status, 0), pid);
        EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    expect_all_writes_landed(state(), kWriters, kEach);
}

// ---------------------------------------------------------------------------------------------
// Choosing a backend

TEST_F(SimTest, MakeDefaultKernelHonoursASimulatorPath) {
    const auto kernel = wiredcap::kernel::make_default_kernel(path_.string());
    ASSERT_NE(kernel, nullptr);
    EXPECT_EQ(kernel->backend_name(), "simulated");
    const auto* simulated = dynamic_cast<SimKernel*>(kernel.get());
    ASSERT_NE(simulated, nullptr);
    EXPECT_EQ(simulated->state_path(), path_);
}

#ifndef __APPLE__
TEST(MakeKernel, ElsewhereTheDefaultIsTheSimulatorAtTheCompiledInPath) {
    const auto kernel = wiredcap::kernel::make_default_kernel(std::nullopt);
    const auto* simulated = dynamic_cast<SimKernel*>(kernel.get());
    ASSERT_NE(simulated, nullptr);
    EXPECT_EQ(simulated->state_path(), fs::path(wiredcap::kernel::default_sim_state_path()));
    EXPECT_FALSE(wiredcap::kernel::default_sim_state_path().empty());
}
#endif

}  // namespace
