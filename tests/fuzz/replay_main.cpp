// Replays a fuzz corpus through a fuzz target's entry point without libFuzzer, so every build
// (GCC included) runs the corpus as an ordinary test. Arguments: files or directories.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

std::size_t replay_file(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    const std::vector<char> bytes{std::istreambuf_iterator<char>(in),
                                  std::istreambuf_iterator<char>()};
    LLVMFuzzerTestOneInput(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    return 1;
}

}  // namespace

int main(int argc, char** argv) {
    std::size_t replayed = 0;
    for (int i = 1; i < argc; ++i) {
        const std::filesystem::path arg(argv[i]);
        if (std::filesystem::is_directory(arg)) {
            for (const auto& entry : std::filesystem::directory_iterator(arg))
                if (entry.is_regular_file()) replayed += replay_file(entry.path());
        } else {
            replayed += replay_file(arg);
        }
    }
    std::cout << "replayed " << replayed << " inputs\n";
    // An empty corpus would make this test pass without checking anything.
    return replayed == 0 ? 1 : 0;
}
