#!/usr/bin/env bash
# The last resort after a boot that hangs at every start, as the documentation gives it (issue
# 26): since macOS 11 "Macintosh HD" is the sealed, read-only system volume, and /etc is
# /private/etc on the Data volume, which macOS Recovery mounts as "/Volumes/Macintosh HD - Data".
# A path for Recovery anywhere else fails or lands where the booted system never looks.
# - every path under /Volumes/ in the files of documented_in (a man page's \- read as -, \(dq
#   as ") is under "/Volumes/Macintosh HD - Data/", and names private/etc, never etc, for the
#   switch: "/Volumes/Macintosh HD - Data/private" + the switch (dirname(policy) +
#   /wiredcap.boot-disabled, the macOS policy path from helper/CMakeLists.txt);
# - docs/recovery.md, the man page and status's boot alert each give that path, Safe Mode
#   before Recovery, and the FileVault unlock step (the alert: "FileVault unlocked").
#   recovery_paths_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
src=$1

data_volume="/Volumes/Macintosh HD - Data"
policy_path=$(sed -n 's/^set(WIREDCAP_POLICY_PATH "\([^"]*\)".*/\1/p' "$src/helper/CMakeLists.txt")
check "helper/CMakeLists.txt sets the policy path (got: '$policy_path')" test -n "$policy_path"
switch=${policy_path%/*}/wiredcap.boot-disabled
recovery_switch="$data_volume/private$switch"
echo "note: from Recovery the switch is $recovery_switch"

# Files that give the last resort. Every file a user reads, or whose words wiredcap prints
# (README, SECURITY, docs/, packaging/, ramp/, tools/), that names /Volumes/ must be listed: the
# check below finds the others.
documented_in=(
  SECURITY.md
  docs/recovery.md
  packaging/man/wiredcap.1
  cli/commands/boot_view.cpp
  cli/include/wiredcap/cli/commands/boot_view.hpp
)
gives_path=(docs/recovery.md packaging/man/wiredcap.1 cli/commands/boot_view.cpp)

text() {  # text FILE: as a reader sees it (roff escapes for -, " and space undone; C++ \" undone)
  sed 's/\\-/-/g; s/\\(dq/"/g; s/\\"/"/g; s/\\ / /g' "$src/$1"
}
# Every /Volumes/ path: from /Volumes/ up to a quote, a backquote, a closing bracket or the end
# of the line (the names hold spaces, so a space does not end one).
paths() { text "$1" | grep -oE '/Volumes/[^"`)<>]*' | sed 's/[ .,;:]*$//'; }

# node_modules (the cross-build's pinned Zig under tools/cross/, 13,000 files) is npm's, not ours.
others=$(cd "$src" && find README.md SECURITY.md CONTRIBUTING.md docs packaging ramp tools -name node_modules -prune -o -type f -print |
  while IFS= read -r f; do [ -f "$f" ] && grep -lI '/Volumes/' "$f"; done)
for f in $others; do
  listed=0
  for d in "${documented_in[@]}"; do [ "$d" = "$f" ] && listed=1; done
  check "$f names /Volumes/ and is in documented_in" test "$listed" = 1
done

for f in "${documented_in[@]}"; do
  while IFS= read -r p; do
    [ -n "$p" ] || continue
    case $p in
      "$data_volume"/*) check "$f: $p is on the Data volume" true ;;
      "$data_volume") check "$f: $p is the Data volume" true ;;
      *) check "$f: $p is on the Data volume ($data_volume/)" false ;;
    esac
    case $p in
      "$data_volume/etc"*) check "$f: $p goes through /etc (a link on the system volume, absent on the Data volume)" false ;;
    esac
  done < <(paths "$f")
done

for f in "${gives_path[@]}"; do
  body=$(text "$f")
  if [ "$f" = cli/commands/boot_view.cpp ]; then
    # The alert builds the path from its parts: the Data volume's constant, /private, the switch.
    check "$f: builds kRecoveryDataVolume + \"/private\" + the switch" \
      grep -q 'kRecoveryDataVolume) + "/private" + switch_path' <<<"$body"
    check "cli/include/wiredcap/cli/commands/boot_view.hpp: kRecoveryDataVolume is \"$data_volume\"" \
      grep -qF "kRecoveryDataVolume = \"$data_volume\"" <(text cli/include/wiredcap/cli/commands/boot_view.hpp)
  else
    check "$f gives $recovery_switch" grep -qF "\"$recovery_switch\"" <<<"$body"
  fi
  safe=$(grep -n -m 1 'Safe Mode' <<<"$body" | cut -d: -f1)
  recovery=$(grep -n -m 1 'macOS Recovery' <<<"$body" | cut -d: -f1)
  check "$f names Safe Mode, before macOS Recovery" test -n "$safe" -a -n "$recovery" -a "${safe:-0}" -le "${recovery:-0}"
  check "$f gives the FileVault unlock step" grep -q 'FileVault' <<<"$body"
done
check "docs/recovery.md: Mount in Disk Utility for a locked Data volume" \
  grep -q 'Disk Utility.*select "Macintosh HD - Data", click \*\*Mount\*\*' <(tr '\n' ' ' <"$src/docs/recovery.md" | tr -s ' ')

finish
