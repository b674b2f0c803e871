// The plain-record reading (cli/include/wiredcap/cli/readings/journal_fast_line.hpp) against the full JSON parser:
// on every line it reads, the same entry; the helper's own records it reads all; anything else
// it leaves to the full parser.
#include "wiredcap/cli/readings/journal_fast_line.hpp"

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/system/journal/pages_record.hpp"
#include "wiredcap/cli/readings/json_value.hpp"

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
// the plain reading must take. Each of its two readings is held to the full parser alone: the
// helper's key order read straight through takes no line the reading in any order refuses.
void check(const std::string& line, bool plain) {
    const auto fast = read_plain_record(line, 7);
    const auto full = parse_record(line, 7);
    EXPECT_EQ(fast.has_value(), plain) << line;
    if (fast) {
        ASSERT_TRUE(full) << line << ": " << full.error().message;
        expect_same(*fast, *full, line);
    }
    EntryView ordered, any;
    const bool in_order = plain_reading::in_helper_order(line, 7, ordered);
    const bool in_any = plain_reading::in_any_order(line, 7, any);
    EXPECT_EQ(in_order || in_any, plain) << line;
    if (in_order) {
        ASSERT_TRUE(in_any) << "read in the helper's order, refused in any order: " << line;
        ASSERT_TRUE(full) << line;
        expect_same(to_entry(ordered), *full, line);
    }
    if (in_any) {
        ASSERT_TRUE(full) << line;
        expect_same(to_entry(any), *full, line);
    }
    // The journal's reader reads the helper's lines where they lie in the text it read, each
    // line's end found by the reading: the line up to the first newline, read as alone.
    const std::string first = line.substr(0, line.find('\n'));
    EntryView alone;
    const bool first_in_order = plain_reading::in_helper_order(first, 7, alone);
    for (const std::string next :
         {"", "\n", R"({"v":1,"time":"T","boot":"B","uid":1,"command":"c","event":"e"})"}) {
        EntryView lying;  // views into `text`
        const std::string text = line + "\n" + next;
        const std::size_t length = read_helper_line(text, 7, lying);
        EXPECT_EQ(length != 0, first_in_order) << line;
        if (length != 0 && first_in_order) {
            EXPECT_EQ(length, first.size()) << line;
            expect_same(to_entry(lying), to_entry(alone), line);
        }
    }
    EntryView torn;  // no newline after it: a torn last line, left to the reading line by line
    if (line.find('\n') == std::string::npos) {
        EXPECT_EQ(read_helper_line(line, 7, torn), 0u) << line;
    }
}

// The helper's own line, as to_json_line writes it, without its newline.
std::string helper_line(const journal::Record& r, const std::string& boot, uid_t uid,
                        std::int64_t when, const journal::PagesFields& pages = {}) {
    const std::string line = journal::to_json_line(r, pages, journal::Stamp{boot, uid}, when);
    return line.substr(0, line.size() - 1);
}

