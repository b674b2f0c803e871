#!/usr/bin/env bash
# packaging/sudoers.d/wiredcap, the alternative to a setuid helper:
# - `visudo -cf` accepts it;
# - every rule is the installed helper's exact path with a complete argument list: no wildcard,
#   no regular expression, no rule without arguments (which would allow any), no option (the
#   helper's --policy/--journal/--sim-state are refused only when it runs setuid, not under sudo);
# - every listed size is a valid size, and the listed `apply` lines, run in order through the
#   built helper on a simulated 192 GB Mac with packaging/wiredcap.conf.example, all succeed;
# - real sudo (Debian's, in a private mount namespace with the file as /etc/sudoers) allows
#   exactly the listed command lines to a member of the group and nothing else, and nothing to
#   a non-member. That part needs root and a private mount namespace; without them the test is
#   skipped (exit 77) with the reason.
#   sudoers_test.sh WIREDCAP WIREDCAP_HELPER WIREDCAP_SIM SOURCE_DIR WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need visudo
wiredcap=$1 helper=$2 sim=$3 src=$4 work=$5
file=$src/packaging/sudoers.d/wiredcap
installed_helper=/usr/local/libexec/wiredcap/wiredcap-helper
rm -rf "$work"
mkdir -p "$work"

check "visudo -cf accepts it" quiet visudo -cf "$file"

# The rules, comments dropped and continuation lines joined.
rules=$(sed 's/#.*//' "$file" | sed -e ':a' -e '/\\$/N; s/\\\n//; ta' | tr -s ' \t' ' ' | sed 's/^ //; s/ $//; /^$/d')
check "it has rules" test -n "$rules"
check "no wildcard or regular expression in the rules (* ? [ ] ^ \$)" test -z "$(printf '%s' "$rules" | tr -cd '*?[]^$')"
check "exactly one alias and one user specification" test "$(printf '%s\n' "$rules" | wc -l)" -eq 2
alias_line=$(printf '%s\n' "$rules" | grep '^Cmnd_Alias ')
spec_line=$(printf '%s\n' "$rules" | grep -v '^Cmnd_Alias ')
check "the user specification runs the alias as root only" \
  test "$spec_line" = "%admin ALL = (root) NOPASSWD: WIREDCAP_HELPER"
check "the alias is WIREDCAP_HELPER" grep -q '^Cmnd_Alias WIREDCAP_HELPER = ' <<<"$alias_line"

commands=$(printf '%s\n' "${alias_line#Cmnd_Alias WIREDCAP_HELPER = }" | tr ',' '\n' | sed 's/^ //; s/ $//')
applies=()
while read -r cmd; do
  path=${cmd%% *}
  args=${cmd#"$path"}
  args=${args# }
  check "'$cmd': the installed helper's exact path" test "$path" = "$installed_helper"
  case $args in
    read | reset) echo "ok: '$cmd': a complete argument list" ;;
    "apply "*)
      size=${args#apply }
      check "'$cmd': one argument after apply, not an option" test -n "$size" -a "${size#-}" = "$size" -a "${size% *}" = "$size"
      check "'$cmd': $size is a valid size" quiet "$wiredcap" convert "$size" --to MiB
      applies+=("$size")
      ;;
    *) fail "'$cmd': arguments '$args' are not read, reset or apply SIZE" ;;
  esac
done <<<"$commands"
check "it lists apply lines" test ${#applies[@]} -gt 0

# The listed sizes are inside the template's band, each raise within max_step.
mkdir -p "$work/etc" "$work/journal"
chmod 755 "$work" "$work/etc"
install -m 0644 "$src/packaging/wiredcap.conf.example" "$work/etc/wiredcap.conf"
"$sim" --state "$work/sim-state" init --profile m2ultra-192 >/dev/null || fail "wiredcap-sim init failed"
# shellcheck disable=SC2317  # called through check
h() { "$helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal/journal.jsonl" --sim-state "$work/sim-state" "$@"; }
for size in "${applies[@]}"; do
  check "the helper applies the listed $size with the template's band (192 GB Mac)" quiet h apply "$size"
done
check "and resets" quiet h reset

# --- real sudo ----------------------------------------------------------------------------------
# shellcheck source=../private_mount_ns.sh
. "$here/../private_mount_ns.sh"
need sudo
if [ "$(id -u)" != 0 ]; then
  echo "SKIP: not checked with real sudo (needs root for a private mount namespace)"
  exit 77
fi
private_mount_ns || { echo "SKIP: not checked with real sudo: $PRIVATE_NS_WHY"; exit 77; }
gid=64917
while getent group "$gid" >/dev/null; do gid=$((gid + 1)); done
install -m 0440 /dev/null "$work/sudoers"
sed 's/^%admin /%wcsudotest /' "$file" >"$work/sudoers"
cp /etc/group "$work/group"
echo "wcsudotest:x:$gid:nobody" >>"$work/group"
chmod 0644 "$work/group"
cat >"$work/in-namespace.sh" <<'EOF'
# Runs in a private mount namespace: /etc/sudoers is the file under test, nobody is in its group.
set -u
work=$1 helper=$2
shift 2
mount --bind "$work/sudoers" /etc/sudoers || exit 3
mount --bind "$work/group" /etc/group || exit 3
mount -t tmpfs tmpfs /usr/local || exit 3
mkdir -p "${helper%/*}" && cp /bin/true "$helper" || exit 3
verdict() { if sudo -n -l -U "$1" "$helper" "${@:2}" >/dev/null 2>&1; then echo allow; else echo deny; fi; }
while IFS='|' read -r user expected argline; do
  # shellcheck disable=SC2086  # the arguments are words
  got=$(verdict "$user" $argline)
  printf '%s|%s|%s|%s\n' "$got" "$expected" "$user" "$argline"
done
EOF
{
  for c in read reset; do echo "nobody|allow|$c"; done
  for s in "${applies[@]}"; do echo "nobody|allow|apply $s"; done
  echo "daemon|deny|reset"
  echo "daemon|deny|apply ${applies[0]}"
  echo "nobody|deny|"
  echo "nobody|deny|apply 100GiB"
  echo "nobody|deny|apply ${applies[0]} extra"
  echo "nobody|deny|--policy $work/etc/wiredcap.conf apply ${applies[0]}"
  echo "nobody|deny|apply ${applies[0]} --journal /etc/sudoers"
  echo "nobody|deny|--sim-state /etc/passwd reset"
  echo "nobody|deny|apply ${applies[0]} --run r1 --step 1"
  echo "nobody|deny|confirm --run r1 --step 1"
  echo "nobody|deny|--help"
} >"$work/cases"
if ! "${PRIVATE_NS[@]}" bash "$work/in-namespace.sh" "$work" "$installed_helper" <"$work/cases" >"$work/verdicts" 2>"$work/ns.err"; then
  cat "$work/ns.err" >&2
  fail "could not set up the mount namespace for sudo"
  finish
fi
while IFS='|' read -r got expected user argline; do
  check "sudo: $user may $([ "$expected" = allow ] || echo 'not ')run 'wiredcap-helper $argline'" test "$got" = "$expected"
done <"$work/verdicts"
check "every case was judged" test "$(wc -l <"$work/verdicts")" -eq "$(wc -l <"$work/cases")"

finish
