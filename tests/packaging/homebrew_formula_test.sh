#!/usr/bin/env bash
# packaging/homebrew/wiredcap.rb, as far as Linux allows (no brew here: `brew audit`, `brew
# install` and `brew test` are not run):
# - `ruby -c` accepts it; loaded with a stand-in Formula class (formula_stub.rb) its install runs
#   cmake with Homebrew's arguments, tests off and WIREDCAP_INSTALL_SETUID=OFF (an option that
#   cmake/Install.cmake has: a tree configured with it installs the helper 0755), and it
#   depends on cmake (build), cli11, fmt and nlohmann-json (build), and not on spdlog (no
#   target links it);
# - the release placeholders (url, sha256) are marked;
# - what `brew audit --strict` checks that can be checked here: the caveats never mention
#   setuid (Homebrew's Caveats cop: suggest sudo instead) and hold no escape character, and the
#   dependencies are in Homebrew's order (DependencyOrder: build dependencies first, then the
#   others, each group alphabetical);
# - the caveats give the exact one-time setup (/var/db/wiredcap, the helper's macOS journal
#   directory; /etc/wiredcap.conf only if absent), say to change the cap through sudo or to use
#   the macOS package, and that older kegs keep a root-owned helper until `brew cleanup`; the
#   command lines parse (bash -n);
# - no service block and no launchctl step: the formula never loads the boot LaunchDaemon (launchd
#   would run as root a program in the keg, which the Homebrew user can replace); the caveats say
#   that `wiredcap persist` needs the macOS package, and where the reference plist is.
#   homebrew_formula_test.sh SOURCE_DIR WORK_DIR
# shellcheck disable=SC2016,SC2317  # literal ${...} in patterns; functions called through check
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need ruby python3 cmake make
src=$1 work=$2
formula=$src/packaging/homebrew/wiredcap.rb
prefix=/opt/homebrew/Cellar/wiredcap/0.1.0
rm -rf "$work"
mkdir -p "$work"

check "ruby -c accepts the formula" quiet ruby -c "$formula"
if ! ruby "$here/formula_stub.rb" "$formula" "$prefix" >"$work/formula.json" 2>"$work/stub.err"; then
  cat "$work/stub.err" >&2
  fail "the formula does not load and install with the stand-in Formula class"
  finish
fi
# j EXPR: evaluates a Python expression over the formula's JSON (as `f`); exit status = truth.
j() { python3 -c "import json,sys; f=json.load(open(sys.argv[1])); sys.exit(0 if ($1) else 1)" "$work/formula.json"; }

check "desc, homepage, url, sha256, license are set" j 'all(f["fields"].get(k) for k in ("desc","homepage","url","sha256","license"))'
check "license MIT, as LICENSE says" j 'f["fields"]["license"] == "MIT"'
check "LICENSE is the MIT license" grep -q "MIT" "$src/LICENSE"
check "url and homepage carry the RELEASE placeholder" j '"RELEASE" in f["fields"]["url"] and "RELEASE" in f["fields"]["homepage"]'
check "sha256 is the all-zero placeholder (fails the download check until replaced)" j 'f["fields"]["sha256"] == "0"*64'
check "the file marks url and sha256 for the release" test "$(grep -c 'RELEASE:' "$formula")" -ge 2
for d in "cmake=>build" "cli11=>build" fmt "nlohmann-json=>build" "arch=>arm64" macos; do
  check "depends on $d" j "any(x == '$d' or x.startswith('$d=>') for x in f['deps'])"
done
check "does not depend on spdlog (no target links it)" j "not any(x.split('=>')[0] == 'spdlog' for x in f['deps'])"
# Homebrew's DependencyOrder: named dependencies, build-time ones first, then the others, each
# group sorted by name (arch: and :macos are requirements, not named dependencies).
check "dependencies in Homebrew's order: build first, then the others, each alphabetical" j '
(lambda named: named == sorted(named, key=lambda d: (0 if d.endswith("=>build") else 1, d.split("=>")[0])))(
  [d for d in f["deps"] if not d.startswith("arch=>") and d != "macos"])'
