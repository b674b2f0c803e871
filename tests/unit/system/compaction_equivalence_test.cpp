// A compaction (system/include/wiredcap/system/journal/compaction.hpp) must not change what any reader of the journal
// concludes, in this boot or any later one: `recover` and `status` (recovery::analyse), and the
// helper's own checks behind `persist` and the boot action (find_confirmation,
// find_hang_ceiling). Journals here are generated at random from every kind of record the helper
// writes -- ramps that complete, revert, fail to revert, hang or never end, plain sets and
// resets, stores for boot with and without the hang-ceiling override, the boot action's applies
// and trips, recover's verdicts, refusals and torn lines -- over several boots, and every answer
// is compared before and after, for each boot in the journal, a later one, and an unknown one.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "wiredcap/ramp/recovery.hpp"
#include "wiredcap/system/journal/compaction.hpp"
#include "wiredcap/helper/journal/hang_ceiling.hpp"
#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/system/journal/pages_record.hpp"
#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/cli/readings/journal_reader.hpp"

namespace wiredcap::recovery {
namespace {

using units::MiB;

constexpr std::uint64_t kValues[] = {0, 65536, 73728, 81920, 98304, 114688};

// Under the sanitizers every journal costs ten times as much (the asan suite's long pole was these
// tests, 250 s): they walk a quarter of the random journals, and the dev suite walks them all.
#if defined(__SANITIZE_ADDRESS__)
constexpr std::uint32_t kShare = 4;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr std::uint32_t kShare = 4;
#else
constexpr std::uint32_t kShare = 1;
#endif
#else
constexpr std::uint32_t kShare = 1;
#endif

class Story {
public:
    explicit Story(std::uint32_t seed) : rng_(seed) {}

    // The same, with the records whose writer matters too (whose records count, docs/design.md):
    // verdicts by root and by a member, on suspects and on no write, forget-hangs by both, a
    // member's end of root's runs, and Linux's trials.
    std::string write_with_every_writer(int boots) {
        every_writer_ = true;
        return write(boots);
    }

    std::string write(int boots) {
        for (int b = 0; b < boots; ++b) {
            boot_ = "BOOT-" + std::to_string(b);
            const int actions = pick(12) + 1;
            for (int i = 0; i < actions; ++i) one_action();
        }
        return text_;
    }

    // A cron job's `wiredcap set` of the value in force, every few minutes over `boots` boots:
    // `per_boot` run-less `unchanged` applies by root each, between the boot action, a set that
    // changed the value, and in one boot a write whose only read-back is the next `unchanged`.
    std::string cron(int boots, int per_boot) {
        uid_ = 0;
        for (int b = 0; b < boots; ++b) {
            boot_ = "BOOT-" + std::to_string(b);
            boot_action();
            for (int i = 0; i < per_boot; ++i) {
                if (i == per_boot / 2) outside_ramp_write(true);
                if (b == 2 && i == per_boot * 2 / 3)
                    rec("apply", "intent", std::nullopt, std::nullopt, value(), std::nullopt);
                effective_ = chance(50) ? std::optional<std::uint64_t>(65536) : std::nullopt;
                rec("apply", "unchanged", std::nullopt, std::nullopt, 81920, 81920);
                effective_.reset();
            }
        }
        return text_;
    }

private:
    int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
    bool chance(int percent) { return pick(100) < percent; }
    std::uint64_t value() { return kValues[static_cast<std::size_t>(pick(6))]; }
    std::uint64_t raised() { return kValues[static_cast<std::size_t>(pick(5) + 1)]; }  // never 0
    std::optional<MiB> maybe(std::optional<std::uint64_t> v) {
        return v ? std::optional(MiB::from_count_or_throw(*v)) : std::nullopt;
    }

    void rec(const std::string& command, const std::string& event, std::optional<std::string> run,
             std::optional<std::uint64_t> step, std::optional<std::uint64_t> to,
             std::optional<std::uint64_t> back, const std::string& reason = {},
             bool ignore_hang_ceiling = false) {
        // A forward record of a ramp step reads the knob before it (recovery's revert target).
        const bool forward_step = step && command == "apply" && event.rfind("revert_", 0) != 0;
        journal::Record r{command,
                          event,
                          std::move(run),
                          step,
                          forward_step ? maybe(value()) : std::nullopt,
                          maybe(to),
                          maybe(back),
                          reason};
        r.ignore_hang_ceiling = ignore_hang_ceiling;
        r.effective = maybe(effective_);
        text_ += journal::to_json_line(r, journal::Stamp{boot_, uid_},
                                       1796113200 + static_cast<std::int64_t>(++clock_));
    }

