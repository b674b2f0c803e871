// wiredcap-cli-reference bash|zsh|fish|man-options: prints one generated file (or wiredcap(1)'s
// OPTIONS section) on stdout, from the CLI::App wiredcap itself parses with. A build-time tool,
// never installed: tools/regenerate-cli-reference writes its output into packaging/.
#include <iostream>
#include <string_view>

#include "cli_model.hpp"
#include "emitters.hpp"

int main(int argc, char** argv) {
    using namespace wiredcap::cli::reference;
    const std::string_view what = argc == 2 ? argv[1] : "";
    const Command root = read_cli();
    if (what == "bash") std::cout << emit_bash(root);
    else if (what == "zsh") std::cout << emit_zsh(root);
    else if (what == "fish") std::cout << emit_fish(root);
    else if (what == "man-options") std::cout << emit_man_options(root);
    else {
        std::cerr << "usage: wiredcap-cli-reference bash|zsh|fish|man-options\n";
        return 2;
    }
    std::cout.flush();
    return std::cout ? 0 : 1;
}
