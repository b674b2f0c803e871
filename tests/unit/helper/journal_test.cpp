// The journal (docs/design.md sections 6 and 8): append-only JSON lines, schema v1, one write and
// one flush per record, opened and checked like a trusted file.
#include "wiredcap/helper/journal/journal.hpp"

#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <ctime>
#include <regex>
#include <string>
#include <vector>

#include "../temp_tree.hpp"
#include "wiredcap/units/literals.hpp"

namespace wiredcap::journal {
namespace {

// One record through the Writer, as Action::record writes it.
Expected<Ok> append(Writer& w, const Record& r, const Stamp& s) {
    return w.append_line(to_json_line(r, s, static_cast<std::int64_t>(std::time(nullptr))), s.uid);
}

using namespace units::literals;
using test::error_of;

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> out;
    std::size_t start = 0;
    while (start < text.size()) {
        const auto nl = text.find('\n', start);
        if (nl == std::string::npos) {
            out.push_back(text.substr(start));
            break;
        }
        out.push_back(text.substr(start, nl - start));
        start = nl + 1;
    }
    return out;
}

// A whole record as to_json_line writes it.
bool is_record(const std::string& line) {
    return line.rfind("{\"v\":1,\"time\":\"", 0) == 0 && !line.empty() && line.back() == '}';
}

std::string utc_now() {
    const std::time_t t = std::time(nullptr);
    struct tm tm {};
    ::gmtime_r(&t, &tm);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
    return buf;
}

Record full_record() {
    return Record{"apply", "intent", std::string("run-42"), 2, 64_GiB, 96_GiB, 96_GiB, "ramp step"};
}

Record minimal_record() {
    return Record{"read",       "read",       std::nullopt, std::nullopt,
                  std::nullopt, std::nullopt, std::nullopt, ""};
}

const Stamp kStamp{"6f0e2c1a-boot", 501};

// Sets the umask for one test and restores it afterwards.
class ScopedUmask {
public:
    explicit ScopedUmask(mode_t m) : old_(::umask(m)) {}
    ~ScopedUmask() { ::umask(old_); }
    ScopedUmask(const ScopedUmask&) = delete;
    ScopedUmask& operator=(const ScopedUmask&) = delete;

private:
    mode_t old_;
};

mode_t mode_of(const std::string& path) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0) return 0;
    return st.st_mode;
}

// --- the line format -----------------------------------------------------------------------

TEST(JournalLine, FullRecordHasEveryFieldInOrder) {
    EXPECT_EQ(
        to_json_line(full_record(), kStamp, 1795941600),
        "{\"v\":1,\"time\":\"2026-11-29T08:40:00Z\",\"boot\":\"6f0e2c1a-boot\",\"uid\":501,"
        "\"command\":\"apply\",\"event\":\"intent\",\"run\":\"run-42\",\"step\":2,"
        "\"from_mib\":65536,\"to_mib\":98304,\"readback_mib\":98304,\"reason\":\"ramp step\"}\n");
}

TEST(JournalLine, AbsentOptionalsAreOmittedNotZero) {
    const std::string line = to_json_line(minimal_record(), kStamp, 0);
    EXPECT_EQ(line,
              "{\"v\":1,\"time\":\"1970-01-01T00:00:00Z\",\"boot\":\"6f0e2c1a-boot\",\"uid\":501,"
              "\"command\":\"read\",\"event\":\"read\"}\n");
    for (const char* key :
         {"\"run\"", "\"step\"", "\"from_mib\"", "\"to_mib\"", "\"readback_mib\"", "\"reason\""})
        EXPECT_NOT_CONTAINS(line, key);
}

TEST(JournalLine, PresentZeroIsWrittenAsZero) {
    // 0 MiB read back is the OS default: a reading, which must be kept apart from "not read".
    Record r = minimal_record();
    r.command = "reset";
    r.event = "applied";
    r.from = 96_GiB;
    r.to = 0_MiB;
    r.readback = 0_MiB;
    const std::string line = to_json_line(r, kStamp, 0);
    EXPECT_CONTAINS(line, "\"from_mib\":98304,\"to_mib\":0,\"readback_mib\":0");
    EXPECT_NOT_CONTAINS(line, "\"run\"");
}

