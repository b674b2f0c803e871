# One interface target carries the project's warning flags, so every target of ours gets the
# same strictness and no third-party header is compiled with it by accident.
add_library(wiredcap_warnings INTERFACE)
target_compile_options(wiredcap_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wconversion -Wsign-conversion -Wold-style-cast
  -Wnon-virtual-dtor -Woverloaded-virtual -Wnull-dereference -Wformat=2 -Wimplicit-fallthrough)
if(WIREDCAP_WERROR)
  target_compile_options(wiredcap_warnings INTERFACE -Werror)
endif()
# GCC 12 at -O2/-O3 reports -Wrestrict on ordinary std::string concatenation inside libstdc++
# (GCC bug 105329, fixed in GCC 13). The warning is about the library, not our code.
if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
  target_compile_options(wiredcap_warnings INTERFACE -Wno-restrict)
endif()