    void one_action() {
        if (every_writer_ && chance(30)) return writer_action();
        switch (pick(10)) {
            case 0:
            case 1:
            case 2:
            case 3: ramp(); break;
            case 4:
                rec("reset", "intent", std::nullopt, std::nullopt, 0, std::nullopt);
                rec("reset", chance(80) ? "applied" : "unchanged", std::nullopt, std::nullopt, 0,
                    0);
                break;
            case 5: outside_ramp_apply(); break;
            case 6:
                rec("persist", pick(3) == 0 ? "unchanged" : "persisted", std::nullopt, std::nullopt,
                    value(), std::nullopt, "", chance(40));
                break;
            case 7: boot_action(); break;
            case 8: verdict_on_an_earlier_run(); break;
            default: noise(); break;
        }
    }

    void ramp() {
        const std::string run = "r" + std::to_string(runs_.size());
        runs_.push_back(run);
        const int steps = pick(3) + 1;
        for (int s = 1; s <= steps; ++s) {
            const auto step = static_cast<std::uint64_t>(s);
            const std::uint64_t v = value();
            rec("apply", "intent", run, step, v, std::nullopt);
            const int outcome = pick(10);
            if (outcome == 0) return;  // the machine went down here, or the process was killed
            rec("apply", forward(), run, step, v, v);
            if (chance(10))
                rec("confirm", "refused", run, step, std::nullopt, std::nullopt, "stale");
            const int answer = pick(10);
            if (answer < 5) {
                rec("confirm", "confirmed", run, step, std::nullopt, v);
            } else if (answer < 8) {
                rec("apply", "revert_intent", run, step, 0, std::nullopt, "no");
                rec("apply", pick(4) == 0 ? "revert_mismatch" : "revert_applied", run, step, 0, 0,
                    "no");
                if (chance(30))
                    rec("apply", forward(), run, step, v, v);  // the step applied again after it
                break;
            } else if (answer == 8) {
                break;  // neither confirmed nor reverted, and the run goes on to its end
            } else {
                return;  // no answer, no end: a hang if the boot changes
            }
        }
        const char* outcomes[] = {"completed", "stopped", "reverted", "revert_failed"};
        if (chance(85))
            rec("end", "end", run, std::nullopt, std::nullopt, chance(70) ? value() : 0,
                outcomes[pick(4)]);
        // A late call of the run after its end (a process continued after its guard ended it).
        if (chance(10))
            rec("confirm", "refused", run, 1, std::nullopt, std::nullopt, "the run has ended");
    }

    const char* forward() {
        const char* events[] = {"applied",  "applied",      "applied",
                                "mismatch", "write_failed", "unchanged"};
        return events[pick(6)];
    }

    // A `set` or the helper run directly: refused; a write (its intent never read back, if the
    // machine went down); or the value already in force, again and again (`unchanged`, nothing
    // written), some by root, some with the caller's claim of the effective cap.
    void outside_ramp_apply() {
        switch (pick(4)) {
            case 0:
                rec("apply", "refused", std::nullopt, std::nullopt, value(), std::nullopt);
                break;
            case 1: outside_ramp_write(chance(60)); break;
            default: {
                const std::uint64_t v = value();
                const int times = pick(6) + 1;
                for (int i = 0; i < times; ++i) {
                    uid_ = chance(50) ? 0 : 501;
                    if (chance(30)) effective_ = value();
                    rec("apply", "unchanged", std::nullopt, std::nullopt, v,
                        chance(90) ? std::optional(v) : std::nullopt);
                    effective_.reset();
                    uid_ = 501;
                }
            }
        }
    }

    void outside_ramp_write(bool read_back) {
        const std::uint64_t v = value();
        if (chance(80)) rec("apply", "intent", std::nullopt, std::nullopt, v, std::nullopt);
        if (read_back)
            rec("apply", chance(80) ? "applied" : "mismatch", std::nullopt, std::nullopt, v,
                value());
    }

