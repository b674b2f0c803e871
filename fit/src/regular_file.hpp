// A model file opened for reading its header: a regular file only (following symlinks, as a
// Hugging Face snapshot and an Ollama store need), never blocking on a FIFO or a device, closed
// when it goes out of scope. Why an open failed is said in words a person can act on.
#pragma once

#include <cstdint>
#include <string>

#include "wiredcap/expected.hpp"

namespace wiredcap::fit {

class RegularFile {
public:
    [[nodiscard]] static Expected<RegularFile> open(const std::string& path);
    RegularFile(RegularFile&& o) noexcept;
    RegularFile& operator=(RegularFile&&) = delete;
    RegularFile(const RegularFile&) = delete;
    RegularFile& operator=(const RegularFile&) = delete;
    ~RegularFile();

    [[nodiscard]] int fd() const { return fd_; }
    [[nodiscard]] std::uint64_t size() const { return size_; }

private:
    RegularFile(int fd, std::uint64_t size) : fd_(fd), size_(size) {}
    int fd_ = -1;
    std::uint64_t size_ = 0;
};

}  // namespace wiredcap::fit