TEST(JournalLine, ReasonIsEscapedToPureAscii) {
    Record r = minimal_record();
    r.reason =
        "evil\n{\"v\":1}\r\x1b[31m\x07\t\x7f caf\xc3\xa9 \"q\" \\ " + std::string(1, '\0') + "end";
    const std::string line = to_json_line(r, kStamp, 0);
    ASSERT_FALSE(line.empty());
    EXPECT_EQ(line.back(), '\n');
    for (std::size_t i = 0; i + 1 < line.size(); ++i) {
        const auto c = static_cast<unsigned char>(line[i]);
        EXPECT_TRUE(c >= 0x20 && c < 0x7f)
            << "raw byte 0x" << std::hex << unsigned{c} << " at " << std::dec << i;
    }
    EXPECT_CONTAINS(
        line,
        "\"reason\":\"evil\\n{\\\"v\\\":1}\\r\\u001b[31m\\u0007\\t\\u007f caf\\u00c3\\u00a9 "
        "\\\"q\\\" \\\\ \\u0000end\"");
}

TEST(JournalLine, BootIdIsEscapedToo) {
    const std::string line = to_json_line(minimal_record(), Stamp{"boot\nid", 0}, 0);
    EXPECT_CONTAINS(line, "\"boot\":\"boot\\nid\"");
    EXPECT_EQ(line.find('\n'), line.size() - 1);
}

// --- opening -------------------------------------------------------------------------------

class JournalFile : public ::testing::Test {
protected:
    void SetUp() override { journal_ = tree_.dir("journal") + "/journal.jsonl"; }

    [[nodiscard]] static Expected<Writer> open(const std::string& path) {
        return Writer::open(path, ::geteuid());
    }

    // Opens the journal in a child process with a 2 s deadline: "ok" or "error:<message>".
    [[nodiscard]] static test::ChildResult open_in_child(const std::string& path) {
        return test::run_in_child([path]() -> std::string {
            auto w = Writer::open(path, ::geteuid());
            return w ? "ok" : "error:" + w.error().message;
        });
    }

    test::TempTree tree_;
    std::string journal_;
};

TEST_F(JournalFile, OpenCreatesTheFileWithMode0644) {
    ScopedUmask mask(022);
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    const mode_t m = mode_of(journal_);
    EXPECT_TRUE(S_ISREG(m));
    EXPECT_EQ(m & 07777, 0644U);
}

TEST_F(JournalFile, OpenCreatesMode0644EvenWithUmask000) {
    ScopedUmask mask(0);
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    EXPECT_EQ(mode_of(journal_) & 07777, 0644U);
}

TEST_F(JournalFile, OpenCreatesAMissingJournalDirectory0755) {
    ScopedUmask mask(0);
    const std::string dir = tree_.path("var-lib-wiredcap");
    auto w = open(dir + "/journal.jsonl");
    ASSERT_TRUE(w) << error_of(w);
    const mode_t dm = mode_of(dir);
    EXPECT_TRUE(S_ISDIR(dm));
    EXPECT_EQ(dm & 07777, 0755U);
    EXPECT_EQ(mode_of(dir + "/journal.jsonl") & 07777, 0644U);
}

TEST_F(JournalFile, OpenDoesNotCreateMoreThanOneMissingDirectory) {
    auto w = open(tree_.path("a/b/journal.jsonl"));
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "does not exist");
    EXPECT_EQ(mode_of(tree_.path("a")), 0U);
}

