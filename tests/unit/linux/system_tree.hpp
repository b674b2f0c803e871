// A hand-made system root for the Linux backend's tests: files put at absolute paths under a
// scratch directory, read back through SystemRoot as the backend reads the machine's own.
#pragma once

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "wiredcap/linux/system_root.hpp"

namespace wiredcap::linux_amd::test {

class Tree {
public:
    Tree() {
        char tmpl[] = "/tmp/wiredcap-linux-unit.XXXXXX";
        dir_ = ::mkdtemp(tmpl);
    }
    ~Tree() { std::filesystem::remove_all(dir_); }
    Tree(const Tree&) = delete;
    Tree& operator=(const Tree&) = delete;
    void put(const std::string& path, const std::string& text) const {
        const auto p = std::filesystem::path(dir_) / path.substr(1);
        std::filesystem::create_directories(p.parent_path());
        std::ofstream(p, std::ios::binary) << text;
    }
    void mkdir(const std::string& path) const {
        std::filesystem::create_directories(std::filesystem::path(dir_) / path.substr(1));
    }
    [[nodiscard]] SystemRoot root() const { return SystemRoot(dir_); }

private:
    std::string dir_;
};

}  // namespace wiredcap::linux_amd::test
