// Why a setuid-root helper runs without root, for the one sentence it prints before refusing.
// Nothing here decides anything: the helper has already found that it is not root; this only
// names the likely cause, so that a person on a Mac whose helper sits on a volume mounted
// nosuid (an external disk, a disk image) is told so instead of "install it setuid root".
#pragma once

#include <optional>
#include <string>

namespace wiredcap::process {

// The reason the setuid bit of this program file is not in effect, or nullopt when the file is
// not setuid root (or cannot be examined): "its volume (mounted at /Volumes/X) is mounted
// nosuid" when statvfs says so, else the other causes this kernel has: Linux's no_new_privs or a
// tracer; on a Mac a tracer only (xnu has no no_new_privs).
[[nodiscard]] std::optional<std::string> setuid_ignored_reason();

}  // namespace wiredcap::process
