// Reading the helper's journal. Input lines are made by the helper's own writer
// (journal::to_json_line), so a change to the format on either side shows up here.
#include "wiredcap/cli/readings/journal_reader.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::journal_view {
namespace {

using namespace units::literals;
using journal::Record;
using journal::Stamp;

const Stamp kStamp{"6F0E2C1A-BOOT", 501};
constexpr std::int64_t kTime = 1795941195;  // 2026-11-29T08:33:15Z

std::string line(const Record& r, const Stamp& s = kStamp) {
    return journal::to_json_line(r, s, kTime);
}

Record intent(std::uint64_t step, units::MiB from, units::MiB to) {
    return Record{"apply", "intent", std::string("r-1"), step, from, to, std::nullopt, ""};
}
Record applied(std::uint64_t step, units::MiB from, units::MiB to) {
    return Record{"apply", "applied", std::string("r-1"), step, from, to, to, ""};
}
Record read_only() {
    return Record{"read",       "read",       std::nullopt, std::nullopt,
                  std::nullopt, std::nullopt, std::nullopt, ""};
}

bool mentions(const std::vector<std::string>& warnings, const std::string& fragment) {
    for (const auto& w : warnings)
        if (w.find(fragment) != std::string::npos) return true;
    return false;
}

std::string all(const std::vector<std::string>& warnings) {
    std::string s;
    for (const auto& w : warnings) s += w + "\n";
    return s;
}

// ---- parse_journal ----------------------------------------------------------------------------

TEST(JournalParse, ReadsEveryFieldTheHelperWrites) {
    const Record r{"apply", "applied", std::string("r-1"), 2, 80_GiB, 96_GiB, 96_GiB, "ramp step"};
    const Contents c = parse_journal(line(r));
    ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
    EXPECT_TRUE(c.warnings.empty());
    EXPECT_FALSE(c.torn_tail);
    const Entry& e = c.entries[0];
    EXPECT_EQ(e.line, 1u);
    EXPECT_EQ(e.v, 1);
    EXPECT_EQ(e.time, "2026-11-29T08:33:15Z");
    EXPECT_EQ(e.boot, "6F0E2C1A-BOOT");
    EXPECT_EQ(e.uid, 501u);
    EXPECT_EQ(e.command, "apply");
    EXPECT_EQ(e.event, "applied");
    EXPECT_EQ(e.run, "r-1");
    EXPECT_EQ(e.step, 2u);
    ASSERT_TRUE(e.from && e.to && e.readback);
    EXPECT_EQ(e.from->count(), 81920u);
    EXPECT_EQ(e.to->count(), 98304u);
    EXPECT_EQ(e.readback->count(), 98304u);
    EXPECT_EQ(e.reason, "ramp step");
}

TEST(JournalParse, AbsentFieldsStayAbsentNeverZero) {
    const Contents c = parse_journal(line(read_only()));
    ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
    const Entry& e = c.entries[0];
    EXPECT_FALSE(e.run);
    EXPECT_FALSE(e.step);
    EXPECT_FALSE(e.from);
    EXPECT_FALSE(e.to);
    EXPECT_FALSE(e.readback);
    EXPECT_EQ(e.reason, "");
}

TEST(JournalParse, ZeroIsAValueWhenWritten) {
    const Record reset{"reset", "applied", std::nullopt, std::nullopt, 96_GiB, 0_MiB, 0_MiB, ""};
    const Contents c = parse_journal(line(reset));
    ASSERT_EQ(c.entries.size(), 1u);
    ASSERT_TRUE(c.entries[0].to);
    EXPECT_EQ(c.entries[0].to->count(), 0u);
}

TEST(JournalParse, EscapedReasonsComeBack) {
    // The writer escapes control characters; the reader turns them back into the same bytes.
    Record r = read_only();
    r.event = "refused";
    r.reason = "tab\there \"quoted\" back\\slash esc\x1b[0m line\nbreak";
    const std::string text = line(r);
    EXPECT_EQ(text.find('\x1b'), std::string::npos);
    const Contents c = parse_journal(text);
    ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
    EXPECT_EQ(c.entries[0].reason, r.reason);
}

TEST(JournalParse, EmptyTextIsAnEmptyJournal) {
    const Contents c = parse_journal("");
    EXPECT_TRUE(c.entries.empty());
    EXPECT_TRUE(c.warnings.empty());
    EXPECT_FALSE(c.torn_tail);
}

TEST(JournalParse, LineNumbersCountEveryLine) {
    const std::string text =
        line(intent(1, 0_MiB, 80_GiB)) + "garbage\n" + line(applied(1, 0_MiB, 80_GiB));
    const Contents c = parse_journal(text);
    ASSERT_EQ(c.entries.size(), 2u);
    EXPECT_EQ(c.entries[0].line, 1u);
    EXPECT_EQ(c.entries[1].line, 3u);
}

TEST(JournalParse, TornLastLineIsIgnoredAndFlagged) {
    const std::string whole = line(intent(2, 80_GiB, 96_GiB));
    const std::string torn = line(applied(2, 80_GiB, 96_GiB));
    for (std::size_t cut = 1; cut + 1 < torn.size(); ++cut) {  // every prefix without its newline
        const Contents c = parse_journal(whole + torn.substr(0, cut));
        ASSERT_EQ(c.entries.size(), 1u) << "cut at " << cut;
        EXPECT_EQ(c.entries[0].event, "intent");
        EXPECT_TRUE(c.torn_tail) << "cut at " << cut;
        EXPECT_TRUE(c.warnings.empty()) << "cut at " << cut << ": " << all(c.warnings);
    }
}

TEST(JournalParse, CompleteLastLineWithoutNewlineIsKept) {
    std::string text = line(intent(1, 0_MiB, 80_GiB));
    text.pop_back();  // the newline
    const Contents c = parse_journal(text);
    ASSERT_EQ(c.entries.size(), 1u);
    EXPECT_FALSE(c.torn_tail);
}

TEST(JournalParse, TornMiddleLineClosedByTheHelperIsSkippedWithAWarning) {
    // A crash left half a record; the helper's next append closed it with a newline first.
    const std::string torn = line(applied(2, 80_GiB, 96_GiB)).substr(0, 40) + "\n";
    const std::string text =
        line(intent(2, 80_GiB, 96_GiB)) + torn + line(intent(2, 80_GiB, 96_GiB));
    const Contents c = parse_journal(text);
    EXPECT_EQ(c.entries.size(), 2u);
    EXPECT_FALSE(c.torn_tail);
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("line 2"), std::string::npos) << c.warnings[0];
    EXPECT_NE(c.warnings[0].find("invalid JSON"), std::string::npos) << c.warnings[0];
}