TEST(JournalPlainRecord, EveryRecordTheHelperWritesIsReadAsTheFullParserReadsIt) {
    std::mt19937 rng(25);
    auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
    const std::vector<std::string> commands{"apply",   "reset", "confirm", "end",
                                            "persist", "boot",  "verdict"};
    const std::vector<std::string> events{"intent",    "applied", "refused",
                                          "confirmed", "end",     "tripped"};
    for (int i = 0; i < 2000; ++i) {
        journal::Record r{commands[static_cast<std::size_t>(pick(7))],
                          events[static_cast<std::size_t>(pick(6))],
                          std::nullopt,
                          std::nullopt,
                          std::nullopt,
                          std::nullopt,
                          std::nullopt,
                          ""};
        if (pick(2)) r.run = "r-" + std::to_string(pick(1000));
        if (pick(2)) r.step = static_cast<std::uint64_t>(pick(100000) + 1);
        if (pick(2)) r.from = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(2)) r.to = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(2))
            r.readback = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000)));
        if (pick(3) == 0) r.reason = "out of band: 194560 MiB (190.00 GiB, 204.01 GB)";
        if (pick(4) == 0) {
            r.effective = MiB::from_count_or_throw(static_cast<std::uint64_t>(pick(200000) + 1));
            r.effective_source = pick(2) ? "metal" : "given";
        }
        r.ignore_hang_ceiling = pick(5) == 0;
        if (pick(5) == 0) r.by = "set";
        journal::PagesFields p;
        if (pick(3) == 0) {  // a Linux trial's value, in pages (docs/linux.md)
            p.to_pages = static_cast<std::uint64_t>(pick(30000000));
            p.page_size = pick(2) ? 4096 : 16384;
        }
        if (pick(6) == 0) r.vouched = "hung";
        if (pick(8) == 0) p.param = "pages_limit";
        if (pick(8) == 0) p.readback_pages = static_cast<std::uint64_t>(pick(30000000));
        if (pick(8) == 0) p.place = "ttm";
        const std::string line =
            helper_line(r, "BOOT-" + std::to_string(pick(9)), static_cast<uid_t>(pick(70000)),
                        1796113200 + pick(100000), p);
        check(line, true);
        // The helper's own lines are read straight through, in its key order (the fast way).
        EntryView e;
        EXPECT_TRUE(plain_reading::in_helper_order(line, 7, e)) << line;
    }
}

// The same reading, one Entry lent line after line (as the journal is read): what one line left
// in it (a run, a reason, a longer time) never shows in the next.
TEST(JournalPlainRecord, AnEntryReadLineAfterLineHoldsOnlyTheLinesOwnFields) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    const std::vector<std::string> lines{
        head + R"("intent","run":"r-20261201-084000-abcd","step":1,"from_mib":0,"to_mib":73728})",
        R"({"v":1,"time":"T","boot":"BOOT-LONGER-THAN-SIXTEEN","uid":0,"command":"reset","event":"applied"})",
        head + R"("end","run":"r","readback_mib":1,"reason":"completed","by":"set"})",
        R"({"v":1,"time":"2026-12-01T08:40:00Z","event":"x","boot":"B","uid":501,"command":"c"})",  // any order
        head + R"("intent","run":"r-20261201-084000-abcd","step":1,"from_mib":0,"to_mib":73728})",
        R"({"v":1,"time":"","boot":"","uid":0,"command":"","event":""})",
        head + R"("intent","step":1,"step":2})",  // refused: a key twice
        head +
            R"("intent","reason":"r","effective_mib":5,"effective_source":"metal","to_pages":3,"page_size":4096})",
        R"({"v":1,"time":"T","boot":"B","uid":1,"command":"reset","event":"intent"})"};
    EntryView lent;  // its text views into each line in turn
    std::size_t number = 0;
    for (const std::string& line : lines) {
        ++number;
        const auto full = parse_record(line, number);
        const bool read = read_plain_record(line, number, lent);
        ASSERT_EQ(read, full.has_value()) << line;
        if (read) expect_same(to_entry(lent), *full, line);
    }
}

// Every key of the helper's, with a value of its kind, written in some other order: read (in any
// order) as the full parser reads it, never by the reading of the helper's order.
TEST(JournalPlainRecord, KeysInAnotherOrderAreReadTheSame) {
    std::vector<std::string> fields{R"("v":1)",
                                    R"("time":"2026-12-01T08:40:00Z")",
                                    R"("boot":"B")",
                                    R"("uid":501)",
                                    R"("command":"apply")",
                                    R"("event":"intent")",
                                    R"("run":"r-1")",
                                    R"("step":2)",
                                    R"("from_mib":0)",
                                    R"("to_mib":73728)",
                                    R"("readback_mib":73728)",
                                    R"("reason":"why")",
                                    R"("effective_mib":9)",
                                    R"("effective_source":"metal")",
                                    R"("ignore_hang_ceiling":true)",
                                    R"("by":"set")",
                                    R"("to_pages":3)",
                                    R"("page_size":4096)"};
    std::mt19937 rng(4);
    for (int i = 0; i < 300; ++i) {
        std::shuffle(fields.begin(), fields.end(), rng);
        std::string line = "{";
        for (const std::string& f : fields) line += (line.size() > 1 ? "," : "") + f;
        line += "}";
        check(line, true);
    }
}

