#!/usr/bin/env bash
# On one simulated Mac, from the OS default: an unattended ramp to a target above the
# effective cap writes only values above it (asserted on the simulator's write history, not on
# messages), a target at or below it is refused naming the effective cap and its source with
# nothing written, and every write of the run is journaled with the effective cap it started
# from. Macs below 32 GiB have no built-in band (docs/bands.md): wiredcap refuses there without a
# policy file; with one (reserve 4 GiB, the floor) the same rule holds where the band reaches
# above the OS default, and on 8 GB it cannot, so nothing is ever written.
#   effective_cap_test.sh WIREDCAP HELPER SIM WORK PROFILE
WIREDCAP=$1 HELPER=$2 SIM=$3 WORK=$4 profile=$5
. "$(dirname "$0")/lib.sh"

wc() {
  "$WIREDCAP" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" "$@" >"$WORK/out" 2>"$WORK/err" </dev/null
  RC=$?
}
mib() { sed 's/ MiB$//'; }

new_tree "$profile"
eff=$(sim metal | mib)
ram=$(( $(sim show | sed -n 's/^memsize_bytes=//p') / 1048576 ))
note "$profile: RAM $ram MiB, effective cap $eff MiB (OS default)"

if [ "$ram" -lt 32768 ]; then
  wc ramp --to "$((eff + 512))MiB" --unattended --check true
  [ "$RC" = 14 ] || fail "no built-in band below 32 GiB: expected exit 14 (no safe band), got $RC: $(cat "$WORK/err")"
  flat "$(cat "$WORK/err")" | grep -q "raising the cap is unsafe here" || fail "no reason given: $(cat "$WORK/err")"
  [ -z "$(sim history)" ] || fail "something was written: $(sim history)"
  write_policy "min = $((ram / 4))MiB" "max = $((ram - 4096))MiB" 'reserve = 4GiB' 'max_step = 1GiB'
  max=$((ram - 4096))
else
  max=$(( ram - $( [ $((ram / 16)) -gt 8192 ] && echo $(( (ram / 16 + 1023) / 1024 * 1024 )) || echo 8192) ))
fi

# "highest you may set", typed exactly as status prints it, is accepted by set,
# here from the OS default; the state is restored afterwards (the OS default, nothing written).
highest_is_accepted() {
  wc status
  local top
  top=$(unwrap <"$WORK/out" | sed -n 's/.*highest you may set  *\([0-9]* MiB\) (.*/\1/p')
  [ -n "$top" ] || return 0  # no band reaches anything here: status says why instead
  cp "$STATE" "$WORK/state.before"
  wc set "$top" --yes
  [ "$RC" = 0 ] || fail "status printed 'highest you may set $top' but set refused it ($RC): $(cat "$WORK/err")"
  cp "$WORK/state.before" "$STATE"
}
highest_is_accepted

# At or below the effective cap: refused, naming it and its source; nothing written.
for below in "$eff" "$((eff - 1))" "$((eff / 2 + 1))"; do
  wc ramp --to "${below}MiB" --unattended --check true
  [ "$RC" = 2 ] || [ "$RC" = 3 ] || fail "--to ${below}MiB (effective $eff MiB): expected a refusal, got $RC"
  if [ "$RC" = 2 ]; then
    flat "$(cat "$WORK/err")" | grep -q "not above the effective cap now, $eff MiB" || fail "the refusal does not name $eff MiB: $(cat "$WORK/err")"
    flat "$(cat "$WORK/err")" | grep -q "Metal recommendedMaxWorkingSetSize" || fail "the refusal does not name its source: $(cat "$WORK/err")"
  fi
  [ -z "$(sim history)" ] || fail "--to ${below}MiB wrote: $(sim history)"
done

if [ "$max" -le "$eff" ]; then
  wc ramp --to "${max}MiB" --unattended --check true
  [ "$RC" = 2 ] || [ "$RC" = 3 ] || fail "the band's max $max MiB is not above the effective cap $eff MiB: expected a refusal, got $RC"
  [ -z "$(sim history)" ] || fail "wrote: $(sim history)"
  note "the band cannot reach above the OS default here: nothing written"
  exit 0
fi

# Above it: every value written is above the effective cap, and the last is the target.
target=$(( eff + 12288 < max ? eff + 12288 : max ))
wc ramp --to "${target}MiB" --unattended --check true
[ "$RC" = 0 ] || fail "ramp to $target MiB: exit $RC: $(cat "$WORK/err")"
history=$(sim history | mib)
[ -n "$history" ] || fail "nothing was written"
for v in $history; do [ "$v" -gt "$eff" ] || fail "wrote $v MiB, not above the effective cap $eff MiB"; done
[ "$(echo "$history" | tail -n 1)" = "$target" ] || fail "the last write is not the target $target: $history"
grep -q "\"step\":1,.*\"effective_mib\":$eff,\"effective_source\":\"given by uid [0-9]*\",.*\"effective_said\":\"simulated-metal\"" "$JOURNAL" ||
  fail "the first step's records do not carry the effective cap: $(grep '"step":1' "$JOURNAL")"
note "wrote $(echo $history) (all above $eff MiB)"

# --from SIZE reaches the helper as --effective SIZE --effective-source given (unit-tested in
# ramp.EffectiveCap.*); the helper measures max_step from it and journals it as given.
"$SIM" --state "$STATE" reboot >/dev/null
[ "$(knob)" = 0 ] || fail "not back at the OS default after the reboot"
top=$(sed -n 's/^max = \([0-9]*\)MiB$/\1/p' "$POLICY" 2>/dev/null)
[ -n "$top" ] || top=$max
step=$( [ -f "$POLICY" ] && echo 1024 || echo 8192 )  # the small Macs' policy, or the built-in band
given=$(( top - step ))
bmin=$( [ -f "$POLICY" ] && echo $((ram / 4)) || echo $((ram / 2)) )
helper apply "${top}MiB" --effective "$((given - 1))MiB" --effective-source given
[ "$((given - 1))" -lt "$bmin" ] || [ "$RC" = 3 ] || fail "apply ${top}MiB from a given $((given - 1))MiB is more than max_step: expected 3, got $RC"
helper apply "${top}MiB" --effective "${given}MiB" --effective-source given
[ "$RC" = 0 ] || fail "apply ${top}MiB from a given effective cap of ${given}MiB (one max_step below): $RC: $ERR"
tail -n 2 "$JOURNAL" | grep -q "\"effective_mib\":$given,\"effective_source\":\"given by uid [0-9]*\",.*\"effective_said\":\"given\"" ||
  fail "the given effective cap is not journaled as given: $(tail -n 2 "$JOURNAL")"
