#!/usr/bin/env bash
# `DESTDIR=... cmake --install BUILD --prefix /usr/local` produces exactly the layout documented in
# packaging/LAYOUT.md (and README's table): the same files and no others, the documented modes
# (the helper 4755, programs 0755, data 0644, directories 0755), nothing outside the prefix, no
# test program, root-owned when installed by root; and wiredcap has the installed helper's path
# compiled in.
#   install_layout_test.sh BUILD_DIR SOURCE_DIR WORK_DIR CONFIGURED_PREFIX
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need cmake stat find
build=$1 src=$2 work=$3 configured_prefix=$4
prefix=/usr/local

rm -rf "$work"
mkdir -p "$work"
dest=$work/destdir
if ! DESTDIR=$dest cmake --install "$build" --prefix "$prefix" >"$work/install.log" 2>&1; then
  cat "$work/install.log" >&2
  fail "cmake --install failed"
  finish
fi

mode_of() { printf '%04d' "$(stat -c %a "$1")"; }

# The documented table: "path mode" lines.
documented=$(sed -n '/<!-- layout:begin -->/,/<!-- layout:end -->/p' "$src/packaging/LAYOUT.md" |
  awk -F'|' '$2 ~ /`/ { p = $2; m = $3; gsub(/[` ]/, "", p); gsub(/ /, "", m); print p " " m }' | sort)
check "LAYOUT.md documents the install" test -n "$documented"

# What the install produced: every file and link under DESTDIR, as "path mode" under the prefix.
actual=$(cd "$dest" && find . ! -type d | sort | while read -r f; do
  printf '%s %s\n' "${f#./"${prefix#/}"/}" "$(mode_of "$f")"
done)
if [ "$documented" != "$actual" ]; then
  fail "the install differs from packaging/LAYOUT.md (< documented, > installed):"
  diff <(printf '%s\n' "$documented") <(printf '%s\n' "$actual") >&2
else
  echo "ok: exactly the documented files and modes:"
  printf '%s\n' "$actual" | sed 's/^/    /'
fi

outside=$(cd "$dest" && find . -mindepth 1 ! -path ./usr ! -path ./usr/local ! -path "./usr/local/*")
check "nothing outside $prefix (no /etc, /var, /Library)" test -z "$outside"
check "only regular files (no links, devices, FIFOs)" test -z "$(find "$dest" ! -type d ! -type f)"
# Every other program the build made (wiredcap-sim, wiredcap-helper-suidtest, the test tools).
for p in "$build"/bin/*; do
  t=${p##*/}
  case $t in wiredcap | wiredcap-helper | wiredcap-system) continue ;; esac
  check "build-tree program $t is not installed" test -z "$(find "$dest" -name "$t")"
done
bad_dirs=$(find "$dest" -mindepth 1 -type d ! -perm 0755)
check "every directory is 0755" test -z "$bad_dirs"
helper=$dest$prefix/libexec/wiredcap/wiredcap-helper
check "the helper is setuid (4755)" test "$(mode_of "$helper")" = 4755

if [ "$(id -u)" = 0 ]; then
  not_root=$(find "$dest" \( ! -uid 0 -o ! -gid 0 \) -print)
  check "installed by root: every file and directory is owned by uid 0, gid 0" test -z "$not_root"
else
  echo "note: not root, so ownership is not checked (the pkg applies root:wheel)"
fi

# The installed programs run, and wiredcap looks for the helper where the install put it.
check "installed wiredcap --help runs" quiet "$dest$prefix/bin/wiredcap" --help
check "installed wiredcap-helper --help runs" quiet "$helper" --help
compiled_in=$configured_prefix/libexec/wiredcap/wiredcap-helper
check "wiredcap has the helper path $compiled_in compiled in" grep -q -a -F "$compiled_in" "$dest$prefix/bin/wiredcap"
if [ "$configured_prefix" != "$prefix" ]; then
  echo "note: this build was configured with prefix $configured_prefix, so its wiredcap would look there"
fi

# docs/install.md's table of what gets installed lists every file too.
while read -r path _; do
  check "docs/install.md lists /usr/local/$path" grep -q -F "/usr/local/$path" "$src/docs/install.md"
done <<<"$documented"

finish