// Lines the helper wrote, damaged a byte at a time (changed, dropped, doubled) or with two of
// their keys swapped: whichever reading takes one reads what the full parser reads; the full
// parser alone says what is wrong with the rest.
TEST(JournalPlainRecord, DamagedHelperLinesReadAsTheFullParserReadsThem) {
    std::mt19937 rng(2512);
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    std::string odd = "\"{}[],:0123456789.eE+-tfnul \\/\x7f\x80\xc3\x1f\t";
    odd += '\0';
    std::vector<std::string> lines;
    for (const char* event : {"intent", "applied", "confirmed", "end"}) {
        journal::Record r{"apply",
                          event,
                          std::string("r-20261201-084000-abcd"),
                          2,
                          MiB::from_count_or_throw(65536),
                          MiB::from_count_or_throw(73728),
                          std::nullopt,
                          ""};
        if (std::string_view(event) == "end") r.reason = "completed";
        if (std::string_view(event) != "intent") r.readback = MiB::from_count_or_throw(73728);
        r.by = "set";
        lines.push_back(helper_line(r, "0F3A1B2C-1111-2222-3333-444455556666", 501, 1796113200));
    }
    for (int i = 0; i < 10000; ++i) {
        std::string line = lines[pick(lines.size())];
        switch (pick(4)) {
            case 0: line[pick(line.size())] = odd[pick(odd.size())]; break;
            case 1: line.erase(pick(line.size()), 1); break;
            case 2: {
                const std::size_t at = pick(line.size());
                line.insert(at, line.substr(at, pick(12) + 1));
                break;
            }
            default: {  // two fields swapped: the helper's order no longer holds
                std::vector<std::string> parts;
                std::size_t from = 1;
                for (std::size_t at = 1; at < line.size(); ++at)
                    if (line[at] == ',' || at + 1 == line.size()) {
                        parts.push_back(line.substr(from, at - from));
                        from = at + 1;
                    }
                std::swap(parts[pick(parts.size())], parts[pick(parts.size())]);
                line = "{";
                for (const std::string& p : parts) line += (line.size() > 1 ? "," : "") + p;
                line += "}";
            }
        }
        EntryView e;
        check(line, read_plain_record(line, 7, e));  // the readings against the full parser
    }
}

TEST(JournalPlainRecord, AnythingElseIsLeftToTheFullParser) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    check(head + R"("intent"})", true);
    for (const std::string& odd :
         {head + R"("intent","reason":"a \"quoted\" word"})",   // an escape
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
          std::string(
              R"({"v":2,"time":"T","boot":"B","uid":1,"command":"apply","event":"intent"})"),
          std::string(
              R"({"v":1,"time":"T","boot":"B","command":"apply","event":"intent"})"),  // no uid
          std::string(R"({})"),
          std::string(R"([1,2])"),
          std::string("")})
        check(odd, false);
    // Keys the entry does not use are skipped when plain, as the full parser ignores them.
    check(head + R"("intent","ignore_hang_ceiling":true,"note":null,"n":3,"s":"x"})", true);
}

// A key the entry does not use, twice: the full parser refuses any repeated key (json_value.cpp),
// so the plain readings must leave such a line to it, whatever the key and its values.
TEST(JournalPlainRecord, AnUnusedKeyTwiceIsLeftToTheFullParser) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    for (const std::string& odd :
         {head + R"("intent","note":1,"note":2})", head + R"("intent","note":null,"note":null})",
          head + R"("intent","ignore_hang_ceiling":true,"ignore_hang_ceiling":false})",
          head + R"("intent","vouched":"hung","by":"set","vouched":"hung"})",
          head + R"("intent","a":"x","b":"y","a":"x"})",
          std::string(
              R"({"x":1,"v":1,"time":"T","boot":"B","uid":1,"command":"c","event":"e","x":1})")})
        check(odd, false);
    check(head + R"("intent","a":1,"b":1,"ab":1,"ba":1})", true);  // distinct keys: read
}

