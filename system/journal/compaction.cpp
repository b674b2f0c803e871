#include "wiredcap/system/journal/compaction.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <algorithm>
#include <functional>
#include <utility>
#include <vector>

#include "wiredcap/helper/journal/journal.hpp"
#include "wiredcap/helper/journal/owned_by_root.hpp"
#include "wiredcap/durable_write.hpp"
#include "wiredcap/helper/journal/record_fields.hpp"
#include "wiredcap/policy/trusted_path.hpp"
#include "wiredcap/journal/step_risk.hpp"
#include "wiredcap/journal/vocabulary.hpp"

namespace wiredcap::journal {
namespace {

bool is_plain_reset(std::string_view line) {
    const auto event = string_after(line, "event");
    return string_after(line, "command") == "reset" &&
           (event == journal::event::applied || event == journal::event::unchanged);
}

bool is_linux_trial(std::string_view line) {
    return string_after(line, "command").starts_with("ttm-");
}

// What Linux's readers need of a trial that is over: a hang (the ceiling), a person's
// forgetting of one, and the value made default (what the machine was given to hold).
bool is_linux_outcome(std::string_view line) {
    const auto event = string_after(line, "event");
    return event == journal::event::hung || event == journal::event::forgotten ||
           event == journal::event::made_default;
}

// A whole record (not a line cut short by a crash) whose command or event this version does not
// know: a newer version's.
bool is_unknown_record(std::string_view line) {
    const auto command = string_after(line, "command"), event = string_after(line, "event");
    return line.ends_with('}') && !command.empty() && !event.empty() &&
           (!journal::is_known_command(command) || !journal::is_known_event(event));
}

// Run-less records a reader needs whatever else the journal holds: the boot action's (trips and
// the applies before them), every store of a value for boot (the hang ceiling's waiver), a
// confirmation, and root's forgetting of a hang ceiling.
bool is_needed_without_run(std::string_view line) {
    const auto command = string_after(line, "command");
    return command == "boot" || command == "persist" || command == journal::command::forget_hang ||
           string_after(line, "event") == journal::event::confirmed;
}

// A write outside a ramp (`set`, the helper run directly) or a person's verdict on one: kept only
// while the classifier's answers rest on it (Classifier::outside_ramps_in_use).
bool is_outside_ramp_write_or_verdict(std::string_view line) {
    const auto command = string_after(line, "command");
    return (command == "apply" && is_forward_event(string_after(line, "event"))) ||
           command == "verdict";
}

// A caller's claim (an effective cap only it vouches for) that a write acted on, by a uid other
// than root's. (A refused call's claim moved nothing.)
bool is_members_claim(std::string_view line) {
    return is_forward_event(string_after(line, "event")) && number_after(line, "effective_mib") &&
           number_after(line, "uid").value_or(0) != 0;
}

}  // namespace

bool compaction_due(std::size_t size) { return size >= kCompactFrom; }

void Compaction::survey(std::string_view line) {
    const std::size_t index = surveyed_++;
    if (!is_v1_record(line)) return;
    if (string_after(line, "command") == journal::command::ttm_trial &&
        string_after(line, "event") == journal::event::intent)
        last_linux_trial_ = index;
    const auto event = string_after(line, "event");
    const auto run = run_of(line);
    if (const auto r = record_of(line)) {
        classifier_.add(*r);
        line_of_order_.push_back(index);
    }
    const auto uid = number_after(line, "uid").value_or(0);
    // A claim counts from its outcome: an intent alone, kept without what read it back, would
    // read as a write never read back (its intent follows a kept outcome below).
    if (is_members_claim(line) && event != journal::event::intent)
        latest_claim_[uid] = {index, std::string(run)};
    // A write's intent and outcome: the outcome reads the intent back (same boot), so keeping the
    // two together never leaves an intent that reads as a write never read back.
    if (run.empty() && string_after(line, "command") == "apply" && is_forward_event(event)) {
        const std::string boot(string_after(line, "boot"));
        const auto it = last_intent_.find(uid);
        if (it != last_intent_.end() && it->second.second == boot &&
            number_after(line, "readback_mib"))
            intent_of_[index] = it->second.first;
        if (event == journal::event::intent) last_intent_[uid] = {index, boot};
        else if (it != last_intent_.end()) last_intent_.erase(it);
    }
    if (event == journal::event::confirmed) {
        const auto value = number_after(line, "readback_mib");
        // A confirmation whose value cannot be read keeps its run: nothing is assumed about it.
        latest_confirmation_[value.value_or(UINT64_MAX)] = std::string(run);
        latest_confirmed_run_ = std::string(run);
    }
    if (run.empty()) return;
    RunInfo& r = runs_[std::string(run)];
    r.last_index = index;
    r.last_boot = std::string(string_after(line, "boot"));
    if (event == "end") {
        r.ended = true;
        return;
    }
    if (const auto step = number_after(line, "step"))
        r.steps.add(*step, event, number_after(line, "to_mib"), number_after(line, "readback_mib"));
}

bool Compaction::closed(const RunInfo& r) const {
    return (r.ended || r.abandoned) && !r.must_stay && r.steps.settled();
}

// No end, nothing at risk, last seen in a known boot other than this one (docs/design.md).
bool Compaction::is_abandoned(const RunInfo& r) const {
    if (!closer_ || r.ended || !r.steps.settled()) return false;
    const std::string_view now = closer_->boot;
    return !recent(r.last_index) && !now.empty() && now != "unknown" && !r.last_boot.empty() &&
           r.last_boot != "unknown" && r.last_boot != now;
}

void Compaction::decide() {
    for (auto& [id, r] : runs_) r.abandoned = is_abandoned(r);
    for (const auto& [value, run] : latest_confirmation_)
        if (auto it = runs_.find(run); it != runs_.end()) it->second.must_stay = true;
    if (auto it = runs_.find(latest_confirmed_run_); it != runs_.end()) it->second.must_stay = true;
    for (auto& [id, r] : runs_)
        if (recent(r.last_index)) r.must_stay = true;
    // A member's latest claim stays on record, and so its run whole: the claim alone would read
    // as a step never settled, open in its boot and a hang after the next reboot.
    for (const auto& [uid, claim] : latest_claim_)
        if (auto it = runs_.find(claim.second); it != runs_.end()) it->second.must_stay = true;
    for (const std::size_t order : classifier_.outside_ramps_in_use())
        in_use_.insert(line_of_order_[order - 1]);
    for (const auto& [uid, claim] : latest_claim_) in_use_.insert(claim.first);
    // A kept write keeps its intent: the journal still shows each write's two records.
    for (const auto& [outcome, intent] : intent_of_)
        if (in_use_.count(outcome) != 0 || recent(outcome)) in_use_.insert(intent);
    decided_ = true;
}

bool Compaction::keeps(std::string_view line) {
    const bool kept = judge(line);
    const auto run = run_of(line);
    if (!run.empty()) {
        const auto it = runs_.find(std::string(run));
        if (!kept || (it != runs_.end() && it->second.abandoned))
            not_whole_.insert(std::string(run));
    }
    return kept;
}

bool Compaction::judge(std::string_view line) {
    if (!decided_) decide();
    const std::size_t index = judged_++;
    if (!is_v1_record(line)) return false;
    if (recent(index)) return true;
    // A record with a word this version does not know (a newer helper's) is not this version's
    // to judge unneeded: kept, as recover shows it.
    if (is_unknown_record(line)) return true;
    // Linux: every outcome, and the latest trial whole (it may still be at risk), but its refusals.
    if (is_linux_trial(line))
        return is_linux_outcome(line) || (last_linux_trial_ && index >= *last_linux_trial_ &&
                                          string_after(line, "event") != journal::event::refused);
    const auto run = run_of(line);
    if (run.empty()) {
        // The boot action's write stays at risk until its boot settles it, a plain reset too
        // (outside_ramps.cpp, hang_ceiling.cpp): that boot's resets are kept, as a kept run's.
        if (string_after(line, "command") == "boot" &&
            string_after(line, "event") == journal::event::intent)
            boots_of_kept_runs_.insert(std::string(string_after(line, "boot")));
        if (is_outside_ramp_write_or_verdict(line)) return in_use_.count(index) != 0;
        if (is_needed_without_run(line)) return true;
        return is_plain_reset(line) &&
               boots_of_kept_runs_.count(std::string(string_after(line, "boot"))) != 0;
    }
    const auto it = runs_.find(std::string(run));
    if (it == runs_.end() || closed(it->second)) return false;
    boots_of_kept_runs_.insert(std::string(string_after(line, "boot")));
    return true;
}

std::string Compaction::closing_after(std::string_view line) const {
    const auto it = runs_.find(std::string(run_of(line)));
    if (it == runs_.end() || !it->second.abandoned || it->second.last_index + 1 != judged_)
        return {};
    const Record end{"end",        "end",        it->first,    std::nullopt,
                     std::nullopt, std::nullopt, std::nullopt, std::string(kAbandoned)};
    return to_json_line(end, Stamp{closer_->boot, 0}, closer_->unix_time);
}

namespace {

// Every complete line of `text`, in order (a torn last line is not one).
void for_each_line(std::string_view text, const std::function<void(std::string_view)>& f) {
    for (auto nl = text.find('\n'); nl != std::string_view::npos; nl = text.find('\n')) {
        f(text.substr(0, nl));
        text.remove_prefix(nl + 1);
    }
}

}  // namespace

std::string compact_text(std::string_view text, std::size_t keep_recent,
                         const std::optional<Closer>& closer) {
    Compaction c(keep_recent, closer);
    for_each_line(text, [&](std::string_view l) { c.survey(l); });
    std::string out;
    for_each_line(text, [&](std::string_view l) {
        if (c.keeps(l)) out.append(l).push_back('\n');
        out += c.closing_after(l);
    });
    return out;
}

namespace {

std::string failed(const std::string& what, const std::string& path) {
    return "cannot compact the journal " + path + ": " + what + ": " + std::strerror(errno);
}

// The file open as `fd` from `from` to its end, up to its last newline: a torn last line (or
// one still being written) is not a record yet. Read whole, like every trusted file the helper
// reads; a journal is at most a few MiB once compacted.
Expected<std::string> complete_lines_from(int fd, off_t from, const std::string& path) {
    std::string data, block(std::size_t{1} << 20, '\0');  // the heap: a caller can shrink the stack
    for (off_t at = from;;) {
        const ssize_t n = ::pread(fd, block.data(), block.size(), at);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) return Error{failed("read", path)};
        if (n == 0) break;
        data.append(block.data(), static_cast<std::size_t>(n));
        at += n;
    }
    data.resize(data.rfind('\n') + 1);  // npos + 1 == 0: no complete line at all
    return data;
}

// The new journal: root's, 0644 like the journal, created afresh (a leftover of a compaction cut
// short by a crash is removed first).
Expected<UniqueFd> create_new_journal(int dir_fd, const std::string& tmp, const std::string& path) {
    if (::unlinkat(dir_fd, tmp.c_str(), 0) != 0 && errno != ENOENT)
        return Error{failed("remove " + tmp, path)};
    constexpr int kFlags =
        O_RDWR | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC;
    UniqueFd out(::openat(dir_fd, tmp.c_str(), kFlags, 0644));
    if (!out.valid()) return Error{failed("create " + tmp, path)};
    if (auto own = own_by_root(out.get(), "the compacted journal " + tmp); !own) return own.error();
    if (::fchmod(out.get(), 0644) != 0) return Error{failed("chmod " + tmp, path)};
    return out;
}

// The old journal becomes the archive (`name.1`, replaced atomically), then the new one takes
// its name. `name` is never missing: the archive is a second link first, and a rename replaces.
Expected<Ok> swap_in(int dir_fd, const std::string& name, const std::string& tmp,
                     const std::string& path) {
    const std::string archive = name + ".1", archive_tmp = name + ".1.new";
    if (::unlinkat(dir_fd, archive_tmp.c_str(), 0) != 0 && errno != ENOENT)
        return Error{failed("remove " + archive_tmp, path)};
    if (::linkat(dir_fd, name.c_str(), dir_fd, archive_tmp.c_str(), 0) != 0)
        return Error{failed("link " + archive_tmp, path)};
    if (::renameat(dir_fd, archive_tmp.c_str(), dir_fd, archive.c_str()) != 0)
        return Error{failed("rename to " + archive, path)};
    if (::renameat(dir_fd, tmp.c_str(), dir_fd, name.c_str()) != 0)
        return Error{failed("rename " + tmp, path)};
    return Ok{};
}

}  // namespace

