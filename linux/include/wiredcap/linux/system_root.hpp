// Every file the Linux backend reads or writes, under one root directory: "/" on a real
// machine, a scratch tree made by the simulator (wiredcap-sim-linux) in the tests. Nothing in
// linux/ opens an absolute path of its own.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "wiredcap/expected.hpp"

namespace wiredcap::linux_amd {

class SystemRoot {
public:
    explicit SystemRoot(std::filesystem::path root) : root_(std::move(root)) {}

    // "/sys/module/ttm" -> <root>/sys/module/ttm
    [[nodiscard]] std::filesystem::path at(std::string_view absolute) const;
    [[nodiscard]] bool is_real() const { return root_ == "/"; }
    [[nodiscard]] const std::filesystem::path& root() const { return root_; }

    // The whole file, or nullopt when it cannot be read.
    [[nodiscard]] std::optional<std::string> read(std::string_view absolute) const;
    // The first line without its newline and surrounding blanks (sysfs values).
    [[nodiscard]] std::optional<std::string> read_value(std::string_view absolute) const;
    [[nodiscard]] bool exists(std::string_view absolute) const;
    // Names in a directory, sorted; empty when it is absent.
    [[nodiscard]] std::vector<std::string> list(std::string_view absolute) const;

    // Replaces the file atomically (a temporary in the same directory, fsync, rename), so a
    // crash leaves the old file or the new one, never half of each. Mode 0644.
    [[nodiscard]] Expected<Ok> write(std::string_view absolute, std::string_view content) const;
    // Removes the file; absent already is success.
    [[nodiscard]] Expected<Ok> remove(std::string_view absolute) const;

private:
    std::filesystem::path root_;
};

// A decimal unsigned integer, the whole string; nullopt otherwise.
[[nodiscard]] std::optional<std::uint64_t> parse_u64(std::string_view text);

}  // namespace wiredcap::linux_amd