TEST(JournalParse, TerminatedBadLastLineIsAWarningNotATornTail) {
    const Contents c = parse_journal(line(read_only()) + "{\"v\":1,\n");
    EXPECT_EQ(c.entries.size(), 1u);
    EXPECT_FALSE(c.torn_tail);
    EXPECT_TRUE(mentions(c.warnings, "line 2"));
}

TEST(JournalParse, UnknownSchemaVersionIsSkipped) {
    std::string v2 = line(read_only());
    v2.replace(v2.find("\"v\":1"), 5, "\"v\":2");
    const Contents c = parse_journal(line(read_only()) + v2 + line(read_only()));
    EXPECT_EQ(c.entries.size(), 2u);
    ASSERT_EQ(c.warnings.size(), 1u);
    EXPECT_NE(c.warnings[0].find("line 2"), std::string::npos);
    EXPECT_NE(c.warnings[0].find("schema version 2"), std::string::npos) << c.warnings[0];
}

TEST(JournalParse, RecordsWithBadFieldsAreSkippedWithTheirLine) {
    const char* bad[] = {
        R"({"time":"t","boot":"b","uid":1,"command":"apply","event":"intent"})",          // no v
        R"({"v":"1","time":"t","boot":"b","uid":1,"command":"apply","event":"intent"})",  // v a string
        R"({"v":1.0,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent"})",  // v not integer
        R"({"v":1,"boot":"b","uid":1,"command":"apply","event":"intent"})",               // no time
        R"({"v":1,"time":"t","uid":1,"command":"apply","event":"intent"})",               // no boot
        R"({"v":1,"time":"t","boot":"b","command":"apply","event":"intent"})",            // no uid
        R"({"v":1,"time":"t","boot":"b","uid":-1,"command":"apply","event":"intent"})",  // negative uid
        R"({"v":1,"time":"t","boot":"b","uid":1,"event":"intent"})",   // no command
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply"})",  // no event
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","run":7})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","step":-1})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","step":1.5})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","to_mib":"96GiB"})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","from_mib":null})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","reason":false})",
        // 2^44 MiB is 2^64 bytes: not a size that exists, so not a record to act on.
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","to_mib":17592186044416})",
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","readback_mib":99999999999999999999})",
        R"([1,2,3])",
        R"("just a string")",
    };
    for (const char* b : bad) {
        const Contents c = parse_journal(line(read_only()) + b + "\n" + line(read_only()));
        EXPECT_EQ(c.entries.size(), 2u) << b;
        EXPECT_EQ(c.warnings.size(), 1u) << b;
        EXPECT_TRUE(mentions(c.warnings, "line 2")) << b << "\n" << all(c.warnings);
    }
}

