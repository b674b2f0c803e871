// Test tool: exec a program with an argv the shell cannot produce.
//   exec-argv PATH --no-argv          argc == 0 (argv = {NULL})
//   exec-argv PATH ARGV0 [ARGS...]    any argv[0], including "" or control characters
// The environment is passed through unchanged.
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <vector>

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: exec-argv PATH --no-argv | ARGV0 [ARGS...]\n");
        return 2;
    }
    std::vector<char*> args;
    if (std::strcmp(argv[2], "--no-argv") != 0)
        for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
    args.push_back(nullptr);
    ::execve(argv[1], args.data(), environ);
    std::perror("exec-argv: execve");
    return 127;
}
