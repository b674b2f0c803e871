#!/usr/bin/env bash
# The macOS package scripts, as far as Linux allows (pkgbuild, productbuild, pkgutil and
# Installer exist only on macOS; none of this ran on a Mac):
# - build-pkg.sh, scripts/postinstall and uninstall.sh pass `bash -n` and shellcheck, use no
#   bash 4 feature (macOS's /bin/bash is 3.2); build-pkg.sh installs nothing that runs at boot;
#   neither sets a value, and postinstall's only launchctl commands are the bootout and
#   bootstrap of org.wiredcap.boot (launchd_plist_test.sh checks the plist and its paths);
# - build-pkg.sh --stage-only stages exactly the documented payload (LAYOUT.md's files plus
#   uninstall.sh, the helper not yet setuid, nothing outside /usr/local) and a well-formed
#   distribution.xml; without --stage-only it stops cleanly where pkgbuild is missing;
# - as root: postinstall, run on a staged target volume as Installer runs it, makes the helper
#   root:wheel 4755 (0755 when /etc/sudoers.d/wiredcap exists), creates /var/db/wiredcap 0755,
#   installs /etc/wiredcap.conf 0644 only when absent, copies the LaunchDaemon to
#   /Library/LaunchDaemons/org.wiredcap.boot.plist root:wheel 0644 (replaced on upgrade, a link
#   there replaced rather than followed), does not load it on a volume that is not the running
#   system, creates nothing else, and keeps a value stored for boot (boot.state) on upgrade;
#   uninstall.sh removes exactly what the pkg installed and the value stored for boot
#   (/var/db/wiredcap/boot.state, always: a later install must not apply it), keeps the policy,
#   the journal and the boot disable switch unless --purge;
# - with a launchctl stand-in: a bootstrap is retried only for launchd's teardown race
#   (error 5, the service not disabled); a service disabled in launchd's override database is
#   not tried, and the warning says `launchctl enable`; no warning claims a load at boot;
#   uninstall.sh clears its own disabled override. As root: postinstall refuses (exit 1, helper
#   0755, no LaunchDaemon, the chown/chmod to run) when a directory above the helper is not
#   root's or is writable by group or others.
#   macos_pkg_test.sh BUILD_DIR SOURCE_DIR WORK_DIR
# shellcheck disable=SC2317  # functions called through check
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need shellcheck python3
build=$1 src=$2 work=$3
mac=$src/packaging/macos
scripts=("$mac/build-pkg.sh" "$mac/scripts/postinstall" "$mac/uninstall.sh")
rm -rf "$work"
mkdir -p "$work"

# --- static checks --------------------------------------------------------------------------
for s in "${scripts[@]}"; do
  name=${s#"$src"/}
  check "$name: bash -n" bash -n "$s"
  check "$name: shellcheck" shellcheck --shell=bash "$s"
  check "$name: executable" test -x "$s"
  check "$name: runs under /bin/bash" test "$(head -n 1 "$s")" = "#!/bin/bash"
  code=$(sed 's/#.*//' "$s")
  check "$name: no bash 4 feature (mapfile, readarray, declare -A, \${x,,}, \${x^^}, &>>, |&, coproc)" \
    test -z "$(grep -nE 'mapfile|readarray|declare -A|local -A|\$\{[a-zA-Z_]+(,,|\^\^)|&>>|\|&|coproc' <<<"$code")"
done
code=$(sed 's/#.*//' "$mac/build-pkg.sh")
check "packaging/macos/build-pkg.sh: nothing that runs at boot, no value set (launchctl, LaunchDaemons, sysctl, set/apply)" \
  test -z "$(grep -nE 'launchctl|LaunchDaemon|LaunchAgent|sysctl|wiredcap(-helper)? +(set|apply|ramp)|periodic' <<<"$code")"
code=$(sed 's/#.*//' "$mac/scripts/postinstall")
check "packaging/macos/scripts/postinstall: no value set, no other boot hook (sysctl, set/apply/ramp/persist/boot, LaunchAgent, periodic, cron)" \
  test -z "$(grep -nE 'sysctl|(wiredcap|helper)\"? +(set|apply|ramp|persist|boot)\b|LaunchAgent|periodic|cron' <<<"$code")"
# shellcheck disable=SC2016  # the patterns hold the script's literal "$daemon_label" and "$daemon_plist"
check "packaging/macos/scripts/postinstall: launchctl only boots out, bootstraps and reads print-disabled (never enable or disable: an override is the person's)" \
  test -z "$(sed -E 's/[0-9]*>[^ )]*//g' <<<"$code" | grep -oE '(^|\$\(|\bif|;|&&|\|\|)\s*launchctl +[a-z-]+( +[^ )|&;]+){0,2}' |
    sed -E 's/^(\$\(|if|;|&&|\|\|)?\s*//' | sort -u |
    grep -vxE 'launchctl bootout system/"\$daemon_label"|launchctl bootstrap system "\$daemon_plist"|launchctl print-disabled system')"