TEST(JournalParse, LargestMiBCountIsAccepted) {
    const Contents c = parse_journal(
        R"({"v":1,"time":"t","boot":"b","uid":1,"command":"apply","event":"intent","to_mib":17592186044415})"
        "\n");
    ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
    EXPECT_EQ(c.entries[0].to->count(), 17592186044415u);
}

TEST(JournalParse, UnknownExtraFieldsAreIgnored) {
    const Contents c = parse_journal(
        R"({"v":1,"time":"t","boot":"b","uid":0,"command":"apply","event":"intent","extra":{"x":[1]}})"
        "\n");
    ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
}

TEST(JournalParse, BlankAndNulFilledLinesAreSkippedNotFatal) {
    // After a power loss some file systems leave a block of zero bytes at the end of a file.
    const std::string text =
        line(read_only()) + "\n" + std::string(16, '\0') + "\n" + line(read_only());
    const Contents c = parse_journal(text);
    EXPECT_EQ(c.entries.size(), 2u);
    EXPECT_EQ(c.warnings.size(), 2u) << all(c.warnings);
    EXPECT_TRUE(mentions(c.warnings, "line 2"));
    EXPECT_TRUE(mentions(c.warnings, "line 3"));
    for (const auto& w : c.warnings) EXPECT_EQ(w.find('\0'), std::string::npos);
}

// ---- read_journal -----------------------------------------------------------------------------

class JournalFile : public ::testing::Test {
protected:
    void SetUp() override {
        std::string tmpl =
            (std::filesystem::temp_directory_path() / "ramp-journal-XXXXXX").string();
        ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
        dir_ = tmpl;
    }
    void TearDown() override {
        std::error_code ec;
        std::filesystem::remove_all(dir_, ec);
    }
    [[nodiscard]] std::string path(const std::string& name) const { return dir_ + "/" + name; }
    [[nodiscard]] std::string write(const std::string& name, const std::string& text) const {
        std::ofstream(path(name), std::ios::binary) << text;
        return path(name);
    }

    std::string dir_;
};

TEST_F(JournalFile, ReadsTheFileAsWritten) {
    const std::string p =
        write("journal.jsonl", line(intent(1, 0_MiB, 80_GiB)) + line(applied(1, 0_MiB, 80_GiB)) +
                                   line(applied(2, 80_GiB, 96_GiB)).substr(0, 30));
    auto c = read_journal(p);
    ASSERT_TRUE(c) << c.error().message;
    ASSERT_EQ(c->entries.size(), 2u);
    EXPECT_EQ(c->entries[1].event, "applied");
    EXPECT_TRUE(c->torn_tail);
}

void expect_same_entries(const std::vector<Entry>& a, const std::vector<Entry>& b) {
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
        EXPECT_EQ(a[i].line, b[i].line);
        EXPECT_EQ(a[i].time, b[i].time);
        EXPECT_EQ(a[i].boot, b[i].boot);
        EXPECT_EQ(a[i].command, b[i].command);
        EXPECT_EQ(a[i].event, b[i].event);
        EXPECT_EQ(a[i].run, b[i].run);
        EXPECT_EQ(a[i].step, b[i].step);
        EXPECT_EQ(a[i].from, b[i].from);
        EXPECT_EQ(a[i].to, b[i].to);
        EXPECT_EQ(a[i].readback, b[i].readback);
        EXPECT_EQ(a[i].reason, b[i].reason);
    }
}

