// wiredcap-system is root's own program: launchd (systemd on Linux) starts it as root. Unlike
// wiredcap-helper, no caller ever reaches it, which is why the boot action, the journal's
// upkeep and the bootloader work may live here and nowhere near the setuid binary. So it must
// never run on someone else's behalf: not as anyone but root, and never as a setuid or setgid
// program (an installer's mistake, or a copy someone made so, would hand all of it to every
// local user).
#pragma once

#include <optional>
#include <string>

namespace wiredcap::system {

// Why this process must not run, or nullopt: its real uid is not 0; its effective and real ids
// differ; the kernel marked the exec secure (setuid, setgid, gained capabilities); or its own
// program file has the setuid or setgid bit, or cannot be examined (fail closed).
[[nodiscard]] std::optional<std::string> refusal_to_run();

}  // namespace wiredcap::system