check "the scripts directory holds postinstall and preinstall only (preinstall: tests/packaging/preinstall_test.sh)" \
  test "$(cd "$mac/scripts" && ls -A | tr '\n' ' ')" = "postinstall preinstall "

# launchd as postinstall and uninstall.sh meet it, with a launchctl stand-in (and a sleep that
# only counts): $STANDIN/fail counts bootstraps that fail with $STANDIN/code (5, the I/O error
# of the bootout/bootstrap race, unless set); $STANDIN/disabled, when present, is launchd's
# override database saying the service is disabled (print-disabled lists it; bootstrap fails
# with 5, every time, as launchd does); `enable` removes it.
standin=$work/launchctl-standin
mkdir -p "$standin"
cat >"$standin/launchctl" <<'EOF'
#!/bin/bash
echo "$*" >>"$STANDIN/calls"
case $1 in
  bootstrap)
    if [ -e "$STANDIN/disabled" ]; then echo "Bootstrap failed: 5: Input/output error" >&2; exit 5; fi
    left=$(cat "$STANDIN/fail")
    if [ "$left" -gt 0 ]; then
      echo $((left - 1)) >"$STANDIN/fail"; echo "Bootstrap failed: $(cat "$STANDIN/code" 2>/dev/null || echo 5): error" >&2
      exit "$(cat "$STANDIN/code" 2>/dev/null || echo 5)"
    fi ;;
  print-disabled)
    echo 'disabled services = {'
    printf '\t"com.apple.example" => disabled\n'
    if [ -e "$STANDIN/disabled" ]; then printf '\t"org.wiredcap.boot" => disabled\n'; else printf '\t"org.wiredcap.bootx" => disabled\n'; fi
    echo '}' ;;
  enable) rm -f "$STANDIN/disabled" ;;
