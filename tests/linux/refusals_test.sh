#!/usr/bin/env bash
# Clear answers where the Linux backend must refuse or warn: an amdttm host with a stray
# ttm.pages_limit (ignored by the kernel, shown, left alone by reset), a gttsize conflict
# (refused, nothing written), and a machine whose boot loader has no one-shot (refused).
# usage: refusals_test.sh TTM SIM
set -euo pipefail
ttm=$1 sim=$2
base=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-refusals.XXXXXX")
trap 'rm -rf "$base"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

r=$base/amdttm; "$sim" init --root "$r" --profile amdttm-128
out=$("$ttm" --root "$r" status)
grep -q "TTM module     amdttm: amdgpu depends on amdttm" <<<"$out" || fail "amdttm not detected: $out"
grep -q "IGNORED.*ttm.pages_limit=20971520" <<<"$out" || fail "stray ttm.pages_limit not shown: $out"
out=$("$ttm" --root "$r" reset)
grep -q "ttm.pages_limit=20971520 in GRUB_CMDLINE_LINUX_DEFAULT was not written by wiredcap" <<<"$out" \
  || fail "reset did not name the stray parameter: $out"
grep -q "ttm.pages_limit=20971520" "$r/etc/default/grub" || fail "reset removed what it did not write"

r=$base/gtt; "$sim" init --root "$r" --profile gttsize-64
out=$("$ttm" --root "$r" status)
grep -q "CONFLICT *amdgpu.gttsize=57344" <<<"$out" || fail "gttsize conflict not shown: $out"
grep -q "MISMATCH" <<<"$out" || fail "GTT vs pages_limit mismatch not shown: $out"
if out=$("$ttm" --root "$r" trial 40GiB); then fail "trial accepted despite gttsize: $out"; fi
grep -q "amdgpu.gttsize=57344 is set" <<<"$out" || fail "refusal does not name gttsize: $out"
[ ! -e "$r/boot/grub/custom.cfg" ] || fail "refused trial wrote custom.cfg"
[ ! -e "$r/var/lib/wiredcap/ttm-state" ] || fail "refused trial wrote state"

r=$base/nogrub; "$sim" init --root "$r" --profile strix-64
rm "$r/boot/grub/grubenv"
grep -q "no one-shot: /boot/grub/grubenv is absent" <<<"$("$ttm" --root "$r" status)" || fail "status misses no one-shot"
if out=$("$ttm" --root "$r" trial 40GiB); then fail "trial accepted without a one-shot: $out"; fi
grep -q "no one-shot boot loader" <<<"$out" || fail "refusal unclear: $out"
[ ! -e "$r/boot/grub/custom.cfg" ] || fail "refused trial wrote custom.cfg"
grep -q '"event":"trial-refused"' "$r/var/lib/wiredcap/ttm-journal" || fail "refusal not journaled"
echo "refusals: ok"