// A line longer than the full parser takes (json::kMaxText) is skipped by it with a warning; the
// plain readings must not read it either, however plain it is.
TEST(JournalPlainRecord, ALineOverTheFullParsersLimitIsLeftToIt) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    const std::string shell = head + R"("end","reason":"")" + "}";
    const std::size_t room = json::kMaxText - shell.size();
    check(head + R"("end","reason":")" + std::string(room, 'r') + "\"}",
          true);  // at the limit: read
    check(head + R"("end","reason":")" + std::string(room + 1, 'r') + "\"}", false);  // one over
    check(R"({"reason":")" + std::string(json::kMaxText, 'r') +
              R"(","v":1,"time":"T","boot":"B","uid":1,"command":"c","event":"e"})",
          false);  // in any order
}

// The edges of the helper's form, each held to the full parser: a whole helper line with junk
// after it, counts at the edges of 64 bits, leading zeros, a key twice in the helper's own
// order, empty and DEL-only keys.
TEST(JournalPlainRecord, TheEdgesOfTheHelpersFormReadAsTheFullParserReadsThem) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    const std::string whole =
        head + R"("applied","run":"r","step":1,"to_mib":80,"readback_mib":80})";
    for (const std::string junk : {"x", "}", ",", " ", "\n", "{}", "\"", ",\"v\":1"})
        check(whole + junk, false);
    check(whole + std::string(1, '\0'), false);
    check(whole.substr(0, whole.size() - 1) + std::string(1, '\0') + "}", false);
    const std::string tail = R"(,"command":"c","event":"e"})";
    const std::string start = R"({"v":1,"time":"T","boot":"B","uid":)";
    check(start + "9999999999999999999" + tail, true);    // 19 digits: read
    check(start + "18446744073709551615" + tail, false);  // 20 digits: the full parser's
    check(start + "18446744073709551616" + tail, false);  // past 64 bits
    check(start + "0" + tail, true);
    check(start + "00" + tail, false);
    check(start + "0501" + tail, false);
    check(start + "-0" + tail, false);
    check(start + "1" + tail.substr(0, tail.size() - 1) + R"(,"step":0})", true);
    check(head + R"("applied","run":"r","step":1,"run":"r"})",
          false);  // a key twice, helper's order
    check(head + R"("applied","to_mib":1,"readback_mib":1,"to_mib":1})", false);
    check(R"({"v":1,"v":1,"time":"T","boot":"B","uid":1,"command":"c","event":"e"})", false);
    check(head + R"("e","":1,"":1})", false);                       // the empty key twice
    check(head + "\"e\",\"\":1,\"\x7f\":2,\"\x7f\x7f\":3}", true);  // distinct odd keys
    check(head + R"("e","reason":""})", true);
    check(head + R"("e","reason":"\u0000"})", false);
}

