// The Prometheus exposition of `wiredcap metrics` (cli/commands/metrics_cmd.cpp), from readings made
// up here: label values escaped as the text format wants, an unknown reading left out (never 0),
// no readings at all as wiredcap_up 0, and every sample line under its family's HELP and TYPE.
#include "wiredcap/cli/commands/metrics_cmd.hpp"
#include "wiredcap/cli/commands/journal_metrics.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "wiredcap/units/literals.hpp"

namespace wiredcap::cli {
namespace {

using namespace units::literals;

StatusReadings readings() {
    StatusReadings s;
    s.machine.backend = "simulated";
    s.machine.knob.value = 160_GiB;
    s.machine.memsize.value = units::Bytes(192_GiB);
    s.machine.wired_now.value = units::Bytes(6_GiB);
    PolicyView p;
    p.min = 64_GiB;
    p.max = 176_GiB;
    p.reserve = 16_GiB;
    p.max_step = 16_GiB;
    p.source = "policy file /etc/a \"quoted\" \\ path";
    s.machine.policy = p;
    return s;
}

recovery::StepRef ref(units::MiB value, std::string time) {
    recovery::StepRef r;
    r.value = value;
    r.time = std::move(time);
    return r;
}

// Two hangs (the ceiling the lower, the latest the higher), a confirmation, an open run, a suspect.
recovery::Report journal() {
    recovery::Report j;
    j.hangs = {ref(160_GiB, "2026-12-01T10:00:00Z"), ref(176_GiB, "2026-12-07T01:29:28Z")};
    j.hang_ceiling = j.hangs.front();
    j.last_confirmed = ref(72_GiB, "2026-11-30T00:00:01Z");
    j.unresolved = {recovery::UnresolvedRun{ref(80_GiB, "2026-12-07T02:00:00Z"),
                                            recovery::RunState::awaiting_in_this_boot}};
    j.suspects = {ref(120_GiB, "2026-12-07T00:00:00Z")};
    return j;
}

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(Metrics, LabelValuesAreEscaped) {
    const auto s = readings();
    const std::string text = prometheus_text(&s);
    EXPECT_NE(text.find(R"(policy_source="policy file /etc/a \"quoted\" \\ path")"),
              std::string::npos)
        << text;
}

TEST(Metrics, AnUnknownReadingIsLeftOutNotZero) {
    auto s = readings();
    s.machine.knob.value.reset();
    const std::string text = prometheus_text(&s);
    EXPECT_EQ(text.find("wiredcap_knob_bytes"), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, R"(wiredcap_reading_ok{reading="knob"} 0)")) << text;
    EXPECT_TRUE(has_line(text, R"(wiredcap_reading_ok{reading="memory"} 1)")) << text;
    EXPECT_TRUE(has_line(text, "wiredcap_memory_bytes 206158430208")) << text;
    EXPECT_TRUE(has_line(text, "wiredcap_band_max_bytes 188978561024")) << text;
}

TEST(Metrics, TheBootDaemonIsShownOnlyWhereLaunchdAnswered) {
    auto s = readings();
    EXPECT_EQ(prometheus_text(&s).find("wiredcap_daemon_"), std::string::npos);  // no launchd
    s.daemon.applicable = true;
    s.daemon.loaded = true;
    s.daemon.enabled = false;
    std::string text = prometheus_text(&s);
    EXPECT_TRUE(has_line(text, "wiredcap_daemon_loaded 1")) << text;
    EXPECT_TRUE(has_line(text, "wiredcap_daemon_enabled 0")) << text;
    s.daemon.loaded.reset();  // launchctl could not tell: left out, never 0
    text = prometheus_text(&s);
    EXPECT_EQ(text.find("wiredcap_daemon_loaded"), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, "wiredcap_daemon_enabled 0")) << text;
}

TEST(Metrics, TheJournalsFactsAreTheReports) {
    auto s = readings();
    s.journal = journal();
    s.journal_bytes = 4096;
    const std::string text = prometheus_text(&s);
    for (const char* line :
         {"wiredcap_journal_bytes 4096", "wiredcap_hang_ceiling_bytes 171798691840",
          "wiredcap_hangs 2", "wiredcap_last_hang_bytes 188978561024",
          "wiredcap_last_hang_timestamp_seconds 1796606968",
          "wiredcap_last_confirmed_timestamp_seconds 1795996801",
          "wiredcap_journal_unresolved_runs 1", "wiredcap_journal_suspects 1"})
        EXPECT_TRUE(has_line(text, line)) << line << "\n" << text;
}