esac
exit 0
EOF
# shellcheck disable=SC2016  # the stand-in expands $1 when it runs
printf '#!/bin/bash\necho "$1" >>"$STANDIN/sleeps"\n' >"$standin/sleep"
chmod 755 "$standin/launchctl" "$standin/sleep"
load_with() {  # load_with N [CODE] [disabled]: bootstrap fails N times first; sets LOAD_OUT, LOAD_RC
  rm -f "$standin/calls" "$standin/sleeps" "$standin/code" "$standin/disabled"; echo "$1" >"$standin/fail"
  [ -n "${2:-}" ] && echo "$2" >"$standin/code"
  [ "${3:-}" = disabled ] && touch "$standin/disabled"
  # shellcheck disable=SC2016  # the inner script expands its own variables
  LOAD_OUT=$(STANDIN=$standin PATH="$standin:$PATH" bash -c '
    set -euo pipefail
    daemon_label=org.wiredcap.boot daemon_plist=/Library/LaunchDaemons/org.wiredcap.boot.plist
    log() { printf "wiredcap postinstall: %s\n" "$*"; }
    eval "$(sed -n "/^bootstrap_attempts=/,/^# 4\. The boot LaunchDaemon/p" "$1")"
    load_boot_daemon' _ "$mac/scripts/postinstall" 2>&1)
  LOAD_RC=$?
}
calls() { grep -c "^$1" "$standin/calls"; }
no_boot_claim() { ! grep -qiE 'at the next boot|loads it at|launchd loads' <<<"$LOAD_OUT"; }
load_with 3
check "bootstrap failing 3 times after bootout: loaded at the 4th attempt" \
  test "$LOAD_RC" = 0 -a "$(calls bootout)" = 1 -a "$(calls bootstrap)" = 4 -a -n "$(grep 'loaded org.wiredcap.boot .*attempt 4' <<<"$LOAD_OUT")"
check "  ... a second between attempts (3 sleeps of 1)" test "$(tr '\n' ' ' <"$standin/sleeps")" = "1 1 1 "
load_with 0
check "bootstrap succeeding at once: one attempt, no sleep" test "$LOAD_RC" = 0 -a "$(calls bootstrap)" = 1 -a ! -e "$standin/sleeps"
load_with 1000
check "bootstrap failing with 5 every time: 10 attempts, then a warning with the command, and the install goes on" \
  test "$LOAD_RC" = 0 -a "$(calls bootstrap)" = 10 -a -n "$(grep 'warning: org.wiredcap.boot is not loaded (launchctl bootstrap system failed after 10 attempt(s).*sudo launchctl bootstrap system /Library/LaunchDaemons/org.wiredcap.boot.plist' <<<"$LOAD_OUT")"
check "  ... and it claims no load at the next boot" no_boot_claim
load_with 1000 37
check "bootstrap failing with another error (37): not retried, the warning says what to run" \
  test "$LOAD_RC" = 0 -a "$(calls bootstrap)" = 1 -a ! -e "$standin/sleeps" -a -n "$(grep 'sudo launchctl bootstrap system ' <<<"$LOAD_OUT")"
# A service disabled in launchd's override database fails every bootstrap with 5; it
# used to be tried 10 times, then the warning said launchd would load it at the next boot.
load_with 0 "" disabled
check "disabled in launchd's override database: print-disabled read, bootstrap never tried" \
  test "$LOAD_RC" = 0 -a "$(calls print-disabled)" -ge 1 -a "$(calls bootstrap)" = 0 -a ! -e "$standin/sleeps"
check "  ... it says what to run: sudo launchctl enable system/org.wiredcap.boot && sudo launchctl bootstrap system ..." \
  grep -q 'sudo launchctl enable system/org.wiredcap.boot && sudo launchctl bootstrap system /Library/LaunchDaemons/org.wiredcap.boot.plist' <<<"$LOAD_OUT"
check "  ... it does not enable it itself (the override may be the person's choice)" test "$(calls enable)" = 0
check "  ... and claims no load at boot" no_boot_claim
# uninstall.sh's unload_boot_daemon: boots it out, and clears its own disabled override.
unload_with() {  # unload_with [disabled]: sets LOAD_OUT, LOAD_RC
  rm -f "$standin/calls" "$standin/disabled"; echo 0 >"$standin/fail"
  [ "${1:-}" = disabled ] && touch "$standin/disabled"
  # shellcheck disable=SC2016  # the inner script expands its own variables
  LOAD_OUT=$(STANDIN=$standin PATH="$standin:$PATH" bash -c '
    set -euo pipefail
    daemon_label=org.wiredcap.boot
    eval "$(sed -n "/^unload_boot_daemon() {/,/^}/p" "$1")"
    unload_boot_daemon' _ "$mac/uninstall.sh" 2>&1)
  LOAD_RC=$?
}
unload_with disabled
check "uninstall.sh with a disabled override: boots out, then launchctl enable system/org.wiredcap.boot" \
  test "$LOAD_RC" = 0 -a "$(calls bootout)" = 1 -a "$(grep -c '^enable system/org.wiredcap.boot$' "$standin/calls")" = 1 -a ! -e "$standin/disabled"
unload_with
check "uninstall.sh without an override: boots out and enables nothing" \
  test "$LOAD_RC" = 0 -a "$(calls bootout)" = 1 -a "$(calls enable)" = 0

# --- staging ------------------------------------------------------------------------------------
out=$work/out
if ! "$mac/build-pkg.sh" --build-dir "$build" --out "$out" --stage-only >"$work/stage.log" 2>&1; then
  cat "$work/stage.log" >&2
  fail "build-pkg.sh --stage-only failed"
  finish
fi
root=$out/root
documented=$(sed -n '/<!-- layout:begin -->/,/<!-- layout:end -->/p' "$src/packaging/LAYOUT.md" |
  awk -F'|' '$2 ~ /`/ { p = $2; gsub(/[` ]/, "", p); print "usr/local/" p }')
expected=$(printf '%s\nusr/local/libexec/wiredcap/uninstall.sh\n' "$documented" | sort)
staged=$(cd "$root" && find . ! -type d | sed 's|^\./||' | sort)
if [ "$expected" = "$staged" ]; then
  echo "ok: the payload is LAYOUT.md's files plus uninstall.sh"
else
  fail "the payload differs (< expected, > staged):"
  diff <(printf '%s\n' "$expected") <(printf '%s\n' "$staged") >&2
fi
check "payload: the helper is not setuid yet (0755)" test "$(stat -c %a "$root/usr/local/libexec/wiredcap/wiredcap-helper")" = 755
check "payload: uninstall.sh is 0755, in libexec/wiredcap (root runs it)" test "$(stat -c %a "$root/usr/local/libexec/wiredcap/uninstall.sh")" = 755
# What root reads while installing travels in the scripts directory, not in the payload's share/.
for f in postinstall root-chain.sh org.wiredcap.boot.plist wiredcap.conf.example; do
  check "scripts directory: $f" test -f "$out/scripts/$f"
done
check "scripts directory: root-chain.sh is packaging/fleet/root-chain.sh" cmp -s "$out/scripts/root-chain.sh" "$src/packaging/fleet/root-chain.sh"
code=$(sed 's/#.*//' "$mac/scripts/postinstall" | grep -v 'log ')
check "postinstall runs and reads nothing from the payload's bin/ or share/ (a user may own them)" \
  test -z "$(grep -nE 'prefix/(bin|share)' <<<"$code")"
check "payload: nothing outside /usr/local" \
  test -z "$(cd "$root" && find . -mindepth 1 ! -path ./usr ! -path ./usr/local ! -path './usr/local/*')"
check "distribution.xml: well-formed, arm64 only, macOS 14 or later (13 has no knob: refused), the package's id and version" \
  python3 - "$out/distribution.xml" "$(sed -n 's/^CMAKE_PROJECT_VERSION:[A-Z]*=//p' "$build/CMakeCache.txt")" <<'EOF'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
version = sys.argv[2]
assert root.tag == "installer-gui-script", root.tag
assert root.find("options").get("hostArchitectures") == "arm64"
assert root.find("volume-check/allowed-os-versions/os-version").get("min") == "14.0"
refs = [r for r in root.findall("pkg-ref") if r.text]
assert len(refs) == 1 and refs[0].text == "wiredcap-component.pkg", refs
assert refs[0].get("version") == version and refs[0].get("id") == "org.wiredcap.wiredcap", refs[0].attrib
EOF
# A package is signed twice or explicitly unsigned; the refusals come before anything is built.
refused_unsigned() {  # refused_unsigned MESSAGE ARGS...: exit 1, MESSAGE said, nothing made
  local msg=$1; shift
  rm -rf "$work/out-refused"
  "$mac/build-pkg.sh" --build-dir "$build" --out "$work/out-refused" "$@" >"$work/refused.log" 2>&1
  [ $? = 1 ] && grep -q -- "$msg" "$work/refused.log" && [ ! -e "$work/out-refused" ]
}
check "no signing identity and no --unsigned: refused before anything is built" \
  refused_unsigned 'a package is signed: give --codesign'
check "--sign alone (the programs unsigned): refused" refused_unsigned 'a package is signed' --sign 'Developer ID Installer: X'
check "--codesign alone (the archive unsigned): refused" refused_unsigned 'a package is signed' --codesign 'Developer ID Application: X'
check "--unsigned with --sign: refused as a contradiction" \
  refused_unsigned '--unsigned contradicts' --unsigned --sign 'Developer ID Installer: X'
if command -v pkgbuild >/dev/null; then
  echo "note: pkgbuild exists here; the full build is not run by the test suite"
else
  "$mac/build-pkg.sh" --build-dir "$build" --out "$work/out-full" --unsigned >"$work/full.log" 2>&1
  rc=$?
  check "--unsigned, without --stage-only and without pkgbuild: exit 1 with a clear message" \
    test "$rc" = 1 -a -n "$(grep 'pkgbuild and productbuild are macOS tools' "$work/full.log")"
  check "and no .pkg is left behind" test -z "$(find "$work/out-full" -name '*.pkg')"
fi

# --- postinstall and uninstall on a staged target volume ---------------------------------------
if [ "$(id -u)" != 0 ]; then
  echo "note: not root, so postinstall and uninstall.sh (chown root) are not run"
  finish
fi
postinstall=$out/scripts/postinstall
new_volume() {  # a target volume holding the payload, as Installer leaves it before postinstall
  rm -rf "$1"
  mkdir -p "$1"
  cp -a "$root/." "$1/"
  chown -R 0:0 "$1"
}
tree() { (cd "$1" && find . -mindepth 1 | sed 's|^\./||' | sort); }
vol=$work/volume
new_volume "$vol"
tree "$vol" >"$work/before"
check "postinstall succeeds on a fresh volume" quiet "$postinstall" "$out/wiredcap.pkg" / "$vol" /
h=$vol/usr/local/libexec/wiredcap/wiredcap-helper
check "postinstall: helper root:wheel (0:0), setuid 4755" test "$(stat -c '%u:%g %a' "$h")" = "0:0 4755"
check "postinstall: /var/db/wiredcap root:wheel 0755" test "$(stat -c '%u:%g %a' "$vol/var/db/wiredcap")" = "0:0 755"
check "postinstall: /etc/wiredcap.conf root:wheel 0644" test "$(stat -c '%u:%g %a' "$vol/etc/wiredcap.conf")" = "0:0 644"
check "postinstall: /etc/wiredcap.conf is the template" cmp -s "$vol/etc/wiredcap.conf" "$src/packaging/wiredcap.conf.example"
daemon=$vol/Library/LaunchDaemons/org.wiredcap.boot.plist
check "postinstall: the LaunchDaemon is a regular file, root:wheel 0644" \
  test -f "$daemon" -a ! -L "$daemon" -a "$(stat -c '%u:%g %a' "$daemon")" = "0:0 644"
check "postinstall: the LaunchDaemon is the package's plist" cmp -s "$daemon" "$src/packaging/macos/org.wiredcap.boot.plist"
check "postinstall: it says it did not load it (not the running system)" \
  grep -q 'not loading org.wiredcap.boot now (not the running system)' <("$postinstall" "$out/wiredcap.pkg" / "$vol" / 2>&1)
created=$(comm -13 "$work/before" <(tree "$vol") | tr '\n' ' ')
expected_created=$(printf '%s\n' etc etc/wiredcap.conf var var/db var/db/wiredcap \
  Library Library/LaunchDaemons Library/LaunchDaemons/org.wiredcap.boot.plist | sort | tr '\n' ' ')
check "postinstall created exactly etc/wiredcap.conf, var/db/wiredcap and the LaunchDaemon (got: $created)" \
  test "$created" = "$expected_created"

printf 'min = 24GiB\nmax = 52GiB\nreserve = 12GiB\nmax_step = 8GiB\n' >"$vol/etc/wiredcap.conf"
chmod 0600 "$vol/etc/wiredcap.conf"
cp "$vol/etc/wiredcap.conf" "$work/custom.conf"
echo '{"v":1,"event":"applied"}' >"$vol/var/db/wiredcap/journal.jsonl"
# A value stored for boot (what `wiredcap persist` leaves; the content does not matter here).
boot_state=$vol/var/db/wiredcap/boot.state
printf 'stored for boot\n' >"$boot_state"
chmod 0644 "$boot_state"
chmod 0755 "$h"
check "postinstall again (an upgrade) succeeds" quiet "$postinstall" "$out/wiredcap.pkg" / "$vol" /
check "an upgrade keeps the administrator's policy, content and mode" \
  test "$(cmp -s "$vol/etc/wiredcap.conf" "$work/custom.conf" && stat -c %a "$vol/etc/wiredcap.conf")" = 600
check "an upgrade keeps the journal" grep -q applied "$vol/var/db/wiredcap/journal.jsonl"
check "an upgrade keeps the value stored for boot (boot.state)" grep -q 'stored for boot' "$boot_state"
check "an upgrade makes the helper setuid again" test "$(stat -c %a "$h")" = 4755

echo '<plist version="1.0"><dict/></plist>' >"$daemon"
chmod 0666 "$daemon"
check "postinstall again (an upgrade over a changed LaunchDaemon) succeeds" quiet "$postinstall" "$out/wiredcap.pkg" / "$vol" /
check "an upgrade restores the package's LaunchDaemon, root:wheel 0644" \
  test "$(cmp -s "$daemon" "$src/packaging/macos/org.wiredcap.boot.plist" && stat -c '%u:%g %a' "$daemon")" = "0:0 644"
echo decoy >"$work/decoy"
rm "$daemon"
ln -s "$work/decoy" "$daemon"
check "postinstall with a link at the LaunchDaemon's path succeeds" quiet "$postinstall" "$out/wiredcap.pkg" / "$vol" /
check "the link is replaced by the package's plist, not followed" \
  test ! -L "$daemon" -a "$(cat "$work/decoy")" = decoy -a -n "$(cmp "$daemon" "$src/packaging/macos/org.wiredcap.boot.plist" && echo same)"

mkdir -p "$vol/etc/sudoers.d"
install -m 0440 "$src/packaging/sudoers.d/wiredcap" "$vol/etc/sudoers.d/wiredcap"
check "postinstall with the sudoers alternative succeeds" quiet "$postinstall" "$out/wiredcap.pkg" / "$vol" /
check "with /etc/sudoers.d/wiredcap the helper is root:wheel 0755, not setuid" test "$(stat -c '%u:%g %a' "$h")" = "0:0 755"

vol2=$work/volume-link
new_volume "$vol2"
mkdir -p "$vol2/var/db" "$work/elsewhere"
ln -s "$work/elsewhere" "$vol2/var/db/wiredcap"
"$postinstall" "$out/wiredcap.pkg" / "$vol2" / >/dev/null 2>&1
check "postinstall refuses a symlinked /var/db/wiredcap" test $? = 1
vol3=$work/volume-nohelper
new_volume "$vol3"
rm "$vol3/usr/local/libexec/wiredcap/wiredcap-helper"
"$postinstall" "$out/wiredcap.pkg" / "$vol3" / >/dev/null 2>&1
check "postinstall fails when the payload's helper is missing" test $? = 1
vol4=$work/volume-noplist
new_volume "$vol4"
rm -rf "$work/scripts-noplist"
cp -a "$out/scripts" "$work/scripts-noplist"
rm "$work/scripts-noplist/org.wiredcap.boot.plist"
tree "$vol4" >"$work/before4"
"$work/scripts-noplist/postinstall" "$out/wiredcap.pkg" / "$vol4" / >/dev/null 2>&1
check "postinstall fails when the package's LaunchDaemon plist is missing" test $? = 1
check "  ... before changing anything" test -z "$(comm -3 "$work/before4" <(tree "$vol4"))" -a \
  "$(stat -c %a "$vol4/usr/local/libexec/wiredcap/wiredcap-helper")" = 755

# A /usr/local a user owns (Macs migrated from Intel Homebrew), or a directory above
# the helper that group or others may write: that user could replace the program launchd runs
# as root every minute. postinstall used to warn, then set the setuid bit and install the
# daemon. Here an earlier install left a setuid helper and the LaunchDaemon behind.
unsafe_volume() {  # unsafe_volume DIR: a volume after an earlier install
  new_volume "$1"
  "$postinstall" "$out/wiredcap.pkg" / "$1" / >/dev/null 2>&1
}
vol5=$work/volume-user-prefix
unsafe_volume "$vol5"
chown 65534 "$vol5/usr/local"
"$postinstall" "$out/wiredcap.pkg" / "$vol5" / >"$work/refused-out" 2>"$work/refused-err"
check "a user-owned /usr/local: postinstall refuses (exit 1)" test $? = 1
h5=$vol5/usr/local/libexec/wiredcap/wiredcap-helper
check "  ... the helper is root:wheel 0755, not setuid (the earlier install's setuid bit is gone)" \
  test "$(stat -c '%u:%g %a' "$h5")" = "0:0 755"
check "  ... no LaunchDaemon (the earlier one removed)" \
  test ! -e "$vol5/Library/LaunchDaemons/org.wiredcap.boot.plist" -a ! -L "$vol5/Library/LaunchDaemons/org.wiredcap.boot.plist"
check "  ... it says the chown to run" grep -qF "sudo chown root:wheel '$vol5/usr/local'" "$work/refused-err"
check "  ... and says it refused" grep -q 'REFUSED: whoever may change a directory above' "$work/refused-err"
vol6=$work/volume-group-writable
unsafe_volume "$vol6"
chmod 0775 "$vol6/usr/local/libexec"
"$postinstall" "$out/wiredcap.pkg" / "$vol6" / >/dev/null 2>"$work/refused-err"
check "a group-writable /usr/local/libexec: postinstall refuses (exit 1), says the chmod to run" \
  test $? = 1 -a -n "$(grep -F "sudo chmod go-w '$vol6/usr/local/libexec'" "$work/refused-err")"
check "  ... the helper not setuid, no LaunchDaemon" \
  test "$(stat -c %a "$vol6/usr/local/libexec/wiredcap/wiredcap-helper")" = 755 -a ! -e "$vol6/Library/LaunchDaemons/org.wiredcap.boot.plist"
chmod 0755 "$vol6/usr/local/libexec"
check "after the chmod it prints, postinstall installs again: setuid helper and LaunchDaemon" \
  test "$("$postinstall" "$out/wiredcap.pkg" / "$vol6" / >/dev/null 2>&1; echo $?)" = 0 -a \
  "$(stat -c %a "$vol6/usr/local/libexec/wiredcap/wiredcap-helper")" = 4755 -a -f "$vol6/Library/LaunchDaemons/org.wiredcap.boot.plist"
chmod 0757 "$vol6"
"$postinstall" "$out/wiredcap.pkg" / "$vol6" / >/dev/null 2>"$work/refused-err"
check "a volume root writable by others: refused, chmod go-w of the volume's root" \
  test $? = 1 -a -n "$(grep -F "sudo chmod go-w '$vol6'" "$work/refused-err")"

# Intel Homebrew's /usr/local: bin/ and share/ belong to a user and are group-writable, while
# /usr/local and libexec/ stay root's. That user planted a LaunchDaemon template, a policy
# template and a wiredcap that leaves a marker. postinstall installs the package's own plist
# and policy (from its scripts directory), and runs nothing from bin/.
vol7=$work/volume-homebrew
new_volume "$vol7"
p7=$vol7/usr/local
chown 65534:65534 "$p7/bin" "$p7/share" "$p7/share/wiredcap"
chmod 0775 "$p7/bin" "$p7/share" "$p7/share/wiredcap"
printf '#!/bin/sh\ntouch %q\n' "$work/planted-ran" >"$p7/bin/wiredcap"
printf '<plist version="1.0"><dict><key>Label</key><string>org.wiredcap.boot</string><key>ProgramArguments</key><array><string>%s</string></array></dict></plist>\n' \
  "$p7/bin/wiredcap" >"$p7/share/wiredcap/org.wiredcap.boot.plist"
printf 'min = 1GiB\nmax = 1TiB\n' >"$p7/share/wiredcap/wiredcap.conf.example"
chown 65534:65534 "$p7/bin/wiredcap" "$p7/share/wiredcap/org.wiredcap.boot.plist" "$p7/share/wiredcap/wiredcap.conf.example"
rm -f "$work/planted-ran"
check "a user's bin/ and share/ (Intel Homebrew): postinstall succeeds (libexec/ is root's)" \
  quiet "$postinstall" "$out/wiredcap.pkg" / "$vol7" /
check "  ... the LaunchDaemon is the package's plist, not the one planted in share/" \
  cmp -s "$vol7/Library/LaunchDaemons/org.wiredcap.boot.plist" "$src/packaging/macos/org.wiredcap.boot.plist"
check "  ... the policy is the package's template, not the one planted in share/" \
  cmp -s "$vol7/etc/wiredcap.conf" "$src/packaging/wiredcap.conf.example"
check "  ... and the planted wiredcap never ran" test ! -e "$work/planted-ran"

# uninstall.sh on the upgraded volume (it has a policy, a journal and the sudoers rule).
mkdir -p "$vol/usr/local/bin"
echo other >"$vol/usr/local/bin/other-tool"
echo other >"$vol/Library/LaunchDaemons/org.example.other.plist"
touch "$vol/etc/wiredcap.boot-disabled"
# A write of the boot state cut short leaves its temporary file beside it.
printf 'stored for boot\n' >"$boot_state.new"
check "the volume holds a value stored for boot before uninstall.sh" test -f "$boot_state" -a -f "$boot_state.new"
uninstall=$vol/usr/local/libexec/wiredcap/uninstall.sh
check "uninstall.sh --root succeeds" quiet "$uninstall" --root "$vol"
check "uninstall.sh (without --purge) removed the value stored for boot, boot.state and boot.state.new" \
  test ! -e "$boot_state" -a ! -L "$boot_state" -a ! -e "$boot_state.new"
check "  ... and kept the journal beside it" grep -q applied "$vol/var/db/wiredcap/journal.jsonl"
left=$(tree "$vol" | tr '\n' ' ')
expected_left=$(printf '%s\n' etc etc/sudoers.d etc/wiredcap.boot-disabled etc/wiredcap.conf \
  Library Library/LaunchDaemons Library/LaunchDaemons/org.example.other.plist \
  usr usr/local usr/local/bin usr/local/bin/other-tool usr/local/libexec usr/local/share \
  usr/local/share/bash-completion usr/local/share/bash-completion/completions usr/local/share/fish \
  usr/local/share/fish/vendor_completions.d usr/local/share/man usr/local/share/man/man1 \
  usr/local/share/man/man8 usr/local/share/zsh usr/local/share/zsh/site-functions \
  var var/db var/db/wiredcap var/db/wiredcap/journal.jsonl | sort | tr '\n' ' ')
check "uninstall.sh removed every installed file, the LaunchDaemon, the sudoers rule and the stored boot value; kept the policy, the journal, the disable switch, shared directories and other files" \
  test "$left" = "$expected_left"
[ "$left" = "$expected_left" ] || diff <(tr ' ' '\n' <<<"$expected_left") <(tr ' ' '\n' <<<"$left") >&2
check "uninstall.sh --purge succeeds" quiet "$out/root/usr/local/libexec/wiredcap/uninstall.sh" --root "$vol" --purge
check "--purge removed the policy, the journal and the disable switch" \
  test ! -e "$vol/etc/wiredcap.conf" -a ! -e "$vol/var/db/wiredcap" -a ! -e "$vol/etc/wiredcap.boot-disabled"
check "--purge kept other LaunchDaemons" test -f "$vol/Library/LaunchDaemons/org.example.other.plist"

# uninstall.sh from a directory a user may write (the old share/wiredcap/ under a user-owned
# share/): refused, naming that directory, nothing removed.
vol8=$work/volume-uninstall-copy
new_volume "$vol8"
mkdir -p "$vol8/usr/local/share/wiredcap"
cp "$out/root/usr/local/libexec/wiredcap/uninstall.sh" "$vol8/usr/local/share/wiredcap/uninstall.sh"
chown 65534 "$vol8/usr/local/share"
tree "$vol8" >"$work/before8"
"$vol8/usr/local/share/wiredcap/uninstall.sh" --root "$vol8" >/dev/null 2>"$work/refused-err"
check "uninstall.sh in a user-owned share/: refused (exit 1), naming $vol8/usr/local/share" \
  test $? = 1 -a -n "$(grep -F "$vol8/usr/local/share is owned by uid 65534, not root" "$work/refused-err")"
check "  ... and removed nothing" test -z "$(comm -3 "$work/before8" <(tree "$vol8"))"

finish
