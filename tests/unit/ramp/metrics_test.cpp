// The Prometheus exposition of `wiredcap metrics` (commands/metrics_cmd.cpp), from readings made
// up here: label values escaped as the text format wants, an unknown reading left out (never 0),
// no readings at all as wiredcap_up 0, and every sample line under its family's HELP and TYPE.
#include "commands/metrics_cmd.hpp"

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

bool has_line(const std::string& text, const std::string& line) {
    return text.find("\n" + line + "\n") != std::string::npos || text.rfind(line + "\n", 0) == 0;
}

TEST(Metrics, LabelValuesAreEscaped) {
    const auto s = readings();
    const std::string text = prometheus_text(&s);
    EXPECT_NE(text.find(R"(policy_source="policy file /etc/a \"quoted\" \\ path")"), std::string::npos) << text;
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

TEST(Metrics, NoReadingsIsUpZero) {
    const std::string text = prometheus_text(nullptr);
    EXPECT_TRUE(has_line(text, "wiredcap_up 0")) << text;
    EXPECT_EQ(text.find("_bytes"), std::string::npos) << text;
}

// Every sample's family was announced by HELP and TYPE gauge before it, once.
TEST(Metrics, EverySampleHasHelpAndType) {
    const auto s = readings();
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
            const std::string rest = line.substr(labels_end == std::string::npos ? name.size() : labels_end + 1);
            EXPECT_TRUE(std::regex_match(rest, std::regex(" [0-9]+"))) << "not ' VALUE': " << line;
        }
    }
}

}  // namespace
}  // namespace wiredcap::cli
