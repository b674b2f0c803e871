# macOS on Intel (x86_64), cross-compiled with Zig: see zig-macos.cmake. wiredcap's knob exists
# only on Apple Silicon; this build proves the code is not arm64-only by accident.
set(CMAKE_SYSTEM_PROCESSOR x86_64)
set(WIREDCAP_ZIG_TARGET x86_64-macos)
include("${CMAKE_CURRENT_LIST_DIR}/zig-macos.cmake")