check "has a test block" j 'f["has_test"]'
check "install configures, builds and installs with cmake" j '[c[:2] for c in f["install"]] == [["cmake","-S"],["cmake","--build"],["cmake","--install"]]'
check "install passes Homebrew's std_cmake_args (its prefix)" j '"-DCMAKE_INSTALL_PREFIX='"$prefix"'" in f["install"][0]'
check "install turns tests off" j '"-DWIREDCAP_BUILD_TESTS=OFF" in f["install"][0]'
check "install turns the setuid bit off" j '"-DWIREDCAP_INSTALL_SETUID=OFF" in f["install"][0]'
check "cmake/Install.cmake has the WIREDCAP_INSTALL_SETUID option" grep -q '^option(WIREDCAP_INSTALL_SETUID' "$src/cmake/Install.cmake"
# Configure (no build) a tree as the formula does: its install script gives the helper 0755.
if cmake -S "$src" -B "$work/brew-tree" -DWIREDCAP_BUILD_TESTS=OFF -DWIREDCAP_INSTALL_SETUID=OFF \
     -DCMAKE_INSTALL_PREFIX="$prefix" >"$work/configure.log" 2>&1; then
  helper_rule=$(grep -h 'file(INSTALL DESTINATION "${CMAKE_INSTALL_PREFIX}/libexec/wiredcap"' \
    "$work/brew-tree/cmake_install.cmake" "$work/brew-tree"/*/cmake_install.cmake 2>/dev/null)
  check "with WIREDCAP_INSTALL_SETUID=OFF the helper is installed 0755, without SETUID" \
    test -n "$helper_rule" -a -z "$(grep SETUID <<<"$helper_rule")" -a -n "$(grep 'WORLD_EXECUTE' <<<"$helper_rule")"
else
  cat "$work/configure.log" >&2
  fail "configuring a tree with WIREDCAP_INSTALL_SETUID=OFF failed"
fi

helper=$prefix/libexec/wiredcap/wiredcap-helper
check "helper_path is PREFIX/libexec/wiredcap/wiredcap-helper" j "f['helper_path'] == '$helper'"
check "which is the path wiredcap has compiled in (ramp/CMakeLists.txt)" \
  grep -qF 'WIREDCAP_HELPER_INSTALL_PATH="${CMAKE_INSTALL_PREFIX}/libexec/wiredcap/wiredcap-helper"' "$src/cli/CMakeLists.txt"
check "and the install puts the helper there (cmake/Install.cmake)" \
  grep -qE 'install\(TARGETS wiredcap-helper RUNTIME DESTINATION libexec/wiredcap ' "$src/cmake/Install.cmake"

python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["caveats"], end="")' "$work/formula.json" >"$work/caveats.txt"
sed 's/^/    | /' "$work/caveats.txt"
has_line() { grep -qxF "  $1" "$work/caveats.txt"; }
check "caveats: never mention setuid (brew audit: suggest sudo instead)" test -z "$(grep -iwE 'setuid' "$work/caveats.txt")"
check "caveats: no escape character (brew audit)" test -z "$(LC_ALL=C grep -P '\x1b' "$work/caveats.txt")"
check "caveats: nothing makes the keg's helper root's or sets its mode" \
  test -z "$(grep -E 'chown|chmod' "$work/caveats.txt")"
check "caveats: creates /var/db/wiredcap root:wheel 0755" has_line "sudo install -d -o root -g wheel -m 0755 /var/db/wiredcap"
check "which is the helper's journal directory on macOS (helper/CMakeLists.txt)" \
  grep -qF '"/var/db/wiredcap/journal.jsonl"' "$src/helper/CMakeLists.txt"
check "caveats: installs /etc/wiredcap.conf from the template only if absent, root:wheel 0644" \
  has_line "[ -e /etc/wiredcap.conf ] || sudo install -o root -g wheel -m 0644 $prefix/share/wiredcap/wiredcap.conf.example /etc/wiredcap.conf"
check "caveats: then checks the policy" has_line "wiredcap policy check"
check "caveats: the way back, through sudo" has_line "sudo wiredcap reset"
check "caveats: changes go through sudo, or the macOS package" \
  grep -qzE 'with sudo.*use the macOS package' "$work/caveats.txt"
check "caveats: older kegs keep a root-owned helper until brew cleanup" \
  grep -qzE 'older keg keeps that root-owned helper until[[:space:]]+`brew cleanup wiredcap`' "$work/caveats.txt"
grep -E '^  (sudo|\[|wiredcap) ' "$work/caveats.txt" | sed 's/^  //' >"$work/caveat-commands.sh"
check "caveats: the command lines parse (bash -n)" bash -n "$work/caveat-commands.sh"
check "caveats: four command lines" test "$(wc -l <"$work/caveat-commands.sh")" -eq 4
code=$(sed 's/#.*//' "$formula")
check "no service block, no launchctl, nothing copied to /Library/LaunchDaemons, no sysctl" \
  test -z "$(grep -nE 'service do|launchctl|/Library/Launch|sysctl' <<<"$code")"
check "caveats: no command line installs or loads the LaunchDaemon" \
  test -z "$(grep -E 'launchctl|LaunchDaemons|org\.wiredcap\.boot' "$work/caveat-commands.sh")"
check "caveats: wiredcap persist needs the macOS package" \
  grep -qzE 'wiredcap persist.*Use the macOS package for persistence' "$work/caveats.txt"
check "caveats: the reference plist is the keg's $prefix/share/wiredcap/org.wiredcap.boot.plist" \
  grep -qF "$prefix/share/wiredcap/org.wiredcap.boot.plist" "$work/caveats.txt"

finish