TEST_F(JournalFile, ExistingJournalIsAppendedToNotTruncated) {
    tree_.file("journal/journal.jsonl", "{\"v\":1,\"old\":true}\n");
    {
        auto w = open(journal_);
        ASSERT_TRUE(w) << error_of(w);
        auto a = append(*w, minimal_record(), kStamp);
        ASSERT_TRUE(a) << error_of(a);
    }
    const auto lines = lines_of(test::TempTree::slurp(journal_));
    ASSERT_EQ(lines.size(), 2U);
    EXPECT_EQ(lines[0], "{\"v\":1,\"old\":true}");
}

TEST_F(JournalFile, SymlinkIsRefused) {
    const auto target = tree_.file("journal/real.jsonl", "");
    ASSERT_EQ(::symlink(target.c_str(), journal_.c_str()), 0);
    auto w = open(journal_);
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "symbolic link");
}

TEST_F(JournalFile, DanglingSymlinkIsRefusedAndNotFollowed) {
    const std::string target = tree_.path("journal/created-through-link");
    ASSERT_EQ(::symlink(target.c_str(), journal_.c_str()), 0);
    auto w = open(journal_);
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "symbolic link");
    EXPECT_EQ(mode_of(target), 0U) << "O_CREAT followed the link";
}

// Another name for the journal (anyone can make one on macOS) does not stop the helper.
TEST_F(JournalFile, HardLinkedJournalIsStillWritten) {
    tree_.file("journal/journal.jsonl", "");
    ASSERT_EQ(::link(journal_.c_str(), tree_.path("other").c_str()), 0);
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
}

TEST_F(JournalFile, GroupWritableJournalIsRefused) {
    tree_.file("journal/journal.jsonl", "", 0664);
    auto w = open(journal_);
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "writable by group or others");
}

TEST_F(JournalFile, JournalOwnedByAnotherUidIsRefused) {
    if (!test::running_as_root()) GTEST_SKIP() << "needs root to chown a file to another uid";
    tree_.file("journal/journal.jsonl", "");
    ASSERT_EQ(::chown(journal_.c_str(), 65534, 65534), 0);
    auto w = open(journal_);
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "owned by uid 65534");
}

TEST_F(JournalFile, JournalInInsecureDirectoryIsRefused) {
    ::chmod(tree_.path("journal").c_str(), 0777);
    auto w = open(journal_);
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w),
                    "directory " + tree_.path("journal") + " is writable by group or others");
    EXPECT_EQ(mode_of(journal_), 0U) << "the journal was created in an insecure directory";
}

TEST_F(JournalFile, MissingJournalDirectoryUnderInsecureParentIsNotCreated) {
    tree_.dir("open", 0777);
    auto w = open(tree_.path("open/wiredcap/journal.jsonl"));
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), tree_.path("open"));
    EXPECT_EQ(mode_of(tree_.path("open/wiredcap")), 0U);
}

TEST_F(JournalFile, RelativePathIsRefused) {
    auto w = open("journal.jsonl");
    ASSERT_FALSE(w);
    EXPECT_CONTAINS(error_of(w), "not an absolute path");
}

TEST_F(JournalFile, DirectoryIsRefusedWithoutHanging) {
    tree_.dir("journal/journal.jsonl");
    const auto r = open_in_child(journal_);
    ASSERT_TRUE(r.finished) << "Writer::open blocked";
    EXPECT_CONTAINS(r.output, "error:");
    EXPECT_CONTAINS(r.output, journal_);
}

TEST_F(JournalFile, FifoIsRefusedWithoutHanging) {
    ASSERT_EQ(::mkfifo(journal_.c_str(), 0644), 0);
    const auto r = open_in_child(journal_);
    ASSERT_TRUE(r.finished) << "Writer::open blocked on a FIFO";
    EXPECT_CONTAINS(r.output, "error:");
    EXPECT_CONTAINS(r.output, "not a regular file");
}

// --- appending -----------------------------------------------------------------------------