// The helper's order reads a count without looking at the byte after it (the next key's comma, or
// the closing brace, must follow), and stops comparing the optional keys at the first byte that is
// no comma. A count in any place followed by a fraction, an exponent or junk, the last key cut
// short, or keys after a gap in the order: each held to the full parser; the clean line is read
// the fast way.
TEST(JournalPlainRecord, CountsAndOptionalKeysInTheHelpersOrderAreReadAsTheFullParserReadsThem) {
    const std::vector<std::string> fields{R"("v":1)",
                                          R"("time":"T")",
                                          R"("boot":"B")",
                                          R"("uid":501)",
                                          R"("command":"apply")",
                                          R"("event":"applied")",
                                          R"("run":"r-1")",
                                          R"("step":2)",
                                          R"("from_mib":0)",
                                          R"("to_mib":73728)",
                                          R"("readback_mib":73728)",
                                          R"("reason":"why")",
                                          R"("effective_mib":9)",
                                          R"("effective_source":"metal")",
                                          R"("ignore_hang_ceiling":true)",
                                          R"("by":"set")",
                                          R"("vouched":"hung")",
                                          R"("param":"pages_limit")",
                                          R"("to_pages":3)",
                                          R"("readback_pages":3)",
                                          R"("page_size":4096)",
                                          R"("place":"ttm")"};
    auto join = [](const std::vector<std::string>& parts) {
        std::string line = "{";
        for (const std::string& p : parts) line += (line.size() > 1 ? "," : "") + p;
        return line + "}";
    };
    const std::string whole = join(fields);
    check(whole, true);
    EntryView e;
    EXPECT_TRUE(plain_reading::in_helper_order(whole, 7, e)) << whole;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (std::isdigit(static_cast<unsigned char>(fields[i].back())) != 0)
            for (const std::string odd : {".5", "e3", "E3", ".", "x", " ", "-1", "\"\""}) {
                std::vector<std::string> bent = fields;
                bent[i] += odd;
                check(join(bent), false);
            }
        std::vector<std::string> gap = fields;  // one key left out: the rest still in order
        gap.erase(gap.begin() + static_cast<std::ptrdiff_t>(i));
        const std::string line = join(gap);
        EntryView g;
        check(line, i > 5);  // the first six are mandatory
        EXPECT_EQ(plain_reading::in_helper_order(line, 7, g), i > 5) << line;
        const std::string cut = whole.substr(0, whole.find(fields[i]) + fields[i].size());
        check(cut, false);                // torn after a value: no closing brace
        check(cut + ",", false);          // after a comma
        check(cut + ",\"" + "}", false);  // in a key
    }
    // Every optional key moved one place later: out of the helper's order, read in any order.
    for (std::size_t i = 6; i + 1 < fields.size(); ++i) {
        std::vector<std::string> swapped = fields;
        std::swap(swapped[i], swapped[i + 1]);
        EntryView g;
        check(join(swapped), true);
        EXPECT_FALSE(plain_reading::in_helper_order(join(swapped), 7, g)) << join(swapped);
    }
}

// The strings are read sixteen (or eight) bytes at a time: a byte no plain string holds is found
// at every place in a long string, and one it may hold (DEL) is read at every place; the same
// for strings of every length up to 40, placed last so that the line ends a few bytes after.
TEST(JournalPlainRecord, OddBytesAnywhereInAStringOfAnyLengthAreLeftToTheFullParser) {
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply","event":)";
    for (std::size_t length = 0; length <= 40; ++length) {
        for (std::size_t at = 0; at < length; ++at)
            for (const std::string& odd :
                 {std::string("\t"), std::string("\x01"), std::string("\x1f"), std::string("\x80"),
                  std::string("\xff"), std::string("\\\\"), std::string("\""),
                  std::string(1, '\0')}) {
                std::string text(length, 'x');
                text.replace(at, 1, odd);
                check(head + "\"intent\",\"by\":\"" + text + "\"}", false);
                check(head + "\"" + text + "\"}", false);
            }
        check(head + "\"intent\",\"by\":\"" + std::string(length, '\x7f') + "\"}", true);
        check(head + "\"" + std::string(length, '~') + "\"}", true);
    }
    for (std::size_t at = 0; at < 24; ++at) {
        for (const std::string odd :
             {"\t", "\x01", "\x1f", "\xc3\xa9", "\x80", "\xff", "\\\\", "\\\""}) {
            std::string reason(24, 'r');
            reason.insert(at, odd);
            check(head + "\"intent\",\"reason\":\"" + reason + "\"}", false);
        }
        std::string reason(24, 'r');
        reason.insert(at, "\x7f");
        check(head + "\"intent\",\"reason\":\"" + reason + "\"}", true);
        check(head + "\"intent\",\"reason\":\"" + reason.substr(0, at) + "\"}",
              true);  // a quote anywhere
    }
}

}  // namespace
}  // namespace wiredcap::journal_view