Expected<Prepared> prepare_compaction(int fd, const std::string& path,
                                      const std::optional<Closer>& closer,
                                      std::size_t keep_recent) {
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{failed("stat", path)};
    auto old = complete_lines_from(fd, 0, path);
    if (!old) return old.error();
    Prepared p;
    p.dev = st.st_dev;
    p.ino = st.st_ino;
    p.through = static_cast<off_t>(old->size());
    p.records = static_cast<std::size_t>(std::count(old->begin(), old->end(), '\n'));
    Compaction c(keep_recent, closer);
    for_each_line(*old, [&](std::string_view l) { c.survey(l); });
    for_each_line(*old, [&](std::string_view l) {
        if (c.keeps(l)) p.kept.append(l).push_back('\n');
        p.kept += c.closing_after(l);
    });
    p.not_whole = c.not_whole();
    return p;
}

Expected<Compacted> finish_compaction(int dir_fd, int fd, const std::string& name,
                                      const std::string& path, const Prepared& p,
                                      std::size_t min_saving) {
    Compacted result;
    struct stat st {};
    if (::fstat(fd, &st) != 0) return Error{failed("stat", path)};
    result.records = p.records;
    if (st.st_dev != p.dev || st.st_ino != p.ino) {  // another compaction swapped it meanwhile
        result.retry = true;
        return result;
    }
    auto tail = complete_lines_from(fd, p.through, path);
    if (!tail) return tail.error();
    // Records added since it was read are carried over as they are, unless they belong to a run
    // the compaction did not keep whole: that run's story would be cut (the next upkeep retries).
    bool cut = false;
    for_each_line(*tail, [&](std::string_view l) {
        cut = cut || p.not_whole.count(std::string(run_of(l))) != 0;
    });
    if (cut) {
        result.retry = true;
        return result;
    }
    const std::string kept = p.kept + *tail;
    const auto records_now =
        p.records + static_cast<std::size_t>(std::count(tail->begin(), tail->end(), '\n'));
    result.records = records_now;
    result.kept = static_cast<std::size_t>(std::count(kept.begin(), kept.end(), '\n'));
    const std::size_t old_size = static_cast<std::size_t>(p.through) + tail->size();
    if (old_size < kept.size() + min_saving) return result;
    const std::string tmp = name + ".compact";
    auto out = create_new_journal(dir_fd, tmp, path);
    if (!out) return out.error();
    auto give_up = [&](const Error& e) -> Expected<Compacted> {
        (void)::unlinkat(dir_fd, tmp.c_str(), 0);
        return e;
    };
    if (auto w = write_all(out->get(), kept, "the compacted journal " + tmp); !w)
        return give_up(w.error());
    if (auto f = flush_to_disk(out->get(), "the compacted journal " + tmp); !f)
        return give_up(f.error());
    if (auto s = swap_in(dir_fd, name, tmp, path); !s) return give_up(s.error());
    // A reset that could not wait for the lock appends to whichever file it opened: records it
    // added to the old one before the rename are carried over (complete lines only; one still
    // being written is appended again by its writer, which sees the name moved, journal.cpp).
    if (auto late = complete_lines_from(fd, static_cast<off_t>(old_size), path);
        late && !late->empty())
        (void)write_all(out->get(), *late, "the journal " + path);
    (void)flush_to_disk(out->get(), "the journal " + path);
    (void)flush_to_disk(dir_fd, "the journal's directory");
    result.journal = std::move(*out);
    return result;
}

Expected<Compacted> compact_journal(int dir_fd, int fd, const std::string& name,
                                    const std::string& path, std::size_t min_saving,
                                    const std::optional<Closer>& closer) {
    auto p = prepare_compaction(fd, path, closer);
    if (!p) return p.error();
    return finish_compaction(dir_fd, fd, name, path, *p, min_saving);
}

}  // namespace wiredcap::journal