TEST_F(JournalFile, EachAppendIsExactlyOneLine) {
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    ASSERT_TRUE(append(*w, full_record(), kStamp));
    const std::string after_one = test::TempTree::slurp(journal_);
    ASSERT_FALSE(after_one.empty());
    EXPECT_EQ(after_one.find('\n'), after_one.size() - 1) << after_one;

    ASSERT_TRUE(append(*w, minimal_record(), kStamp));
    ASSERT_TRUE(append(*w, full_record(), kStamp));
    const std::string text = test::TempTree::slurp(journal_);
    ASSERT_EQ(text.back(), '\n');
    const auto lines = lines_of(text);
    ASSERT_EQ(lines.size(), 3U);
    for (const auto& l : lines) EXPECT_TRUE(is_record(l)) << l;
    EXPECT_CONTAINS(lines[0], "\"event\":\"intent\"");
    EXPECT_CONTAINS(lines[1], "\"command\":\"read\"");
}

TEST_F(JournalFile, AppendedRecordCarriesSchemaStampAndUtcTime) {
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    const std::string before = utc_now();
    ASSERT_TRUE(append(*w, full_record(), kStamp));
    const std::string after = utc_now();
    const auto lines = lines_of(test::TempTree::slurp(journal_));
    ASSERT_EQ(lines.size(), 1U);
    const std::string& l = lines[0];
    EXPECT_EQ(l.rfind("{\"v\":1,\"time\":\"", 0), 0U) << l;
    std::smatch m;
    ASSERT_TRUE(std::regex_search(
        l, m, std::regex("\"time\":\"(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}Z)\"")))
        << l;
    EXPECT_GE(m[1].str(), before);
    EXPECT_LE(m[1].str(), after);
    EXPECT_CONTAINS(l, "\"boot\":\"6f0e2c1a-boot\",\"uid\":501");
    EXPECT_CONTAINS(
        l,
        "\"run\":\"run-42\",\"step\":2,\"from_mib\":65536,\"to_mib\":98304,\"readback_mib\":98304");
}

TEST_F(JournalFile, AppendedLineIsPureAscii) {
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    Record r = minimal_record();
    r.reason = "line\nbreak\x1b]0;title\x07 \xff\xfe";
    ASSERT_TRUE(append(*w, r, kStamp));
    const std::string text = test::TempTree::slurp(journal_);
    ASSERT_FALSE(text.empty());
    EXPECT_EQ(text.find('\n'), text.size() - 1);
    for (std::size_t i = 0; i + 1 < text.size(); ++i) {
        const auto c = static_cast<unsigned char>(text[i]);
        EXPECT_TRUE(c >= 0x20 && c < 0x7f)
            << "raw byte 0x" << std::hex << unsigned{c} << " at " << std::dec << i;
    }
}

TEST_F(JournalFile, TornLastLineIsClosedBeforeTheNextRecord) {
    const std::string torn = "{\"v\":1,\"time\":\"2026-11-29T08:40:00Z\",\"ev";
    tree_.file("journal/journal.jsonl", "{\"v\":1}\n" + torn);
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    ASSERT_TRUE(append(*w, minimal_record(), kStamp));
    ASSERT_TRUE(append(*w, minimal_record(), kStamp));
    const std::string text = test::TempTree::slurp(journal_);
    const auto lines = lines_of(text);
    ASSERT_EQ(lines.size(), 4U) << text;
    EXPECT_EQ(lines[1], torn);
    EXPECT_TRUE(is_record(lines[2])) << lines[2];
    EXPECT_TRUE(is_record(lines[3])) << lines[3];
    EXPECT_EQ(text.back(), '\n');
}

TEST_F(JournalFile, NoBlankLineIsAddedAfterAWholeLastLine) {
    tree_.file("journal/journal.jsonl", "{\"v\":1}\n");
    auto w = open(journal_);
    ASSERT_TRUE(w) << error_of(w);
    ASSERT_TRUE(append(*w, minimal_record(), kStamp));
    const std::string text = test::TempTree::slurp(journal_);
    EXPECT_EQ(text.find("\n\n"), std::string::npos) << text;
    EXPECT_EQ(lines_of(text).size(), 2U);
}

