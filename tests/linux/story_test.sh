#!/usr/bin/env bash
# The whole try-once story on one simulated Linux APU profile, in a scratch root (never the
# host's /boot): status, a refused out-of-band value, a trial scheduled through GRUB's real
# grub-editenv, the trial boot read back, confirmation made default, a hang during a second
# trial that the next boot reverts and remembers, and reset. The boot loader's files, the
# state and the journal are checked after every step.
#
# usage: story_test.sh WIREDCAP SYSTEM SIM PROFILE TRIAL_SIZE TRIAL_PAGES HANG_SIZE PARAM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 profile=$4 size=$5 pages=$6 hang_size=$7 param=$8
root=$(mktemp -d "${TMPDIR:-/tmp}/wiredcap-linux-story.XXXXXX")
trap 'rm -rf "$root"' EXIT
# wiredcap-system's ttm-* verbs on the scratch root; its Mac options point into it too, so the
# host's compiled-in paths are never touched. `status` is the unprivileged front-end's.
sys() {
  local verb=$1; shift
  mkdir -p "$root/.mac"
  "$system" --sim-state "$root/.mac/sim-state" --journal "$root/.mac/journal" --policy "$root/.mac/policy" \
    "ttm-$verb" --root "$root" "$@"
}
status() { "$wiredcap" status --linux-root "$root"; }
fail() { echo "FAIL [$profile]: $*" >&2; exit 1; }
next_entry() { grub-editenv "$root/boot/grub/grubenv" list | sed -n 's/^next_entry=//p'; }
events() { sed -n 's/.*"event":"\([a-z-]*\)".*/\1/p' "$root/var/lib/wiredcap/ttm-journal" | tr '\n' ' '; }
default_cmdline() { sed -n 's/^GRUB_CMDLINE_LINUX_DEFAULT="\(.*\)"$/\1/p' "$root/etc/default/grub"; }

"$sim" init --root "$root" --profile "$profile"
out=$(status)
grep -q "TTM module     ${param%%.*}:" <<<"$out" || fail "status does not name module ${param%%.*}: $out"
grep -q "GRUB, one-shot" <<<"$out" || fail "status does not see GRUB"

# Above the band: refused, and nothing written anywhere.
if sys trial 127GiB >/dev/null; then fail "127GiB accepted"; fi
[ -z "$(next_entry)" ] || fail "refused value still set next_entry"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "refused value wrote custom.cfg"

# The trial: one boot with the parameter, through next_entry and custom.cfg.
sys trial "$size"
[ "$(next_entry)" = wiredcap-trial ] || fail "next_entry is '$(next_entry)'"
grep -q "linux .* $param=$pages\$" "$root/boot/grub/custom.cfg" || fail "trial entry lacks $param=$pages"
grep -q "$param" "$root/boot/grub/grub.cfg" && fail "grub.cfg changed before confirmation"
"$sim" reboot --root "$root" | grep -q "wiredcap trial" || fail "the trial entry was not booted"
[ -z "$(next_entry)" ] || fail "GRUB did not clear next_entry"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "trial boot's cmdline lacks the parameter"
sys after-boot
sys confirm --check true
default_cmdline | grep -q "$param=$pages" || fail "not made default: $(default_cmdline)"
grep -q "linux.* $param=$pages" "$root/boot/grub/grub.cfg" || fail "update-grub did not carry it"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "trial entry left after confirmation"
"$sim" reboot --root "$root" | grep -q "Debian GNU/Linux" || fail "default entry not booted"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "default boot lost the parameter"
sys after-boot

# A second trial above it hangs; the power button boots the default; the value is remembered.
"$sim" hang-above --root "$root" "$pages"
sys trial "$hang_size"
"$sim" reboot --root "$root" | grep -q HUNG || fail "the simulated machine did not hang"
"$sim" reboot --root "$root" | grep -q "Debian GNU/Linux" || fail "after the hang GRUB did not boot the default"
grep -q "$param=$pages" "$root/proc/cmdline" || fail "the revert lost the confirmed value"
if sys after-boot; then fail "after-boot did not report the hang"; fi
[ -s "$root/var/lib/wiredcap/ttm-hang-ceiling" ] || fail "no hang ceiling recorded"
[ ! -e "$root/boot/grub/custom.cfg" ] || fail "the hung trial's entry was left"
if sys trial "$hang_size"; then fail "a value at the hang ceiling was scheduled"; fi
[ -z "$(next_entry)" ] || fail "refused trial set next_entry"

# Reset: wiredcap's parameter leaves every place it wrote.
sys reset
default_cmdline | grep -q "$param=$pages" && fail "reset left the parameter: $(default_cmdline)"
grep -q "$param" "$root/boot/grub/grub.cfg" && fail "reset left grub.cfg with the parameter"
want="trial-intent trial-scheduled trial-booted made-default trial-intent trial-scheduled trial-hang reset "
[ "$(events)" = "$want" ] || fail "journal events: $(events)"
echo "story on $profile: ok"
