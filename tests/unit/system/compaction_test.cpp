// Journal compaction (system/include/wiredcap/system/journal/compaction.hpp, wiredcap-system's upkeep.hpp): what is kept, and the file swap. That no
// reader's answer changes is tests/unit/system/compaction_equivalence_test.cpp's, which links the
// CLI's recovery too.
#include "wiredcap/system/journal/compaction.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <ctime>
#include <string>

#include <gtest/gtest.h>

#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/system/journal/pages_record.hpp"
#include "wiredcap/system/journal/upkeep.hpp"
#include "../temp_tree.hpp"

namespace wiredcap::journal {
namespace {

// One record through the Writer, as Action::record writes it.
Expected<Ok> append(Writer& w, const Record& r, const Stamp& s) {
    return w.append_line(to_json_line(r, s, static_cast<std::int64_t>(std::time(nullptr))), s.uid);
}

using units::MiB;

MiB mib(std::uint64_t n) { return MiB::from_count_or_throw(n); }

// One record in the helper's own format.
std::string rec(const std::string& boot, const std::string& command, const std::string& event,
                std::optional<std::string> run = std::nullopt,
                std::optional<std::uint64_t> step = std::nullopt,
                std::optional<std::uint64_t> to = std::nullopt,
                std::optional<std::uint64_t> back = std::nullopt, const std::string& reason = {}) {
    Record r{command,
             event,
             std::move(run),
             step,
             std::nullopt,
             to ? std::optional(mib(*to)) : std::nullopt,
             back ? std::optional(mib(*back)) : std::nullopt,
             reason};
    return to_json_line(r, Stamp{boot, 501}, 1796113200);
}

// A two-step ramp in `boot` that a person confirmed at each step and that ended completed.
std::string completed_run(const std::string& boot, const std::string& run, std::uint64_t a,
                          std::uint64_t b) {
    return rec(boot, "apply", "intent", run, 1, a) + rec(boot, "apply", "applied", run, 1, a, a) +
           rec(boot, "confirm", "confirmed", run, 1, std::nullopt, a) +
           rec(boot, "apply", "intent", run, 2, b) + rec(boot, "apply", "applied", run, 2, b, b) +
           rec(boot, "confirm", "confirmed", run, 2, std::nullopt, b) +
           rec(boot, "end", "end", run, std::nullopt, std::nullopt, b, "completed");
}

std::string plain_reset(const std::string& boot) {
    return rec(boot, "reset", "intent", std::nullopt, std::nullopt, 0) +
           rec(boot, "reset", "applied", std::nullopt, std::nullopt, 0, 0);
}

TEST(CompactionDue, OnlyPastTheThreshold) {
    EXPECT_FALSE(compaction_due(300));
    EXPECT_FALSE(compaction_due(kCompactFrom - 1));
    EXPECT_TRUE(compaction_due(kCompactFrom));
    EXPECT_TRUE(compaction_due(std::size_t{70} << 20));  // a journal from before compaction
}

TEST(Compaction, AClosedRunIsDroppedAndItsLatestConfirmationsKeepTheirRun) {
    const std::string text =
        completed_run("B1", "r1", 81920, 98304) + completed_run("B1", "r2", 81920, 114688) +
        completed_run("B1", "r3", 98304, 114688) + completed_run("B1", "r4", 81920, 98304);
    const std::string kept = compact_text(text, 0);
    // r4 holds the latest 80 and 96 GiB confirmations (and the latest of all); r3 the latest of
    // 112 GiB. r1 and r2 hold none and are closed.
    EXPECT_NOT_CONTAINS(kept, "\"run\":\"r1\"");
    EXPECT_NOT_CONTAINS(kept, "\"run\":\"r2\"");
    EXPECT_EQ(kept,
              completed_run("B1", "r3", 98304, 114688) + completed_run("B1", "r4", 81920, 98304));
}

TEST(Compaction, ARunThatHungOrNeverEndedOrIsAtRiskIsKeptWhole) {
    const std::string hung = rec("B1", "apply", "intent", "h", 1, 81920) +
                             rec("B1", "apply", "applied", "h", 1, 81920, 81920) +
                             rec("B2", "end", "end", "h", std::nullopt, std::nullopt, 0, "hung");
    const std::string open = rec("B2", "apply", "intent", "o", 1, 81920) +
                             rec("B2", "apply", "applied", "o", 1, 81920, 81920);
    // Ended, but its step was applied again after the revert: still at risk by its own records.
    const std::string at_risk =
        rec("B2", "apply", "applied", "a", 1, 81920, 81920) +
        rec("B2", "apply", "revert_applied", "a", 1, 0, 0, "no") +
        rec("B2", "apply", "mismatch", "a", 1, 81920, 0) +
        rec("B2", "end", "end", "a", std::nullopt, std::nullopt, 0, "reverted");
    const std::string text = completed_run("B0", "old", 73728, 81920) + hung + open + at_risk +
                             completed_run("B2", "new", 73728, 81920);
    EXPECT_EQ(compact_text(text, 0),
              hung + open + at_risk + completed_run("B2", "new", 73728, 81920));
}

TEST(Compaction, BootPersistAndResetsThatSettleAKeptRunAreKept) {
    const std::string boot = rec("B1", "boot", "intent", std::nullopt, std::nullopt, 81920) +
                             rec("B1", "boot", "tripped", std::nullopt, std::nullopt, 81920);
    const std::string store = rec("B1", "persist", "persisted", std::nullopt, std::nullopt, 81920);
    const std::string set = rec("B1", "apply", "applied", std::nullopt, std::nullopt, 81920, 81920);
    const std::string at_risk = rec("B3", "apply", "applied", "k", 1, 81920, 81920);
    const std::string text = plain_reset("B3") /* before the kept run: settles nothing of it */ +
                             boot + store + set + plain_reset("B2") /* a boot with no kept run */ +
                             at_risk + plain_reset("B3") + "{\"v\":1,\"torn\n" + "not json\n";
    // The set stays too: a write outside a ramp is a hang if never read back, or a suspect.
    EXPECT_EQ(
        compact_text(text, 0),
        boot + store + set + at_risk + plain_reset("B3").substr(plain_reset("B3").find('\n') + 1));
}

// Linux's trials (wiredcap-system ttm-*): their outcomes stay (a hang binds after a compaction as
// before it) and the latest trial whole; an earlier trial's steps and every refusal go.
TEST(Compaction, LinuxOutcomesAndTheLatestTrialStay) {
    auto linux_rec = [](const std::string& command, const std::string& event) {
        const Record r{command,      event,        std::nullopt, std::nullopt,
                       std::nullopt, std::nullopt, std::nullopt, ""};
        return to_json_line(r, PagesFields{"", 26214400, std::nullopt, 4096}, Stamp{"B1", 0},
                            1796113200);
    };
    const std::string first =
        linux_rec("ttm-trial", "intent") + linux_rec("ttm-trial", "trial-scheduled") +
        linux_rec("ttm-after-boot", "trial-booted") + linux_rec("ttm-confirm", "intent");
    const std::string outcomes = linux_rec("ttm-confirm", "made-default") +
                                 linux_rec("ttm-after-boot", "hung") +
                                 linux_rec("ttm-forget-hang", "forgotten");
    const std::string latest = linux_rec("ttm-trial", "intent") +
                               linux_rec("ttm-trial", "trial-scheduled") +
                               linux_rec("ttm-reset", "intent") + linux_rec("ttm-reset", "reset");
    const std::string refused = linux_rec("ttm-trial", "refused");
    EXPECT_EQ(compact_text(refused + first + outcomes + latest + refused, 0), outcomes + latest);
    EXPECT_EQ(compact_text(first + outcomes + latest, 1000), first + outcomes + latest)
        << "recent: all stay";
}

TEST(Compaction, TheMostRecentRecordsStayAndEveryRunTheyTouchStaysWhole) {
    const std::string old = completed_run("B1", "r1", 73728, 81920) +
                            completed_run("B1", "r2", 73728, 81920) +
                            completed_run("B1", "r3", 73728, 81920);
    // A reset in a boot with no kept run: kept only as a recent record.
    const std::string set = rec("B2", "reset", "applied", std::nullopt, std::nullopt, 0, 0);
    // The last 3 records: r3's last two and the reset. r3 is kept whole, r1 and r2 are not.
    EXPECT_EQ(compact_text(old + set, 3), completed_run("B1", "r3", 73728, 81920) + set);
    // Without the recent records, r3 still stays: it holds the latest confirmations.
    EXPECT_EQ(compact_text(old + set, 0), completed_run("B1", "r3", 73728, 81920));
    EXPECT_EQ(compact_text(old + set + "not a record\n", 1),
              completed_run("B1", "r3", 73728, 81920))
        << "a recent line that is not a record is not kept";
}

// A run with no end, nothing at risk, last seen in an earlier boot is closed as
// abandoned, its closing record in its last record's place; a run at risk (a hang, in an earlier
// boot) or of this boot stays whole and open.
TEST(Compaction, AnAbandonedRunIsClosedAndARunAtRiskOrOfThisBootIsNot) {
    const std::string idle = rec("B1", "apply", "intent", "idle", 1, 90112) +
                             rec("B1", "apply", "applied", "idle", 1, 90112, 90112) +
                             rec("B1", "confirm", "confirmed", "idle", 1, std::nullopt, 90112);
    const std::string refused_only = rec("B1", "apply", "refused", "ref", 1, 81920);
    const std::string hang = rec("B1", "apply", "intent", "hang", 1, 98304) +
                             rec("B1", "apply", "applied", "hang", 1, 98304, 98304);
    const std::string now_idle = rec("B2", "apply", "applied", "now", 1, 73728, 73728) +
                                 rec("B2", "confirm", "confirmed", "now", 1, std::nullopt, 73728);
    const std::string later = completed_run("B2", "last", 73728, 81920);
    const std::string text = idle + refused_only + hang + now_idle + later;
    const Closer closer{"B2", 1796200000};
    auto closing = [&](const std::string& run) {
        return to_json_line(Record{"end", "end", run, std::nullopt, std::nullopt, std::nullopt,
                                   std::nullopt, "abandoned"},
                            Stamp{"B2", 0}, 1796200000);
    };
    // "idle" holds the latest 88 GiB confirmation: kept, now closed; "ref" dropped, its closing
    // record alone stays until the next compaction.
    const std::string kept = compact_text(text, 0, closer);
    EXPECT_EQ(kept, idle + closing("idle") + closing("ref") + hang + now_idle + later);
    // Compacted again, the closed run that holds nothing goes: only its closing record was left.
    EXPECT_EQ(compact_text(kept, 0, closer), idle + closing("idle") + hang + now_idle + later);
    // Without a known boot no reboot is proved, and nothing is closed.
    EXPECT_EQ(compact_text(text, 0, Closer{"unknown", 1796200000}), text);
    EXPECT_EQ(compact_text(text, 0), text);
    // A run with a record among the recent ones is closed at a later compaction.
    EXPECT_EQ(compact_text(text, later.size() / 80 + 10, closer).find("abandoned"),
              std::string::npos);
}

TEST(Compaction, ATornLastLineIsNotCarried) {
    const std::string text =
        rec("B1", "apply", "intent", "k", 1, 81920) + "{\"v\":1,\"time\":\"2026";
    EXPECT_EQ(compact_text(text, 0), rec("B1", "apply", "intent", "k", 1, 81920));
}

// --- the file ----------------------------------------------------------------------------------

class CompactionFile : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = tree_.dir("journal");
        path_ = dir_ + "/journal.jsonl";
    }
    [[nodiscard]] UniqueFd open_dir() const {
        return UniqueFd(::open(dir_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
    }
    // Another helper compacts the journal now, as it would under its lock.
    void compact_now() const {
        UniqueFd dir = open_dir();
        UniqueFd fd(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
        auto c = compact_journal(dir.get(), fd.get(), "journal.jsonl", path_);
        ASSERT_TRUE(c) << test::error_of(c);
    }

    test::TempTree tree_;
    std::string dir_, path_;
};

TEST_F(CompactionFile, TheOldJournalIsTheArchiveAndTheNewHoldsWhatIsKept) {
    std::string old;
    for (int i = 0; i < 2000; ++i)
        old += completed_run("B1", "r" + std::to_string(i), 73728, 81920) + plain_reset("B1");
    const std::string open = rec("B1", "apply", "applied", "open", 1, 98304, 98304);
    old += open;
    tree_.file("journal/journal.jsonl", old);
    UniqueFd dir = open_dir();
    UniqueFd fd(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    auto c = compact_journal(dir.get(), fd.get(), "journal.jsonl", path_);
    ASSERT_TRUE(c) << test::error_of(c);
    EXPECT_EQ(c->records, 2000u * 9 + 1);
    EXPECT_EQ(test::TempTree::slurp(dir_ + "/journal.jsonl.1"), old);
    const std::string now = test::TempTree::slurp(path_);
    EXPECT_EQ(now, compact_text(old));
    EXPECT_EQ(c->kept, static_cast<std::size_t>(std::count(now.begin(), now.end(), '\n')));
    EXPECT_LT(now.size(), old.size() / 10);
    struct stat st {};
    ASSERT_EQ(::stat(path_.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0644u);
    EXPECT_NE(::access((dir_ + "/journal.jsonl.compact").c_str(), F_OK), 0);
    EXPECT_NE(::access((dir_ + "/journal.jsonl.1.new").c_str(), F_OK), 0);
    // The descriptor handed back appends to the journal now in place.
    ASSERT_EQ(::write(c->journal.get(), "x\n", 2), 2);
    EXPECT_EQ(test::TempTree::slurp(path_), now + "x\n");
}

TEST_F(CompactionFile, ALeftoverOfACompactionCutShortIsReplaced) {
    tree_.file("journal/journal.jsonl", rec("B1", "apply", "applied", "open", 1, 98304, 98304));
    tree_.file("journal/journal.jsonl.compact", "half a compaction\n");
    tree_.file("journal/journal.jsonl.1.new", "half an archive\n");
    compact_now();
    EXPECT_EQ(test::TempTree::slurp(path_), rec("B1", "apply", "applied", "open", 1, 98304, 98304));
}

// A helper's append never compacts (its caller's command is not kept waiting, nor can it
// interrupt one); wiredcap-system's upkeep under the lock, past the threshold, does, and says so.
TEST_F(CompactionFile, TheUpkeepPastTheThresholdCompactsAndRecordsIt) {
    std::string old;
    while (old.size() < kCompactFrom - 2000)
        old += completed_run("B1", "r" + std::to_string(old.size()), 73728, 81920);
    old += std::string(kCompactFrom - 60 - old.size() - 1, 'x') +
           "\n";  // 60 bytes short of the threshold
    tree_.file("journal/journal.jsonl", old);
    auto w = Writer::open(path_, ::geteuid());
    ASSERT_TRUE(w) << test::error_of(w);
    ASSERT_TRUE(w->lock(std::chrono::milliseconds(500)));
    const Record r{"apply",      "intent",   std::string("next"), 1,
                   std::nullopt, mib(98304), std::nullopt,        ""};
    // Root's: a member's records past its share (kMemberShare) are refused, and the old
    // records here are uid 501's.
    ASSERT_TRUE(append(*w, r, Stamp{"B1", 0}));
    EXPECT_EQ(test::TempTree::slurp(path_).size(),
              kCompactFrom - 60 + to_json_line(r, Stamp{"B1", 0}, 0).size())
        << "an append compacts nothing: the command's kernel write is not kept waiting";
    auto u = keep_up(*w, Stamp{"B1", 0});
    ASSERT_TRUE(u) << test::error_of(u);
    EXPECT_TRUE(u->compacted);
    const std::string now = test::TempTree::slurp(path_);
    EXPECT_LT(now.size(), kKeepRecent * 400) << "more than the recent records and what they touch";
    EXPECT_CONTAINS(now, "\"run\":\"next\"");
    EXPECT_CONTAINS(now, "\"command\":\"journal\",\"event\":\"compacted\"");
    EXPECT_CONTAINS(now, "the rest are in journal.jsonl.1");
    // The archive is the journal as it was, the triggering record included.
    EXPECT_EQ(test::TempTree::slurp(dir_ + "/journal.jsonl.1").substr(0, old.size()), old);
    // Appends go on into the compacted journal.
    ASSERT_TRUE(append(*w,
                       Record{"apply", "applied", std::string("next"), 1, std::nullopt, mib(98304),
                              mib(98304), ""},
                       Stamp{"B1", 501}));
    EXPECT_CONTAINS(test::TempTree::slurp(path_), "\"event\":\"applied\",\"run\":\"next\"");
}

// A helper opens the journal, then waits for the lock while another compacts it: once it has
// the lock, its records go to the journal, not to the archive it opened.
TEST_F(CompactionFile, AHelperThatWaitedForTheLockWritesToTheNewJournal) {
    tree_.file("journal/journal.jsonl", rec("B1", "apply", "applied", "open", 1, 98304, 98304));
    auto waiting = Writer::open(path_, ::geteuid());
    ASSERT_TRUE(waiting) << test::error_of(waiting);
    compact_now();
    const std::string archive = test::TempTree::slurp(dir_ + "/journal.jsonl.1");
    ASSERT_TRUE(waiting->lock(std::chrono::milliseconds(500)));
    ASSERT_TRUE(append(*waiting,
                       Record{"apply", "intent", std::string("late"), 1, std::nullopt, mib(81920),
                              std::nullopt, ""},
                       Stamp{"B1", 501}));
    EXPECT_CONTAINS(test::TempTree::slurp(path_), "\"run\":\"late\"");
    EXPECT_EQ(test::TempTree::slurp(dir_ + "/journal.jsonl.1"), archive)
        << "a record went to the archive";
}

// What to keep is decided without the helper's lock (prepare_compaction); under it
// (finish_compaction) only what was added since is read, and carried over after the kept
// records. A record added to a run the first step cut makes it give up, the journal as it was;
// so does a compaction that came first.
TEST_F(CompactionFile, RecordsAddedAfterTheDecisionFollowOrItTriesAgain) {
    const std::string old = completed_run("B1", "gone", 73728, 81920) +
                            completed_run("B1", "kept", 73728, 81920) +
                            rec("B1", "apply", "applied", "open", 1, 98304, 98304);
    tree_.file("journal/journal.jsonl", old);
    UniqueFd dir = open_dir();
    UniqueFd fd(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    auto p = prepare_compaction(fd.get(), path_, std::nullopt, 0);
    ASSERT_TRUE(p) << test::error_of(p);
    EXPECT_EQ(p->kept, completed_run("B1", "kept", 73728, 81920) +
                           rec("B1", "apply", "applied", "open", 1, 98304, 98304));
    const std::string added = rec("B1", "confirm", "confirmed", "open", 1, std::nullopt, 98304) +
                              rec("B1", "apply", "intent", "new", 1, 81920) + plain_reset("B1");
    std::ofstream(path_, std::ios::app) << added;
    auto c = finish_compaction(dir.get(), fd.get(), "journal.jsonl", path_, *p);
    ASSERT_TRUE(c) << test::error_of(c);
    ASSERT_TRUE(c->journal.valid());
    EXPECT_EQ(test::TempTree::slurp(path_), p->kept + added);
    EXPECT_EQ(test::TempTree::slurp(dir_ + "/journal.jsonl.1"), old + added);

    // Again, now with a late record of a run it dropped: given up, nothing swapped.
    const std::string second =
        completed_run("B2", "gone2", 73728, 81920) + completed_run("B2", "kept2", 73728, 81920);
    tree_.file("journal/journal.jsonl", second);
    UniqueFd fd2(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    auto p2 = prepare_compaction(fd2.get(), path_, std::nullopt, 0);
    ASSERT_TRUE(p2) << test::error_of(p2);
    const std::string late = rec("B2", "confirm", "refused", "gone2", 1);
    std::ofstream(path_, std::ios::app) << late;
    auto c2 = finish_compaction(dir.get(), fd2.get(), "journal.jsonl", path_, *p2);
    ASSERT_TRUE(c2) << test::error_of(c2);
    EXPECT_TRUE(c2->retry);
    EXPECT_FALSE(c2->journal.valid());
    EXPECT_EQ(test::TempTree::slurp(path_), second + late) << "the journal changed";
    EXPECT_EQ(test::TempTree::slurp(dir_ + "/journal.jsonl.1"), old + added)
        << "the archive changed";

    // A compaction that came first: the file read is no longer the journal.
    auto p4 = prepare_compaction(fd2.get(), path_, std::nullopt, 0);
    ASSERT_TRUE(p4);
    compact_now();
    UniqueFd fd3(::open(path_.c_str(), O_RDWR | O_APPEND | O_CLOEXEC));
    auto c4 = finish_compaction(dir.get(), fd3.get(), "journal.jsonl", path_, *p4);
    ASSERT_TRUE(c4);
    EXPECT_TRUE(c4->retry);
}

// Out of memory in the middle of a compaction (a caller's RLIMIT_AS) ends neither the command
// nor the helper: the journal stays as it was, and the next command tries again.
TEST_F(CompactionFile, OutOfMemoryLeavesTheJournalWhole) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP()
        << "a sanitizer runtime reserves terabytes of address space; RLIMIT_AS cannot be tested";
#endif
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
    GTEST_SKIP()
        << "a sanitizer runtime reserves terabytes of address space; RLIMIT_AS cannot be tested";
#endif
#endif
    std::string old;
    while (old.size() < kCompactFrom - 2000)
        old += completed_run("B1", "r" + std::to_string(old.size()), 73728, 81920);
    old += std::string(kCompactFrom - 60 - old.size() - 1, 'x') + "\n";
    tree_.file("journal/journal.jsonl", old);
    const std::string path = path_;
    auto r = test::run_in_child(
        [path]() -> std::string {
            auto w = Writer::open(path, ::geteuid());
            if (!w || !w->lock(std::chrono::milliseconds(500))) return "cannot open";
            const Record rec{"apply",      "intent",   std::string("next"), 1,
                             std::nullopt, mib(98304), std::nullopt,        ""};
            if (!append(*w, rec, Stamp{"B1", 0})) return "cannot append";  // root: no share
            // No 1 MiB block to be had, whatever this process freed before: the address space is
            // limited, every free byte is taken in small blocks, and 256 KiB is given back for the
            // small allocations around the compaction's 1 MiB read buffer.
            std::ifstream status("/proc/self/status");
            std::string line;
            std::uint64_t vm_kib = 0;
            while (std::getline(status, line))
                if (line.rfind("VmSize:", 0) == 0) vm_kib = std::stoull(line.substr(7));
            const rlimit rl{(vm_kib + 1024) * 1024, RLIM_INFINITY};
            if (vm_kib == 0 || ::setrlimit(RLIMIT_AS, &rl) != 0) return "cannot limit";
            void* taken = nullptr;
            while (void* p = std::malloc(16 * 1024)) {
                *static_cast<void**>(p) = taken;  // a list through the blocks themselves
                taken = p;
            }
            for (int i = 0; i < 16 && taken != nullptr; ++i) {
                void* next = *static_cast<void**>(taken);
                std::free(taken);
                taken = next;
            }
            (void)keep_up(*w, Stamp{"B1", 0});
            return "survived";
        },
        std::chrono::seconds(30));  // a loaded machine: the deadline is only against a hang
    ASSERT_TRUE(r.finished) << "the child did not finish within 30 s";
    EXPECT_EQ(r.output, "survived");
    const std::string now = test::TempTree::slurp(path_);
    EXPECT_EQ(now.substr(0, old.size()), old) << "the journal was not left whole";
    EXPECT_NOT_CONTAINS(now, "\"event\":\"compacted\"");
}

// A reset that went on without the lock writes to the journal it opened; if a compaction moved
// that file away meanwhile, its record is appended again to the journal now in place.
TEST_F(CompactionFile, ARecordWrittenWithoutTheLockFollowsACompaction) {
    tree_.file("journal/journal.jsonl", rec("B1", "apply", "applied", "open", 1, 98304, 98304));
    auto unlocked = Writer::open(path_, ::geteuid());
    ASSERT_TRUE(unlocked) << test::error_of(unlocked);
    compact_now();
    ASSERT_TRUE(append(
        *unlocked,
        Record{"reset", "applied", std::nullopt, std::nullopt, std::nullopt, mib(0), mib(0), ""},
        Stamp{"B1", 0}));
    EXPECT_CONTAINS(test::TempTree::slurp(path_), "\"command\":\"reset\",\"event\":\"applied\"");
}

}  // namespace

// A record with a word this version does not know is not this version's to judge unneeded: a
// compaction keeps it, in its place, with the records it needs anyway; a closed run is dropped.
// A member's claim in a run it reverted and ended: the claim stays, and with it the whole run.
// The claim alone read as a step never settled: open in its boot (every writer refused), and a
// hang at the claimed write after the next reboot.
TEST(Compaction, AMembersClaimKeepsItsRunWhole) {
    const Stamp member{"B1", 65534};
    auto line = [&](Record r) { return to_json_line(r, member, 1796113200); };
    const auto claimed = [&](const std::string& event, std::optional<MiB> back) {
        Record r{"apply", event, "lie", 1, mib(0), mib(81920), back, ""};
        r.effective = mib(71680);
        r.effective_source = "given by uid 65534";
        return line(r);
    };
    const std::string lie =
        claimed("intent", std::nullopt) + claimed("applied", mib(81920)) +
        line(Record{"reset", "revert_intent", "lie", 1, mib(81920), mib(0), std::nullopt, "no"}) +
        line(Record{"reset", "revert_applied", "lie", 1, mib(81920), mib(0), mib(0), "no"}) +
        line(Record{"end", "end", "lie", std::nullopt, std::nullopt, std::nullopt, mib(0),
                    "reverted"});
    const std::string text =
        lie + completed_run("B1", "r1", 81920, 98304) + completed_run("B1", "r2", 81920, 98304);
    const std::string kept = compact_text(text, 0);
    EXPECT_NE(kept.find(lie), std::string::npos) << kept;
    for (const std::string boot : {"B1", "B2"}) {
        const auto before = find_hang_ceiling(text, boot), after = find_hang_ceiling(kept, boot);
        EXPECT_EQ(after.value, before.value) << "in boot " << boot;
        EXPECT_EQ(after.open_step.has_value(), before.open_step.has_value()) << "in boot " << boot;
        EXPECT_FALSE(after.open_step) << "in boot " << boot;
    }
}

// A member's last claim is an intent with no outcome of its own, read back by root's reset in
// the same boot: not a hang. Kept alone, without the reset that read it back, it would read as a
// write never read back (a hang after the reboot): a claim counts only from its outcome.
TEST(Compaction, AClaimedIntentReadBackByAnotherRecordIsNoHangAfterACompaction) {
    Record intent{"apply", "intent",   std::nullopt, std::nullopt,
                  mib(0),  mib(98304), std::nullopt, ""};
    intent.effective = mib(65536);
    intent.effective_source = "given by uid 65534";
    const std::string text = to_json_line(intent, Stamp{"B1", 65534}, 1796113200) +
                             plain_reset("B1") + completed_run("B2", "r1", 81920, 98304);
    const std::string kept = compact_text(text, 0);
    for (const std::string boot : {"B2", "B3"}) {
        EXPECT_EQ(find_hang_ceiling(kept, boot).value, find_hang_ceiling(text, boot).value)
            << "in boot " << boot << "\n"
            << kept;
        EXPECT_FALSE(find_hang_ceiling(kept, boot).value) << "in boot " << boot;
    }
}

TEST(Compaction, ARecordWithAWordNoDefinitionKnowsIsKept) {
    const std::string unknown_event =
        rec("B1", "apply", "teleported", std::nullopt, std::nullopt, 120, 120);
    const std::string unknown_command = rec("B1", "levitate", "applied");
    const std::string closed =
        completed_run("B1", "old", 65536, 73728) + completed_run("B1", "new", 65536, 73728);
    ASSERT_LT(compact_text(closed, 0).size(), closed.size()) << "a closed run is dropped";
    EXPECT_EQ(compact_text(closed + unknown_event + unknown_command, 0),
              compact_text(closed, 0) + unknown_event + unknown_command);
}

}  // namespace wiredcap::journal
