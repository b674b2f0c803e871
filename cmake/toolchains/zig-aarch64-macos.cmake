# macOS on Apple Silicon (arm64), cross-compiled with Zig: see zig-macos.cmake.
set(CMAKE_SYSTEM_PROCESSOR arm64)
set(WIREDCAP_ZIG_TARGET aarch64-macos)
include("${CMAKE_CURRENT_LIST_DIR}/zig-macos.cmake")