    void boot_action() {
        const std::uint64_t v = value();
        rec("boot", "intent", std::nullopt, std::nullopt, v, std::nullopt);
        rec("boot", chance(80) ? "applied" : "mismatch", std::nullopt, std::nullopt, v, v);
        if (chance(40))
            rec("boot", "tripped", std::nullopt, std::nullopt, v, std::nullopt, "never healthy");
        else rec("boot", "healthy", std::nullopt, std::nullopt, std::nullopt, std::nullopt);
    }

    // What `recover` records for a run it found unresolved.
    void verdict_on_an_earlier_run() {
        if (runs_.empty()) return;
        const std::string& run =
            runs_[static_cast<std::size_t>(pick(static_cast<int>(runs_.size())))];
        rec("end", "end", run, std::nullopt, std::nullopt, std::nullopt,
            chance(50) ? "hung" : "aborted");
    }

    // A record whose weight depends on who wrote it, by root or by a member.
    void writer_action() {
        const uid_t was = uid_;
        uid_ = chance(50) ? 0 : 501;
        const std::string earlier = "BOOT-" + std::to_string(pick(5));
        switch (pick(6)) {
            case 0:
            case 1:  // an answer on a suspect of an earlier boot, or on no write at all
                rec("verdict", chance(60) ? "hung" : "not-hung", std::nullopt, std::nullopt,
                    raised(), std::nullopt, chance(80) ? earlier : "no-such-boot");
                break;
            case 2:
                rec("forget-hang", "forgotten", std::nullopt, std::nullopt, raised(), std::nullopt,
                    "other-cause");
                break;
            case 3: verdict_on_an_earlier_run(); break;
            case 4: {  // a raising set read back, often the last change of its boot: a suspect
                effective_ = 65536;
                const std::uint64_t v = raised();
                rec("apply", "intent", std::nullopt, std::nullopt, v, std::nullopt);
                rec("apply", "applied", std::nullopt, std::nullopt, v, v);
                effective_.reset();
                break;
            }
            default: linux_trial(); break;
        }
        uid_ = was;
    }

    // wiredcap-system's try-once trial, as Linux records it: pages of 4 KiB.
    void linux_trial() {
        const std::uint64_t mib = raised();
        const char* events[] = {"intent", "hung", "confirmed", "forgotten"};
        const char* commands[] = {"ttm-trial", "ttm-after-boot", "ttm-confirm", "ttm-forget-hang"};
        const int k = pick(4);
        journal::Record r{commands[k],  events[k],  std::nullopt, std::nullopt,
                          std::nullopt, maybe(mib), std::nullopt, ""};
        const journal::PagesFields p{"ttm.pages_limit", mib * 256, std::nullopt, 4096};
        text_ += journal::to_json_line(r, p, journal::Stamp{boot_, 0},
                                       1796113200 + static_cast<std::int64_t>(++clock_));
    }

    void noise() {
        switch (pick(3)) {
            case 0: text_ += "{\"v\":1,\"time\":\"2026-12-01T\n"; break;  // a torn line, closed
            case 1:
                rec("apply", "refused", "x" + std::to_string(pick(3)), 1, value(), std::nullopt,
                    "out of band");
                break;
            default:
                rec("reset", "persist_removed", std::nullopt, std::nullopt, std::nullopt,
                    std::nullopt);
                break;
        }
    }

