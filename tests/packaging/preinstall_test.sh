#!/usr/bin/env bash
# The macOS package's preinstall refuses while a ramp step awaits confirmation (the payload would
# leave the helper 0755 until postinstall, and the ramp's guard could not revert through it).
# It runs as Installer runs it, as root with TARGET_VOLUME "/", in a private mount namespace whose
# /usr/local is a tmpfs holding the installed files: wiredcap-system (a root-owned wrapper that
# runs the built one against a simulated Mac) and a stand-in wiredcap-helper.
#   - a step applied by the real helper and not confirmed: exit 1, the settling command named,
#     the helper's file, the journal and the simulator's write history unchanged;
#   - once `wiredcap reset` settles it: exit 0;
#   - a first install (no wiredcap-system): exit 0; a wiredcap-system that others can write: refused.
#   preinstall_test.sh WIREDCAP HELPER SYSTEM SIM SOURCE_DIR WORK_DIR
WIREDCAP=$1 HELPER=$2 SYSTEM=$3 SIM=$4 SRC=$5 WORK=$6
# shellcheck source=tests/integration/lib.sh
. "$SRC/tests/integration/lib.sh"
# shellcheck source=tests/private_mount_ns.sh
. "$SRC/tests/private_mount_ns.sh"
[ "$(id -u)" = 0 ] || { echo "SKIP: preinstall runs as root"; exit 77; }
private_mount_ns || { echo "SKIP: $PRIVATE_NS_WHY"; exit 77; }
preinstall=$SRC/packaging/macos/scripts/preinstall

new_tree m2ultra-192
standard_policy
sim default-cap 64GiB >/dev/null || fail "cannot set the OS default"
mkdir -p "$WORK/journal" && chmod 755 "$WORK/journal"
# A ramp's first step, applied by the real helper and not confirmed: what a running ramp leaves.
helper apply 80GiB --run r-open --step 1 --effective 64GiB --effective-source simulated-metal; expect_rc 0

# Inside the namespace: /usr/local as Installer would find it, then preinstall as Installer runs it.
cat >"$WORK/inside.sh" <<'SH'
set -u
work=$1 system=$2 policy=$3 journal=$4 state=$5 preinstall=$6 mode=$7
mount -t tmpfs -o mode=755 wiredcap-test /usr/local || exit 90
mkdir -p /usr/local/libexec/wiredcap && chmod 755 /usr/local/libexec /usr/local/libexec/wiredcap
printf 'the installed helper\n' >/usr/local/libexec/wiredcap/wiredcap-helper
if [ "$mode" != first-install ]; then
  printf '#!/bin/sh\nexec %s --policy %s --journal %s --sim-state %s "$@"\n' "$system" "$policy" "$journal" "$state" \
    >/usr/local/libexec/wiredcap/wiredcap-system
  chmod 755 /usr/local/libexec/wiredcap/wiredcap-system
  [ "$mode" = group-writable ] && chmod 775 /usr/local/libexec/wiredcap
fi
bash "$preinstall" "$work/wiredcap.pkg" / / / 2>"$work/preinstall.err"
rc=$?
cksum </usr/local/libexec/wiredcap/wiredcap-helper >"$work/helper.after"
exit "$rc"
SH
run_preinstall() {  # run_preinstall MODE: preinstall's exit code in RC, its stderr in ERR
  "${PRIVATE_NS[@]}" bash "$WORK/inside.sh" "$WORK" "$SYSTEM" "$POLICY" "$JOURNAL" "$STATE" "$preinstall" "$1"
  RC=$?
  ERR=$(cat "$WORK/preinstall.err")
}

history_before=$(sim history)
journal_before=$(cksum <"$JOURNAL")
run_preinstall upgrade
[ "$RC" = 1 ] || fail "an open step: preinstall exited $RC, not 1: $ERR"
case $ERR in *"run r-open step 1 awaits confirmation in this boot"*"wiredcap reset"*"Nothing was replaced"*) ;;
  *) fail "an open step: preinstall did not name the step and the command that settles it: $ERR" ;; esac
[ "$(cat "$WORK/helper.after")" = "$(printf 'the installed helper\n' | cksum)" ] ||
  fail "the helper's file changed: $(cat "$WORK/helper.after")"
[ "$(sim history)" = "$history_before" ] || fail "preinstall wrote the knob: $(sim history)"
[ "$(cksum <"$JOURNAL")" = "$journal_before" ] || fail "preinstall changed the journal"
knob_is 81920 || fail "the open step's value is no longer in force: $(knob)"
note "an open step: refused (exit 1), the step and 'wiredcap reset' named, nothing written"

# The settling command it names works, and then the package installs.
"$WIREDCAP" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" reset >/dev/null 2>&1 || fail "wiredcap reset failed"
run_preinstall upgrade
[ "$RC" = 0 ] || fail "after wiredcap reset: preinstall exited $RC: $ERR"
note "after wiredcap reset: exit 0"

run_preinstall first-install
[ "$RC" = 0 ] || fail "a first install: preinstall exited $RC: $ERR"
note "a first install (no wiredcap-system): exit 0"

run_preinstall group-writable
if [ "$RC" != 1 ] || [[ $ERR != *"not root's or is writable by group or others"* ]]; then
  fail "a wiredcap-system in a group-writable directory was run or not refused (exit $RC): $ERR"
fi
note "a group-writable directory above wiredcap-system: refused, not run"
echo "ok"