TEST(Metrics, AnUnreadableJournalOrTimeIsLeftOut) {
    auto s = readings();
    s.journal_bytes = 10;
    std::string text = prometheus_text(&s);  // the journal unreadable: only its size
    EXPECT_TRUE(has_line(text, "wiredcap_journal_bytes 10")) << text;
    for (const char* name : {"wiredcap_hangs", "wiredcap_last_", "wiredcap_journal_unresolved",
                             "wiredcap_journal_suspects"})
        EXPECT_EQ(text.find(name), std::string::npos) << name << "\n" << text;
    s.journal = journal();
    s.journal->hangs.back().time = "2026-12-07 01:29:28";  // not the journal's format: no time
    s.journal_bytes.reset();
    text = prometheus_text(&s);
    EXPECT_EQ(text.find("wiredcap_last_hang_timestamp_seconds"), std::string::npos) << text;
    EXPECT_EQ(text.find("wiredcap_journal_bytes"), std::string::npos) << text;
    EXPECT_TRUE(has_line(text, "wiredcap_last_hang_bytes 188978561024")) << text;
}

TEST(Metrics, JournalTimesAreUtcSeconds) {
    EXPECT_EQ(unix_seconds("1970-01-01T00:00:00Z"), 0U);
    EXPECT_EQ(unix_seconds("2026-12-07T01:29:28Z"), 1796606968U);
    for (const char* bad :
         {"", "2026-12-07T01:29:28", "2026-13-01T00:00:00Z", "2026-12-07T01:29:28+01:00",
          "1969-12-31T23:59:59Z", "2026-12-07T1:29:28Z "})
        EXPECT_EQ(unix_seconds(bad), std::nullopt) << bad;
}

TEST(Metrics, TheHelpersSetuidBitIsRead) {
    auto s = readings();
    EXPECT_EQ(prometheus_text(&s).find("wiredcap_helper_setuid_root"),
              std::string::npos);  // stat failed
    s.helper.mode = 04755;
    s.helper.uid = 0;
    EXPECT_TRUE(has_line(prometheus_text(&s), "wiredcap_helper_setuid_root 1"));
    s.helper.uid = 501;  // setuid to a user: not root's
    EXPECT_TRUE(has_line(prometheus_text(&s), "wiredcap_helper_setuid_root 0"));
    s.helper.uid = 0;
    s.helper.mode = 0755;
    EXPECT_TRUE(has_line(prometheus_text(&s), "wiredcap_helper_setuid_root 0"));
}

TEST(Metrics, NoReadingsIsUpZero) {
    const std::string text = prometheus_text(nullptr);
    EXPECT_TRUE(has_line(text, "wiredcap_up 0")) << text;
    EXPECT_EQ(text.find("_bytes"), std::string::npos) << text;
}

// Every sample's family was announced by HELP and TYPE gauge before it, once.
TEST(Metrics, EverySampleHasHelpAndType) {
    auto s = readings();
    s.journal = journal();
    s.journal_bytes = 1;
    s.helper.mode = 04755;
    s.helper.uid = 0;
    std::istringstream in(prometheus_text(&s));
    std::set<std::string> helped, typed;
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# HELP ", 0) == 0) {
            EXPECT_TRUE(helped.insert(line.substr(7, line.find(' ', 7) - 7)).second) << line;
        } else if (line.rfind("# TYPE ", 0) == 0) {
            EXPECT_EQ(line.substr(line.rfind(' ') + 1), "gauge") << line;
            typed.insert(line.substr(7, line.find(' ', 7) - 7));
        } else {
            const std::string name = line.substr(0, line.find_first_of("{ "));
            EXPECT_TRUE(helped.count(name) && typed.count(name)) << line;
            // After the name and labels: one value, no timestamp.
            const auto labels_end = line.find('}');
            const std::string rest =
                line.substr(labels_end == std::string::npos ? name.size() : labels_end + 1);
            EXPECT_TRUE(std::regex_match(rest, std::regex(" [0-9]+"))) << "not ' VALUE': " << line;
        }
    }
}

}  // namespace
}  // namespace wiredcap::cli