TEST_F(JournalFile, AppendUnderTinyFileSizeLimitFails) {
    const std::string path = journal_;
    const auto r = test::run_in_child([path]() -> std::string {
        std::signal(SIGXFSZ, SIG_IGN);
        auto w = Writer::open(path, ::geteuid());
        if (!w) return "open-error:" + w.error().message;
        struct rlimit lim {
            16, 16
        };
        if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return "setrlimit failed";
        auto a = append(*w, full_record(), kStamp);
        return a ? "appended" : "error:" + a.error().message;
    });
    ASSERT_TRUE(r.finished);
    EXPECT_EQ(r.output.rfind("error:", 0), 0U) << r.output;
    EXPECT_CONTAINS(r.output, "cannot write the journal");
}

// The limit is measured against what the journal already holds: a record that fits an empty
// file but not after the records there is refused whole, and the journal keeps no part of it.
TEST_F(JournalFile, AppendPastTheFileSizeLimitAfterTheRecordsThereFailsWhole) {
    const std::string path = journal_;
    const auto r = test::run_in_child([path]() -> std::string {
        std::signal(SIGXFSZ, SIG_IGN);
        auto w = Writer::open(path, ::geteuid());
        if (!w || !append(*w, full_record(), kStamp)) return "first append failed";
        const auto one = static_cast<rlim_t>(test::TempTree::slurp(path).size());
        struct rlimit lim {
            one + one / 2, one + one / 2
        };
        if (::setrlimit(RLIMIT_FSIZE, &lim) != 0) return "setrlimit failed";
        auto a = append(*w, full_record(), kStamp);
        return a ? "appended" : "error:" + a.error().message;
    });
    ASSERT_TRUE(r.finished);
    EXPECT_CONTAINS(r.output, "RLIMIT_FSIZE");
    EXPECT_EQ(lines_of(test::TempTree::slurp(journal_)).size(), 1U)
        << "no part of the refused record";
}

// --- a write cut short --------------------------------------------------------------------------

class TakeBack : public ::testing::Test {
protected:
    // The journal after a write of kLine was cut short: `kBefore`, then whatever `after` is.
    std::string run(const std::string& after) {
        const std::string path = tree_.file("j", kBefore + after);
        UniqueFd fd(::open(path.c_str(), O_RDWR | O_CLOEXEC));
        take_back_partial_write(fd.get(), static_cast<off_t>(kBefore.size()), kLine);
        return test::TempTree::slurp(path);
    }
    const std::string kBefore = "{\"v\":1,\"event\":\"applied\"}\n";
    // A record as long as the helper's (longer than a part of it and another record together).
    const std::string kLine =
        "{\"v\":1,\"time\":\"2026-11-29T08:40:00Z\",\"boot\":\"A06B7C1E-59D4-4B2B-9C4A-"
        "1D2E3F405162\",\"uid\":501,\"command\":\"apply\",\"event\":\"intent\",\"run\":\"r-1\","
        "\"step\":2,\"from_mib\":81920,\"to_mib\":98304}\n";
    test::TempTree tree_;
};

TEST_F(TakeBack, OnlyThisHelpersPartIsTakenBack) { EXPECT_EQ(run(kLine.substr(0, 12)), kBefore); }

TEST_F(TakeBack, ARecordAppendedAfterThePartIsNotCut) {
    // A reset that went on without the lock wrote its record after the part.
    const std::string reset = "{\"v\":1,\"command\":\"reset\",\"event\":\"applied\"}\n";
    ASSERT_LT(12 + reset.size(), kLine.size());
    EXPECT_EQ(run(kLine.substr(0, 12) + reset), kBefore + kLine.substr(0, 12) + reset);
    EXPECT_EQ(run(reset), kBefore + reset) << "nothing of this helper's was written";
}

TEST_F(TakeBack, NothingWrittenNothingCut) { EXPECT_EQ(run(""), kBefore); }

}  // namespace
}  // namespace wiredcap::journal
