// The plain-record reading (ramp/readings/journal_fast_line.hpp) against the full JSON parser:
// on every line it reads, the same entry; the helper's own records it reads all; anything else
// it leaves to the full parser.
#include "readings/journal_fast_line.hpp"

#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "journal/journal.hpp"

namespace wiredcap::journal_view {
namespace {

using units::MiB;

void expect_same(const Entry& a, const Entry& b, const std::string& line) {
    EXPECT_EQ(a.line, b.line) << line;
    EXPECT_EQ(a.v, b.v) << line;
    EXPECT_EQ(a.time, b.time) << line;
    EXPECT_EQ(a.boot, b.boot) << line;
    EXPECT_EQ(a.uid, b.uid) << line;
    EXPECT_EQ(a.command, b.command) << line;
    EXPECT_EQ(a.event, b.event) << line;
    EXPECT_EQ(a.run, b.run) << line;
    EXPECT_EQ(a.step, b.step) << line;
    EXPECT_EQ(a.from, b.from) << line;
    EXPECT_EQ(a.to, b.to) << line;
    EXPECT_EQ(a.readback, b.readback) << line;
    EXPECT_EQ(a.effective, b.effective) << line;
    EXPECT_EQ(a.effective_source, b.effective_source) << line;
    EXPECT_EQ(a.reason, b.reason) << line;
    EXPECT_EQ(a.by, b.by) << line;
    EXPECT_EQ(a.to_pages, b.to_pages) << line;
    EXPECT_EQ(a.page_size, b.page_size) << line;
}

// Whatever the plain reading reads, the full parser reads the same; `plain` says which lines
// the plain reading must take.
void check(const std::string& line, bool plain) {
    const auto fast = read_plain_record(line, 7);
    const auto full = parse_record(line, 7);
    EXPECT_EQ(fast.has_value(), plain) << line;
    if (fast) {
        ASSERT_TRUE(full) << line << ": " << full.error().message;
        expect_same(*fast, *full, line);
    }
}

TEST(JournalPlainRecord, EveryRecordTheHelperWritesIsReadAsTheFullParserReadsIt) {
    std::mt19937 rng(25);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const std::vector<std::string> commands{"apply", "reset", "confirm", "end", "persist", "boot", "verdict"};
    const std::vector<std::string> events{"intent", "applied", "refused", "confirmed", "end", "tripped"};
    for (int i = 0; i < 2000; ++i) {
        journal::Record r{commands[static_cast<std::size_t>(pick(7))], events[static_cast<std::size_t>(pick(6))],
                          std::nullopt, std::nullopt, std::nullopt, std::nullopt, std::nullopt, ""};
        if (pick(2)) r.run = "r-" + std::to_string(pick(1000));
        if (pick(2)) r.step = static_cast<std::uint64_t>(pick(100000) + 1);
        if (pick(2)) r.from = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(2)) r.to = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(2)) r.readback = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(3) == 0) r.reason = "out of band: 194560 MiB (190.00 GiB, 204.01 GB)";
        if (pick(4) == 0) {
            r.effective = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000) + 1));
            r.effective_source = pick(2) ? "metal" : "given";
        }
        r.ignore_hang_ceiling = pick(5) == 0;
        if (pick(5) == 0) r.by = "set";
        if (pick(3) == 0) {  // a Linux trial's value, in pages (docs/linux.md)
            r.to_pages = static_cast<std::uint64_t>(pick(30000000));
            r.page_size = pick(2) ? 4096 : 16384;
        }
        const std::string line = journal::to_json_line(r, journal::Stamp{"BOOT-" + std::to_string(pick(9)),
                                                                        static_cast<uid_t>(pick(70000))},
                                                       1796113200 + pick(100000));
        check(line.substr(0, line.size() - 1), true);
    }
}

TEST(JournalPlainRecord, AnythingElseIsLeftToTheFullParser) {
    const std::string head = R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    check(head + R"("intent"})", true);
    for (const std::string& odd : {
             head + R"("intent","reason":"a \"quoted\" word"})",   // an escape
             head + R"("intent","reason":"caf\u00e9"})",           // a unicode escape
             head + "\"intent\",\"reason\":\"caf\xc3\xa9\"}",      // non-ASCII
             head + R"("intent","step":01})",                      // a leading zero
             head + R"("intent","step":1.5})",                     // a fraction
             head + R"("intent","step":1e3})",                     // an exponent
             head + R"("intent","step":-1})",                      // negative
             head + R"("intent","to_mib":99999999999999999999})",  // more than 64 bits
             head + R"("intent","to_mib":18446744073709551615})",  // more than MiB holds
             head + R"("intent","run":"a","run":"b"})",            // a key twice
             head + R"("intent","run":5})",                        // a string field as a number
             head + R"("intent","step":"5"})",                     // a count as a string
             head + R"("intent","extra":{"a":1}})",                // a nested object
             head + R"("intent"} )",                               // trailing space
             head + R"( "intent"})",                               // whitespace
             head + R"("intent")",                                 // torn
             std::string(R"({"v":2,"time":"T","boot":"B","uid":1,"command":"apply","event":"intent"})"),
             std::string(R"({"v":1,"time":"T","boot":"B","command":"apply","event":"intent"})"),  // no uid
             std::string(R"({})"), std::string(R"([1,2])"), std::string("")})
        check(odd, false);
    // Keys the entry does not use are skipped when plain, as the full parser ignores them.
    check(head + R"("intent","ignore_hang_ceiling":true,"note":null,"n":3,"s":"x"})", true);
}

// The strings are read eight bytes at a time: a byte no plain string holds is found at every
// place in a long string, and one it may hold (DEL) is read at every place.
TEST(JournalPlainRecord, OddBytesAnywhereInALongStringAreLeftToTheFullParser) {
    const std::string head = R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    for (std::size_t at = 0; at < 24; ++at) {
        for (const std::string odd : {"\t", "\x01", "\x1f", "\xc3\xa9", "\x80", "\xff", "\\\\", "\\\""}) {
            std::string reason(24, 'r');
            reason.insert(at, odd);
            check(head + "\"intent\",\"reason\":\"" + reason + "\"}", false);
        }
        std::string reason(24, 'r');
        reason.insert(at, "\x7f");
        check(head + "\"intent\",\"reason\":\"" + reason + "\"}", true);
        check(head + "\"intent\",\"reason\":\"" + reason.substr(0, at) + "\"}", true);  // a quote anywhere
    }
}

}  // namespace
}  // namespace wiredcap::journal_view