// The reading lends each record as views into its line (EntryView) and parse_journal keeps an
// Entry of it: every field of a record with all of them comes through both ways, whether the plain
// reading read it or the full parser did (an escape in its reason), and the same back from a view
// of the Entry. The record's fields are listed once (BasicEntry) and converted between the two forms by
// position; every field here has a value no other field of its type has, so a field dropped or
// two exchanged shows. The binding below names them all: a field added to the record fails to
// compile here until this test compares it too.
TEST(JournalParse, EveryFieldComesThroughTheLentRecord) {
    [[maybe_unused]] const auto& [line_, v_, time_, boot_, uid_, command_, event_, run_, step_,
                                  from_, to_, readback_, effective_, to_pages_, page_size_,
                                  effective_source_, reason_, by_, ignore_hang_ceiling_] = Entry{};
    auto expect_every_field = [](const Entry& a, const Entry& b, const std::string& why) {
        EXPECT_EQ(a.line, b.line) << why;
        EXPECT_EQ(a.v, b.v) << why;
        EXPECT_EQ(a.time, b.time) << why;
        EXPECT_EQ(a.boot, b.boot) << why;
        EXPECT_EQ(a.uid, b.uid) << why;
        EXPECT_EQ(a.command, b.command) << why;
        EXPECT_EQ(a.event, b.event) << why;
        EXPECT_EQ(a.run, b.run) << why;
        EXPECT_EQ(a.step, b.step) << why;
        EXPECT_EQ(a.from, b.from) << why;
        EXPECT_EQ(a.to, b.to) << why;
        EXPECT_EQ(a.readback, b.readback) << why;
        EXPECT_EQ(a.effective, b.effective) << why;
        EXPECT_EQ(a.to_pages, b.to_pages) << why;
        EXPECT_EQ(a.page_size, b.page_size) << why;
        EXPECT_EQ(a.effective_source, b.effective_source) << why;
        EXPECT_EQ(a.reason, b.reason) << why;
        EXPECT_EQ(a.by, b.by) << why;
        EXPECT_EQ(a.ignore_hang_ceiling, b.ignore_hang_ceiling) << why;
    };
    const std::string head =
        R"({"v":1,"time":"2026-12-01T08:40:00Z","boot":"B","uid":501,"command":"apply",)"
        R"("event":"applied","run":"r-1","step":2,"from_mib":1,"to_mib":2,"readback_mib":3,)";
    const std::string tail =
        R"(,"effective_mib":4,"effective_source":"metal","ignore_hang_ceiling":true,"by":"set","to_pages":5,"page_size":6})";
    for (const std::string reason : {R"("reason":"plain")", R"("reason":"a \"quoted\" word")"}) {
        const std::string text = head + reason + tail;
        const auto full = parse_record(text, 1);
        ASSERT_TRUE(full) << text << ": " << full.error().message;
        ASSERT_TRUE(full->run && full->step && full->from && full->to && full->readback &&
                    full->effective && full->to_pages && full->page_size && !full->by.empty() &&
                    !full->effective_source.empty() && full->ignore_hang_ceiling);
        const Contents c = parse_journal(text + "\n");
        ASSERT_EQ(c.entries.size(), 1u) << all(c.warnings);
        expect_every_field(c.entries[0], *full, text);
        expect_every_field(to_entry(view_of(*full)), *full, "view of " + text);
    }
}

// The file is read in pieces of 64 KiB and a line may be cut between two: lines of every length
// mod 61 put the cuts at every place in a line, and the records, the skipped lines and the torn
// tail come out as from the whole text. The records are handed over one at a time, each lent
// only for the call: a sink that keeps copies gets them all.
TEST_F(JournalFile, LinesCutBetweenThePiecesOfTheReadingReadAsTheWholeText) {
    std::string text;
    for (std::size_t i = 0; text.size() < (std::size_t{5} << 16); ++i) {
        Record r = i % 2 == 0 ? intent(i, 64_GiB, 80_GiB) : applied(i, 64_GiB, 80_GiB);
        r.reason = std::string(i % 61, 'x');
        if (i % 97 == 0) r.reason += "\"quoted\"";  // an escape: the full parser's line
        text += line(r);
        if (i % 89 == 0) text += "{\"v\":1,\"time\":\n";  // a torn line the helper closed
    }
    text += line(applied(1, 0_MiB, 80_GiB)).substr(0, 40);  // and a torn tail
    const std::string p = write("journal.jsonl", text);
    const Contents whole = parse_journal(text);
    ASSERT_TRUE(whole.torn_tail);
    ASSERT_FALSE(whole.warnings.empty());

    auto read = read_journal(p);
    ASSERT_TRUE(read) << read.error().message;
    expect_same_entries(read->entries, whole.entries);
    EXPECT_EQ(read->warnings, whole.warnings);
    EXPECT_TRUE(read->torn_tail);

    std::vector<Entry> lent;
    auto notes = read_journal(p, [&](const EntryView& e) { lent.push_back(to_entry(e)); });
    ASSERT_TRUE(notes) << notes.error().message;
    expect_same_entries(lent, whole.entries);
    EXPECT_EQ(notes->warnings, whole.warnings);
}

