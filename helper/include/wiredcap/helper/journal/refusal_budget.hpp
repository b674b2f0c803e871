// How many refusals of one outsider reach the system log. An outsider (neither root nor in the
// policy's group) is refused before root's journal is opened, so its refusals go to the system
// log only; without a bound, a loop of calls writes a line each (500 calls, 500 lines in 3 s,
// as measured once; docs/design.md §8). Each uid gets kRefusalsPerWindow lines per kRefusalWindow; the last of them says
// that further refusals are not logged until the window ends.
//
// The count lives in `.refusals/UID` inside the journal's directory: a directory of root's,
// mode 0700, as the helper's lock is (helper_lock.hpp), so no other user can open, lock or
// change a count. One small file per uid that ever called: bounded by the accounts on the
// machine, not by how often they call. Any failure to keep the count logs the line (the log
// is the outsider's only record; a broken count must not hide it), except a file-size limit
// the caller handed over that leaves no room for one: then nothing is logged, as past the budget
// (root cannot lift that limit without CAP_SYS_RESOURCE, and logging every refusal is the flood).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <string>

namespace wiredcap::journal {

inline constexpr std::uint64_t kRefusalsPerWindow = 10;
inline constexpr std::chrono::seconds kRefusalWindow{60};

enum class RefusalLog { log, log_and_say_muted, skip };

// Counts one refusal of `uid` at `now` (seconds since the epoch) under the journal directory
// `journal_dir` (owned by `owner`), and says whether it goes to the system log.
[[nodiscard]] RefusalLog count_refusal(const std::string& journal_dir, uid_t owner, uid_t uid, std::int64_t now);

}  // namespace wiredcap::journal
