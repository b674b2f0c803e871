#!/usr/bin/env bash
# A script runs each step twice: the second run of a step whose outcome the machine already
# holds answers as the first did and writes nothing. `wiredcap set SIZE` while that very trial
# is scheduled (one-shot read back) is 18 again, not a refusal; `ttm-confirm` once the trial
# is the default in force (read back) is 0 again. A different value stays refused.
# usage: rerun_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch rerun
chmod 755 "$base"
code() { local rc=0; "$@" >/dev/null 2>&1 || rc=$?; echo "$rc"; }

for run in strix-64:40 strix-128-sdboot:90 fedora-128:90; do
  profile=${run%:*} size=${run#*:}
  root=$base/$profile
  "$sim" init --root "$root" --profile "$profile" >/dev/null
  mkdir -p "$root/.mac" "$root/var/lib"
  [ "$(code front set "${size}GiB")" = 18 ] || fail "$profile: set did not schedule"
  before=$(cat "$(journal)")
  [ "$(code front set "${size}GiB")" = 18 ] || fail "$profile: set run again while its trial is scheduled: not 18"
  [ "$before" = "$(cat "$(journal)")" ] || fail "$profile: set run again journaled: $(events)"
  [ "$(code front set "$((size + 1))GiB")" = 3 ] || fail "$profile: another value while a trial is pending was not refused"
  "$sim" reboot --root "$root" | grep -q "wiredcap" || fail "$profile: the trial was not booted"
  [ "$(code sys after-boot)" = 0 ] || fail "$profile: after-boot"
  [ "$(code sys after-boot)" = 0 ] || fail "$profile: after-boot run again"
  [ "$(code sys confirm)" = 0 ] || fail "$profile: confirm"
  before=$(cat "$(journal)")
  [ "$(code sys confirm)" = 0 ] || fail "$profile: confirm run again once made default: not 0"
  [ "$before" = "$(cat "$(journal)")" ] || fail "$profile: confirm run again journaled: $(events)"
  [ "$(code front set "${size}GiB")" = 0 ] || fail "$profile: set of the default in force"
  [ "$(code front reset)" = 0 ] || fail "$profile: reset"
  [ "$(code front reset)" = 0 ] || fail "$profile: reset run again"
  # Made default, then reset: ttm-confirm has nothing to confirm any more.
  [ "$(code sys confirm)" = 3 ] || fail "$profile: confirm after reset was not refused"
done
# The default dropped from the boot loader (a hand edit, then update-grub): this boot still
# runs the value, the next will not. set does not answer 0 "already the default": the boot
# loader is read back, and the trial is scheduled again (18).
root=$base/dropped
"$sim" init --root "$root" --profile strix-64 >/dev/null
mkdir -p "$root/.mac" "$root/var/lib"
[ "$(code front set 40GiB)" = 18 ] || fail "dropped: set did not schedule"
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null && sys confirm >/dev/null
"$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
[ "$(code front set 40GiB)" = 0 ] || fail "dropped: set of the default in force"
sed -i 's/ ttm.pages_limit=[0-9]*//' "$root/etc/default/grub"
"$sim" update-grub --root "$root" >/dev/null
[ "$(code front set 40GiB)" = 18 ] || fail "dropped: set answered for a default the boot loader no longer holds"
[ "$(grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p')" = wiredcap-trial ] ||
  fail "dropped: no trial armed"
echo "rerun: ok"