TEST_F(JournalFile, MissingFileIsAnEmptyJournal) {
    auto c = read_journal(path("never-written.jsonl"));
    ASSERT_TRUE(c) << c.error().message;
    EXPECT_TRUE(c->entries.empty());
    EXPECT_TRUE(c->warnings.empty());
    EXPECT_FALSE(c->torn_tail);
}

TEST_F(JournalFile, DirectoryIsRefused) {
    auto c = read_journal(dir_);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("not a regular file"), std::string::npos) << c.error().message;
}

TEST_F(JournalFile, SymbolicLinkIsRefused) {
    const std::string target = write("real.jsonl", line(read_only()));
    ASSERT_EQ(::symlink(target.c_str(), path("link.jsonl").c_str()), 0);
    auto c = read_journal(path("link.jsonl"));
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("symbolic link"), std::string::npos) << c.error().message;
}

TEST_F(JournalFile, FifoIsRefusedWithoutWaitingForAWriter) {
    const std::string fifo = path("fifo");
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    // In a child with an alarm: if the open waited for a writer, the alarm kills the child
    // and the test fails instead of hanging the suite.
    EXPECT_EXIT(
        {
            ::alarm(5);
            auto c = read_journal(fifo);
            if (c) std::_Exit(1);
            std::cerr << c.error().message;
            std::_Exit(0);
        },
        ::testing::ExitedWithCode(0), "not a regular file");
}

TEST_F(JournalFile, OversizedFileIsRefusedWithAClearError) {
    const std::string p = path("huge.jsonl");
    {
        const int fd = ::open(p.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
        ASSERT_GE(fd, 0);
        ASSERT_EQ(::ftruncate(fd, (off_t{64} << 20) + 1), 0);  // sparse: costs no disk
        ::close(fd);
    }
    auto c = read_journal(p);
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("larger than 64 MiB"), std::string::npos) << c.error().message;
}

TEST_F(JournalFile, PathThroughAFileIsAnErrorNotAnEmptyJournal) {
    // Only "does not exist" means "nothing was ever recorded"; any other failure is reported.
    const std::string file = write("plain", "x");
    auto c = read_journal(file + "/journal.jsonl");
    ASSERT_FALSE(c);
    EXPECT_NE(c.error().message.find("cannot open the journal"), std::string::npos)
        << c.error().message;
}

// Root reads any file, so as root the reading is made by a child that has become nobody: the
// test runs, and checks the same refusal, whoever runs the suite.
TEST_F(JournalFile, UnreadableFileIsAnError) {
    const std::string p = write("locked.jsonl", line(read_only()));
    ASSERT_EQ(::chmod(p.c_str(), 0), 0);
    const auto refused = [&p] {
        auto c = read_journal(p);
        if (c) return std::string("read");
        return c.error().message;
    };
    if (::geteuid() != 0) {
        const std::string message = refused();
        EXPECT_NE(message.find("cannot open"), std::string::npos) << message;
        return;
    }
    // Only the file's mode may keep nobody out, not the directory's (mkdtemp makes it 0700).
    ASSERT_EQ(::chmod(dir_.c_str(), 0755), 0);
    const pid_t child = ::fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        constexpr uid_t nobody = 65534;
        if (::setgid(nobody) != 0 || ::setuid(nobody) != 0) ::_exit(2);
        const bool ok = refused().find("cannot open") != std::string::npos;
        ::_exit(ok ? 0 : 1);
    }
    int status = 0;
    ASSERT_EQ(::waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0)
        << "1: nobody read a file of mode 0, or the error did not say "
           "'cannot open'; 2: could not become nobody";
}

}  // namespace
}  // namespace wiredcap::journal_view
