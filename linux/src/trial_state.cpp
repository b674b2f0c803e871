#include "wiredcap/linux/trial_state.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <filesystem>
#include <set>
#include <sstream>

#include "wiredcap/linux/trial_journal.hpp"
#include "wiredcap/units/format.hpp"

namespace wiredcap::linux_amd {
namespace {

using units::Pages;
using units::PageSize;

std::string serialize(const TrialState& s) {
    std::ostringstream o;
    o << "phase=" << s.phase << "\nparam=" << s.param << "\npages=" << s.pages
      << "\npage_size=" << s.page_size << "\nscheduled_boot_id=" << s.scheduled_boot_id
      << "\ntrial_boot_id=" << s.trial_boot_id << "\ndefault_param=" << s.default_param
      << "\ndefault_pages=" << s.default_pages << "\nhealthy=" << (s.healthy ? 1 : 0) << "\n";
    return o.str();
}

}  // namespace

Expected<TrialState> load_trial_state(const SystemRoot& root) {
    TrialState s;
    const auto text = root.read(kStateFile);
    if (!text) return s;  // nothing tried yet
    std::istringstream in(*text);
    std::set<std::string> seen;
    int n = 0;
    for (std::string line; std::getline(in, line);) {
        ++n;
        const auto bad = [&](const std::string& why) {
            return Error{std::string(kStateFile) + " line " + std::to_string(n) + ": " + why};
        };
        const auto eq = line.find('=');
        if (eq == std::string::npos) return bad("not key=value");
        const std::string k = line.substr(0, eq);
        const std::string v = line.substr(eq + 1);
        if (!seen.insert(k).second) return bad("duplicate " + k);
        const auto number = [&](std::uint64_t& out) {
            const auto parsed = parse_u64(v);
            if (parsed) out = *parsed;
            return parsed.has_value();
        };
        bool ok = true;
        if (k == "phase") {
            s.phase = v;
            ok = v == "none" || v == "scheduled" || v == "booted" || v == "default";
        } else if (k == "param") {
            s.param = v;
        } else if (k == "pages") {
            ok = number(s.pages);
        } else if (k == "page_size") {
            ok = number(s.page_size);
        } else if (k == "scheduled_boot_id") {
            s.scheduled_boot_id = v;
        } else if (k == "trial_boot_id") {
            s.trial_boot_id = v;
        } else if (k == "default_param") {
            s.default_param = v;
        } else if (k == "default_pages") {
            ok = number(s.default_pages);
        } else if (k == "healthy") {  // not a journal word: the trial state file's key
            ok = v == "0" || v == "1";
            s.healthy = v == "1";
        } else {
            return bad("unknown key " + k);
        }
        if (!ok) return bad("bad value for " + k);
    }
    if (!seen.count("phase")) return Error{std::string(kStateFile) + ": no phase"};
    return s;
}

Expected<Ok> save_trial_state(const SystemRoot& root, const TrialState& s) {
    return root.write(kStateFile, serialize(s));
}

std::optional<Pages> trial_pages(const TrialState& s) {
    const auto size = PageSize::from_bytes(s.page_size);
    return size ? Pages::from_count(s.pages, *size) : std::nullopt;
}

namespace {

std::string value_text(const std::string& param, std::uint64_t pages, std::uint64_t page_size) {
    std::string t = param + "=" + std::to_string(pages);
    const auto size = PageSize::from_bytes(page_size);
    const auto p = size ? Pages::from_count(pages, *size) : std::nullopt;
    return p ? t + " (" + units::describe(*p) + ")" : t;
}

}  // namespace

std::string trial_summary(const TrialState& s, std::optional<units::MiB> ceiling) {
    if (s.phase == "none") return "none";
    const std::string tried = value_text(s.param, s.pages, s.page_size);
    const bool has_default = !s.default_param.empty();
    const std::string stored =
        has_default ? value_text(s.default_param, s.default_pages, s.page_size) : "";
    if (s.phase != "default") {
        std::string t = s.phase + ": " + tried;
        if (s.phase == "booted") t += s.healthy ? ", healthy" : ", not yet healthy";
        return has_default ? t + "; the default stays " + stored : t;
    }
    std::string t = "default: " + stored;
    if (s.pages == 0 || (s.param == s.default_param && s.pages == s.default_pages)) return t;
    const auto p = trial_pages(s);
    const bool hung = ceiling && p && p->to_bytes() >= units::Bytes(*ceiling);
    return t + "; the last trial, " + tried +
           (hung ? ", HUNG: it is the hang ceiling" : ", was not made default");
}

Pages ceiling_pages(units::MiB ceiling, PageSize size) {
    return units::floor_pages(units::Bytes(ceiling), size);
}

std::string describe_ceiling(units::MiB ceiling, std::optional<PageSize> size) {
    return size ? units::describe(ceiling_pages(ceiling, *size)) : units::describe(ceiling);
}

VerbLock::VerbLock(const SystemRoot& root) {
    const auto path = root.at(kLockFile);
    std::error_code ec;
    std::filesystem::create_directories(path.parent_path(), ec);
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    for (int i = 0; fd_ >= 0 && i < 50; ++i) {
        if (::flock(fd_, LOCK_EX | LOCK_NB) == 0) {
            held_ = true;
            return;
        }
        ::usleep(100'000);
    }
}

VerbLock::~VerbLock() {
    if (fd_ >= 0) ::close(fd_);
}

}  // namespace wiredcap::linux_amd