    std::mt19937 rng_;
    std::string text_;
    std::string boot_;
    std::uint64_t clock_ = 0;
    std::vector<std::string> runs_;
    uid_t uid_ = 501;
    std::optional<std::uint64_t> effective_;
    bool every_writer_ = false;
};

std::string describe(const std::optional<StepRef>& r) {
    if (!r) return "none";
    return r->run + "/" + std::to_string(r->step) + "/" + std::to_string(r->value.count()) + "/" +
           r->time + "/" + r->boot + "/" + std::string(kind_name(r->kind));
}

// Everything analyse() answers, as text: two reports are the same when these are equal. The
// unresolved runs in `closed` are left out: a compaction closed them as abandoned.
std::string describe(const Report& r, const std::set<std::string>& closed = {}) {
    std::string s = "last_confirmed " + describe(r.last_confirmed) + "\nhang_ceiling " +
                    describe(r.hang_ceiling) + "\n";
    for (const auto& h : r.hangs) s += "hang " + describe(h) + "\n";
    for (const auto& x : r.suspects) s += "suspect " + describe(x) + "\n";
    for (const auto& u : r.unresolved)
        if (closed.count(u.at.run) == 0)
            s += "unresolved " + describe(u.at) + " state " +
                 std::to_string(static_cast<int>(u.state)) + "\n";
    return s;
}

std::string describe(const std::optional<MiB>& v) {
    return v ? std::to_string(v->count()) : "none";
}

std::string describe(const std::optional<journal::Confirmation>& c) {
    return c ? c->run + "/" + std::to_string(c->step) : "none";
}

constexpr const char* kBoots[] = {"BOOT-0", "BOOT-2", "BOOT-4", "BOOT-5", "unknown", ""};

// Every answer of every reader about `text`, for each boot and each value, as one text (the
// runs in `closed` left out of recover's unresolved ones).
std::string answers(const std::string& text, const std::set<std::string>& closed = {}) {
    const auto entries = journal_view::parse_journal(text).entries;
    std::string out;
    for (const std::string boot : kBoots) {
        out +=
            "== recover/status in boot '" + boot + "'\n" + describe(analyse(entries, boot), closed);
        out += "hang ceiling for the helper: " +
               describe(journal::find_hang_ceiling(text, boot).value) + "\n";
        out += "hang ceiling for the boot action: " +
               describe(journal::find_hang_ceiling(text, boot, true).value) + "\n";
    }
    for (const std::uint64_t v : kValues) {
        const auto standing = journal::find_standing(text, MiB::from_count_or_throw(v)).value();
        out += "confirmation of " + std::to_string(v) + ": " + describe(standing.confirmation) +
               (standing.tripped ? ", tripped since" : "") + "\n";
    }
    return out;
}

// The runs a compaction closed as abandoned: those its closing records name.
std::set<std::string> closed_as_abandoned(const std::string& text) {
    std::set<std::string> runs;
    for (const auto& e : journal_view::parse_journal(text).entries)
        if (e.command == "end" && e.reason == journal::kAbandoned && e.run && e.uid == 0)
            runs.insert(*e.run);
    return runs;
}

// A run closed as abandoned was, before, a run recover listed with nothing at risk in every
// boot's view (so closing it changes no other answer), and after it recover lists it no more.
void expect_only_idle_runs_closed(const std::string& before, const std::string& after,
                                  const std::set<std::string>& closed, std::uint32_t seed) {
    const auto was = journal_view::parse_journal(before).entries;
    const auto now = journal_view::parse_journal(after).entries;
    for (const std::string boot : kBoots) {
        std::set<std::string> idle, listed;
        for (const auto& u : analyse(was, boot).unresolved)
            if (u.state == RunState::ended_without_record) idle.insert(u.at.run);
        for (const auto& u : analyse(now, boot).unresolved) listed.insert(u.at.run);
        for (const auto& run : closed) {
            ASSERT_EQ(idle.count(run), 1U)
                << "seed " << seed << ": run " << run << " in boot " << boot;
            ASSERT_EQ(listed.count(run), 0U)
                << "seed " << seed << ": run " << run << " in boot " << boot;
        }
    }
}

// `after` without the closing records of runs it holds nothing else of: compacted again, a run
// closed and dropped leaves only its closing record, which is then dropped too (a closed run is
// never among the recent records, and its closing record takes its last record's place).
std::string without_lone_closings(const std::string& after, const std::set<std::string>& closed) {
    std::map<std::string, int> lines_of;
    for (const auto& e : journal_view::parse_journal(after).entries)
        if (e.run) ++lines_of[*e.run];
    std::string out;
    std::size_t at = 0;
    for (auto nl = after.find('\n'); nl != std::string::npos;
         at = nl + 1, nl = after.find('\n', at)) {
        const std::string line = after.substr(at, nl + 1 - at);
        const auto run = std::string(journal::run_of(line));
        const bool lone = closed.count(run) != 0 && lines_of[run] == 1 &&
                          line.find("\"abandoned\"") != std::string::npos;
        if (!lone) out += line;
    }
    return out;
}

TEST(CompactionEquivalence, EveryReaderAnswersTheSameAfterACompaction) {
    constexpr std::uint32_t kJournals = 300 / kShare;
    std::size_t before_bytes = 0, after_bytes = 0, abandoned = 0;
    for (std::uint32_t seed = 1; seed <= kJournals; ++seed) {
        const std::string before = Story(seed).write(5);
        // No recent records kept, and a window of the most recent ones that ends anywhere in a
        // run (the runs it touches stay whole); compacted in no known boot, in the journal's
        // last boot and in a later one: the runs of earlier boots with no end and nothing at
        // risk are closed as abandoned, and every other answer stays the same.
        for (const std::size_t recent : {std::size_t{0}, std::size_t{1} + seed % 29}) {
            const char* in_boot = std::array{"", "BOOT-4", "BOOT-5"}[(seed + recent) % 3];
            {
                std::optional<journal::Closer> closer;
                if (*in_boot != '\0') closer = journal::Closer{in_boot, 1796200000};
                const std::string after = journal::compact_text(before, recent, closer);
                const std::set<std::string> closed = closed_as_abandoned(after);
                if (!closer) {
                    ASSERT_TRUE(closed.empty());
                }
                expect_only_idle_runs_closed(before, after, closed, seed);
                ASSERT_EQ(answers(before, closed), answers(after))
                    << "seed " << seed << ", " << recent << " recent kept\nbefore:\n"
                    << before << "\nafter:\n"
                    << after;
                // Compacting again changes nothing but dropping a closed run's lone closing
                // record: what is kept is exactly what the rules keep.
                ASSERT_EQ(journal::compact_text(after, recent, closer),
                          without_lone_closings(after, closed))
                    << "seed " << seed << ", " << recent << " recent";
                if (recent == 0) {
                    before_bytes += before.size();
                    after_bytes += after.size();
                    abandoned += closed.size();
                }
            }
        }
    }
    // And it is a compaction: a test that kept every record would pass the comparisons above.
    EXPECT_LT(after_bytes * 10, before_bytes * 8)
        << before_bytes << " bytes before, " << after_bytes << " after";
    // And runs were closed as abandoned: a compaction that closed none would pass them too.
    EXPECT_GT(abandoned, kJournals / 8);
}

// One answer, whoever reads: the helper and the CLI each parse the journal their own way (the
// helper's record_of, the CLI's reader) into the one classifier, and every answer of it -- hangs,
// the ceiling for any writer and for the stored value, suspects, unresolved runs, the last
// confirmation -- is the same, on journals of every writer (root's and a member's verdicts,
// forgets and ends, Linux's trials, torn lines), in the journal's last boot and a later one, and
// again after a compaction. The helper's own answer (find_hang_ceiling) is checked beside it.
std::string every_answer(const Report& r, const Report& stored) {
    std::string s = describe(r) + "stored-value ceiling " + describe(stored.hang_ceiling) + "\n";
    for (const auto& h : r.hangs)
        s += "hang by " + h.writer + " uid " + std::to_string(h.uid) +
             (h.forgotten ? " forgotten\n" : "\n");
    for (const auto& x : r.suspects) s += "suspect " + describe(x) + " by " + x.writer + "\n";
    if (r.forgotten) s += "forgotten at " + std::to_string(r.forgotten->order) + "\n";
    return s;
}
std::string via_cli(const std::string& text, std::string_view boot) {
    journal::Classifier c(boot);
    for (const auto& e : journal_view::parse_journal(text).entries) c.add(journal_view::view_of(e));
    return every_answer(c.finish(), c.finish(journal::Classifier::For::stored_value));
}
std::string via_helper(const std::string& text, std::string_view boot) {
    journal::Classifier c(boot);
    journal::for_each_record(text, [&c](std::string_view line) {
        if (const auto r = journal::record_of(line)) c.add(*r);
    });
    return every_answer(c.finish(), c.finish(journal::Classifier::For::stored_value));
}
std::string ceilings(const std::string& text) {
    const auto entries = journal_view::parse_journal(text).entries;
    std::string out;
    for (const char* boot : {"BOOT-4", "BOOT-5"}) {
        const auto report = analyse(entries, boot);
        const auto cli =
            report.hang_ceiling ? std::optional(report.hang_ceiling->value) : std::nullopt;
        out += std::string(boot) + ": recover " + describe(cli) + ", helper " +
               describe(journal::find_hang_ceiling(text, boot).value) + "\n";
    }
    return out;
}
bool agree(const std::string& answer) {
    for (std::size_t at = 0, nl = answer.find('\n'); nl != std::string::npos;
         at = nl + 1, nl = answer.find('\n', at)) {
        const std::string line = answer.substr(at, nl - at);
        const auto r = line.find("recover "), h = line.find(", helper ");
        if (line.substr(r + 8, h - r - 8) != line.substr(h + 9)) return false;
    }
    return true;
}

TEST(ReadersAgree, TheHelperAndRecoverGiveOneHangCeilingBeforeAndAfterACompaction) {
    constexpr std::uint32_t kJournals = 400 / kShare;
    std::size_t with_ceiling = 0, with_suspect = 0;
    for (std::uint32_t seed = 1; seed <= kJournals; ++seed) {
        const std::string before = Story(seed).write_with_every_writer(5);
        const std::string answer = ceilings(before);
        ASSERT_TRUE(agree(answer)) << "seed " << seed << "\n"
                                   << answer << "journal:\n"
                                   << (getenv("SHOW") ? before : "");
        if (answer.find("recover none") == std::string::npos) ++with_ceiling;
        const std::string after =
            journal::compact_text(before, 0, journal::Closer{"BOOT-5", 1796200000});
        ASSERT_EQ(ceilings(after), answer) << "seed " << seed << "\nbefore:\n"
                                           << before << "\nafter:\n"
                                           << after;
        for (const char* boot : {"BOOT-4", "BOOT-5"}) {
            const std::string cli = via_cli(before, boot);
            ASSERT_EQ(via_helper(before, boot), cli) << "seed " << seed << " in " << boot;
            ASSERT_EQ(via_helper(after, boot), via_cli(after, boot))
                << "seed " << seed << " in " << boot << ", compacted";
            if (cli.find("suspect ") != std::string::npos) ++with_suspect;
        }
    }
    // A test where no journal had a ceiling, or a suspect, would compare nothing.
    EXPECT_GT(with_ceiling, kJournals / 4);
    EXPECT_GT(with_suspect, kJournals / 20);
}

// A cron job's `wiredcap set` of the value in force kept the journal growing for good: every
// run-less `unchanged` apply was kept (issue: ~28 MB a year). Of 20,000 of them by root over six
// boots, a compaction keeps what the readers use (the first read-back after a write, the
// members' claims, the recent ones): the journal ends below 1 MiB and every answer is the same.
TEST(CompactionEquivalence, RepeatedUnchangedAppliesAreCompactedAway) {
    const std::string before = Story(7).cron(6, 20000 / 6 + 1);
    ASSERT_GT(before.size(), std::size_t{3} << 20);
    const std::vector<const char*> boots = kShare == 1
                                               ? std::vector<const char*>{"", "BOOT-5", "BOOT-6"}
                                               : std::vector<const char*>{"BOOT-5"};
    for (const char* in_boot : boots) {
        std::optional<journal::Closer> closer;
        if (*in_boot != '\0') closer = journal::Closer{in_boot, 1796200000};
        const std::string after = journal::compact_text(before, journal::kKeepRecent, closer);
        EXPECT_LT(after.size(), std::size_t{1} << 20) << "in boot '" << in_boot << "'";
        ASSERT_EQ(answers(before), answers(after)) << "in boot '" << in_boot << "'";
        ASSERT_EQ(journal::compact_text(after, journal::kKeepRecent, closer), after);
    }
}

// status and recover read the journal from its file in pieces, each record replayed as it is read
// (analyse_file): on the same random journals, made larger than one piece of the
// reading (64 KiB) so that lines are cut between pieces, every answer is the one analyse() gives
// on the whole text's entries, and the reading finds the same skipped lines.
TEST(CompactionEquivalence, StreamedFromTheFileEveryAnswerIsTheSame) {
    char dir[] = "/tmp/ramp-stream-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/journal.jsonl";
    for (std::uint32_t seed = 1; seed <= 12; ++seed) {
        const std::string text = Story(seed).write(60);
        ASSERT_GT(text.size(), std::size_t{2} << 16) << "seed " << seed;
        {
            std::ofstream out(path, std::ios::binary | std::ios::trunc);
            out << text;
        }
        const auto whole = journal_view::parse_journal(text);
        for (const std::string boot : {"BOOT-0", "BOOT-59", "BOOT-60", "unknown"}) {
            journal_view::Notes notes;
            auto streamed = analyse_file(path, boot, &notes);
            ASSERT_TRUE(streamed) << streamed.error().message;
            ASSERT_EQ(describe(analyse(whole.entries, boot)), describe(*streamed))
                << "seed " << seed << ", boot " << boot;
            EXPECT_EQ(notes.warnings, whole.warnings) << "seed " << seed;
            EXPECT_EQ(notes.torn_tail, whole.torn_tail) << "seed " << seed;
        }
    }
    std::filesystem::remove_all(dir);
}

// recover reads the journal, appends outcomes through the helper, and answers on the journal as it
// is then: JournalReplay::catch_up reads only what was appended, or all of it again when the file
// is not the one read. Each way, every answer is the one a new reading of the whole file gives:
// appended after a reading that ended on a newline (taken up where it stopped), after one that
// ended in a torn line (read again), after the journal was replaced by a rename (compaction) or
// rewritten shorter in place.
TEST(CompactionEquivalence, CaughtUpAfterAChangeEveryAnswerIsTheSame) {
    char dir[] = "/tmp/ramp-catch-up-XXXXXX";
    ASSERT_NE(::mkdtemp(dir), nullptr);
    const std::string path = std::string(dir) + "/journal.jsonl";
    auto put = [&](const std::string& file, const std::string& text, std::ios::openmode mode) {
        std::ofstream out(file, std::ios::binary | mode);
        out << text;
    };
    const std::string boot = "BOOT-59";
    for (std::uint32_t seed = 1; seed <= 8; ++seed) {
        const std::string text = Story(seed).write(60);
        const std::string expected =
            describe(analyse(journal_view::parse_journal(text).entries, boot));
        const std::size_t line_end = text.find('\n', text.size() / 2) + 1;
        for (const std::size_t cut : {line_end, line_end - 7, std::size_t{0}}) {
            put(path, text.substr(0, cut), std::ios::trunc);
            auto replay = JournalReplay::read(path, boot);
            ASSERT_TRUE(replay) << replay.error().message;
            put(path, text.substr(cut, 1000), std::ios::app);
            ASSERT_TRUE(replay->catch_up());
            put(path, text.substr(cut + std::min<std::size_t>(1000, text.size() - cut)),
                std::ios::app);
            auto caught_up = replay->catch_up();
            ASSERT_TRUE(caught_up) << caught_up.error().message;
            ASSERT_EQ(expected, describe(*caught_up)) << "seed " << seed << ", cut at " << cut;
        }
        // Replaced by another file (a compaction renames its new journal into place) whose lines
        // end where the old one's did: the records of the boot named are now another boot's, and
        // more follow.
        std::string other = text;
        for (std::size_t at = 0; (at = other.find("\"BOOT-59\"", at)) != std::string::npos;)
            other[at + 7] = '8';
        other += Story(seed + 100).write(3);
        const std::string other_expected =
            describe(analyse(journal_view::parse_journal(other).entries, boot));
        ASSERT_NE(other_expected, expected) << "seed " << seed;
        put(path, text, std::ios::trunc);
        auto replay = JournalReplay::read(path, boot);
        ASSERT_TRUE(replay) << replay.error().message;
        put(path + ".new", other, std::ios::trunc);
        ASSERT_EQ(std::rename((path + ".new").c_str(), path.c_str()), 0);
        auto renamed = replay->catch_up();
        ASSERT_TRUE(renamed) << renamed.error().message;
        ASSERT_EQ(other_expected, describe(*renamed)) << "seed " << seed << ", renamed";
        put(path, text, std::ios::trunc);
        replay = JournalReplay::read(path, boot);
        ASSERT_TRUE(replay) << replay.error().message;
        const std::string shorter = other.substr(0, other.rfind('\n', text.size() / 2) + 1);
        put(path, shorter, std::ios::trunc);
        auto rewritten = replay->catch_up();
        ASSERT_TRUE(rewritten) << rewritten.error().message;
        ASSERT_EQ(describe(analyse(journal_view::parse_journal(shorter).entries, boot)),
                  describe(*rewritten))
            << "seed " << seed << ", rewritten shorter";
    }
    std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace wiredcap::recovery
