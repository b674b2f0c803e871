#!/usr/bin/env bash
# The band root sets in the policy file, in pages, on one simulated Linux profile: a policy
# whose max is MemTotal minus its reserve (whole GiB, down) lets that value be scheduled and
# refuses one GiB more (exit 3); a max above MemTotal - reserve, or a reserve below Linux's
# floor of 1 GiB, is refused whatever else the file says (exit 11); a size that is not whole
# pages is refused naming both neighbours (exit 2); on a 128 GB machine the values owners run,
# 108000 MiB and 120 GiB, are scheduled. After every refusal: no one-shot, no intent journaled.
# usage: policy_band_test.sh WIREDCAP SYSTEM SIM PROFILE
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 profile=$4
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch policy-band
root=$base/apu
"$sim" init --root "$root" --profile "$profile" >/dev/null
mkdir -p "$root/.mac"
mem_kib=$(sed -n 's/^MemTotal: *\([0-9]*\) kB$/\1/p' "$root/proc/meminfo")
top_gib=$(( (mem_kib * 1024 - (4 << 30)) >> 30 ))  # MemTotal - 4 GiB, whole GiB down
policy() { printf '%s\n' "$@" >"$root/.mac/policy"; chmod 644 "$root/.mac/policy"; }
intents() { grep -c '"event":"intent"' "$(journal)" 2>/dev/null || true; }
refused() {  # want_exit args...: refused with that code, nothing armed or journaled
  local want=$1 rc=0 out before; shift
  before=$(intents)
  out=$(sys trial "$@" 2>&1) || rc=$?
  [ "$rc" = "$want" ] || fail "[$profile] trial $* exited $rc, not $want: $out"
  [ "$(intents)" = "$before" ] || fail "[$profile] trial $* journaled an intent"
  [ ! -e "$root/boot/grub/custom.cfg" ] && [ ! -e "$root/efi/loader/entries/wiredcap-trial.conf" ] \
    && [ ! -e "$root/boot/loader/entries/wiredcap-trial.conf" ] || fail "[$profile] trial $* wrote a trial entry"
  printf '%s\n' "$out"
}
accepted() {  # the trial is scheduled with these pages, then reset
  local out; out=$(sys trial "$1") || fail "[$profile] trial $1 refused: $out"
  grep -q "pages_limit=$2\"" <<<"$out" || grep -q "pages_limit=$2 " <<<"$out" || grep -q "pages_limit=$2\b" <<<"$out" \
    || fail "[$profile] trial $1 is not $2 pages: $out"
  sys reset >/dev/null
}

if [ "$profile" = gttsize-64 ]; then  # every trial is refused there first (refusals_test.sh)
  policy 'min = 4GiB' "max = ${top_gib}GiB" 'reserve = 4GiB' 'max_step = 256GiB'
  refused 7 "${top_gib}GiB" >/dev/null
  echo "policy band on $profile: refused for gttsize first"; exit 0
fi
policy 'min = 4GiB' "max = ${top_gib}GiB" 'reserve = 4GiB' 'max_step = 256GiB'
accepted "${top_gib}GiB" $((top_gib * 262144))
refused 3 "$((top_gib + 1))GiB" >/dev/null
if [ "$mem_kib" -gt $((120 << 20)) ]; then
  accepted 108000MiB 27648000
  accepted 120GiB 31457280
fi
# Whatever the file says: max above MemTotal - reserve, a reserve below 1 GiB.
policy 'min = 4GiB' "max = $((top_gib + 4))GiB" 'reserve = 4GiB' 'max_step = 256GiB'
out=$(refused 11 "${top_gib}GiB")
grep -q "minus reserve" <<<"$out" || fail "[$profile] the refusal does not name the reserve: $out"
policy 'min = 4GiB' "max = ${top_gib}GiB" 'reserve = 512MiB' 'max_step = 256GiB'
out=$(refused 11 "${top_gib}GiB")
grep -q "below the floor of 1024 MiB" <<<"$out" || fail "[$profile] no reserve floor: $out"
# max_step from pages_limit now (half of MemTotal).
policy 'min = 4GiB' "max = ${top_gib}GiB" 'reserve = 4GiB' 'max_step = 1GiB'
out=$(refused 3 "${top_gib}GiB")
grep -q "more than max_step" <<<"$out" || fail "[$profile] max_step not applied: $out"
# Not whole pages: 8 GiB + 1 KiB, both neighbours named.
out=$(refused 2 8388609KiB)
grep -q "2097152 pages of 4 KiB (8192 MiB, 8 GiB) and 2097153 pages" <<<"$out" \
  || fail "[$profile] the neighbours are not named: $out"
echo "policy band on $profile: ok"
