// The shared JSON shapes (cli/include/wiredcap/cli/json_contract.*) and the --json failure answer (cli/include/wiredcap/cli/json_mode.hpp).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "wiredcap/cli/json_contract.hpp"
#include "wiredcap/cli/json_mode.hpp"
#include "wiredcap/cli/readings/json_value.hpp"
#include "wiredcap/units/quantity.hpp"
#include "wiredcap/version.hpp"

namespace wiredcap::cli {
namespace {

using units::Bytes;
using units::MiB;

TEST(JsonContract, HeadNamesTheSchemaAndTheVersion) {
    EXPECT_EQ(contract::head("wiredcap.status/2").text(),
              std::string(R"({"schema":"wiredcap.status/2","version":")") + kVersion + "\"}");
}

TEST(JsonContract, ASizeIsAnIntegerOfMiBWithItsSource) {
    EXPECT_EQ(contract::size(MiB::from_count_or_throw(98304), "kernel", "unused").text(),
              R"({"value":98304,"source":"kernel"})");
}

TEST(JsonContract, AnUnknownSizeIsNullWithItsReasonAlways) {
    EXPECT_EQ(contract::size(std::nullopt, "kernel", "sysctl failed").text(),
              R"({"value":null,"source":"kernel","why_unknown":"sysctl failed"})");
    // A null never goes without a reason, even when the caller had none to give.
    EXPECT_EQ(contract::size(std::nullopt, "kernel", "").text(),
              R"({"value":null,"source":"kernel","why_unknown":"not reported"})");
}

// A limit in bytes rounds down, a need rounds up: never toward danger.
TEST(JsonContract, LimitsRoundDownNeedsRoundUp) {
    const Bytes one_mib_and_a_byte = Bytes::from_count_or_throw(1048577);
    EXPECT_EQ(contract::limit_from_bytes(one_mib_and_a_byte, "Metal", "").text(),
              R"({"value":1,"source":"Metal"})");
    EXPECT_EQ(contract::need_from_bytes(one_mib_and_a_byte, "tensors").text(),
              R"({"value":2,"source":"tensors"})");
    EXPECT_EQ(contract::limit_from_bytes(Bytes::from_count_or_throw(1048575), "Metal", "").text(),
              R"({"value":0,"source":"Metal"})");
}

TEST(JsonContract, ErrorAnswer) {
    const auto j = json::parse(contract::error("policy check", ExitCode::usage, "bad \"line\""));
    ASSERT_TRUE(j);
    EXPECT_EQ((*j)["schema"], "wiredcap.error/1");
    EXPECT_EQ((*j)["command"], "policy check");
    EXPECT_EQ((*j)["ok"], false);
    EXPECT_EQ((*j)["exit"], 2);
    EXPECT_EQ((*j)["error"], "bad \"line\"");
    EXPECT_TRUE(
        json::parse(contract::error("", ExitCode::usage, "x")).value()["command"].is_null());
}

TEST(JsonMode, MessagesAreWiredcapsLinesWithoutTheirPrefix) {
    EXPECT_EQ(
        messages_of(
            "plan line\nwiredcap set: too big\n  detail\nwiredcap: usage\n(run 'wiredcap --help')\n"),
        "too big\nusage");
    EXPECT_EQ(messages_of("wiredcap policy check: no file\n"), "no file");
    EXPECT_EQ(messages_of("narration only\n"), "");
}

TEST(JsonMode, AFailureWithNothingOnStdoutGetsTheErrorAnswer) {
    std::ostringstream out, err;
    JsonMode mode(out, err);
    mode.err() << "SIMULATED plan\nwiredcap ramp: outside the band\n";
    mode.finish("ramp", ExitCode::refused_by_policy);
    EXPECT_EQ(err.str(),
              "SIMULATED plan\nwiredcap ramp: outside the band\n");  // passed through as written
    const auto j = json::parse(out.str());
    ASSERT_TRUE(j) << out.str();
    EXPECT_EQ((*j)["error"], "outside the band");
    EXPECT_EQ((*j)["exit"], 3);
}

TEST(JsonMode, AnAnswerAlreadyPrintedIsTheOnlyOne) {
    std::ostringstream out, err;
    JsonMode mode(out, err);
    mode.out() << "{\"schema\":\"wiredcap.change/2\"}\n";
    mode.err() << "wiredcap set: refused\n";
    mode.finish("set", ExitCode::refused_by_policy);
    EXPECT_EQ(out.str(), "{\"schema\":\"wiredcap.change/2\"}\n");
}

TEST(JsonMode, SuccessAddsNothing) {
    std::ostringstream out, err;
    JsonMode mode(out, err);
    mode.finish("status", ExitCode::ok);
    EXPECT_EQ(out.str(), "");
}

}  // namespace
}  // namespace wiredcap::cli
