// Runs a program (no shell) and returns its exit status and standard output. The boot loader's
// own tools do the boot loader's writes (grub-editenv, update-grub): wiredcap does not
// re-implement their file formats.
#pragma once

#include <string>
#include <vector>

#include "wiredcap/expected.hpp"

namespace wiredcap::linux_amd {

struct RunResult {
    int exit_code = -1;  // -1: killed by a signal
    std::string out;
};

// argv[0], when it has no '/', is looked up in /usr/sbin, /usr/bin, /sbin, /bin (never a
// caller's PATH); the program gets only PATH of those. Fails only when it cannot start.
[[nodiscard]] Expected<RunResult> run_program(const std::vector<std::string>& argv);

}  // namespace wiredcap::linux_amd
