#!/usr/bin/env bash
# `wiredcap metrics --linux-root` through a trial made default and a later trial that hung, on
# the amd_ttm profile: the TTM readings in the text format node_exporter's textfile collector
# reads, `promtool check metrics` clean at every step, the values read from the simulated
# sysfs and journal (pages_limit in pages and bytes, the default stored, never the hung trial's
# value, the hang ceiling, the phase), and --textfile-dir writing wiredcap.prom.
# usage: metrics_test.sh WIREDCAP SYSTEM SIM
set -euo pipefail
wiredcap=$1 system=$2 sim=$3
command -v promtool >/dev/null || { echo "FAIL: promtool is missing (tools/install-deps: prometheus)" >&2; exit 1; }
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch metrics
root=$base/apu
"$sim" init --root "$root" --profile amd-ttm-128 >/dev/null
metrics() { front metrics; }
checked() {  # the exposition, checked by promtool
  local text; text=$(metrics)
  promtool check metrics <<<"$text" || fail "promtool: $text"
  printf '%s\n' "$text"
}
value() { sed -n "s/^$1 //p" <<<"$2"; }
out=$(checked)
[ "$(value 'wiredcap_info{version="[^"]*",backend="simulated-linux",ttm_module="amd_ttm"}' "$out")" = 1 ] \
  || fail "info: $out"
[ "$(value wiredcap_ttm_pages_limit_pages "$out")" = 16469033 ] || fail "pages_limit: $out"
[ "$(value wiredcap_ttm_pages_limit_bytes "$out")" = $((16469033 * 4096)) ] || fail "pages_limit bytes: $out"
[ "$(value 'wiredcap_ttm_trial_phase{phase="none"}' "$out")" = 1 ] || fail "phase: $out"
grep -q wiredcap_ttm_default_stored_bytes <<<"$out" && fail "a default stored before any: $out"

# 108000 MiB made default; a 120 GiB trial hangs.
sys trial 108000MiB >/dev/null
"$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null
sys confirm >/dev/null
"$sim" reboot --root "$root" >/dev/null
"$sim" hang-above --root "$root" 27648000
sys trial 120GiB >/dev/null
"$sim" reboot --root "$root" >/dev/null
"$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null || true
out=$(checked)
[ "$(value wiredcap_ttm_pages_limit_pages "$out")" = 27648000 ] || fail "pages_limit after the revert: $out"
[ "$(value wiredcap_gtt_total_bytes "$out")" = $((27648000 * 4096)) ] || fail "GTT: $out"
[ "$(value wiredcap_kfd_memory_bytes "$out")" = $((27648000 * 4096)) ] || fail "KFD: $out"
[ "$(value wiredcap_ttm_default_stored_bytes "$out")" = $((27648000 * 4096)) ] || fail "default stored: $out"
[ "$(value wiredcap_hang_ceiling_bytes "$out")" = $((120 << 30)) ] || fail "hang ceiling: $out"
[ "$(value 'wiredcap_ttm_trial_phase{phase="default"}' "$out")" = 1 ] || fail "phase: $out"
# The journal's families, shared with a Mac's (journal_metrics.cpp): the hung trial counted, its
# value and time (the journal's `hung` record), nothing unresolved, the file's size.
[ "$(value wiredcap_hangs "$out")" = 1 ] || fail "hangs: $out"
[ "$(value wiredcap_last_hang_bytes "$out")" = $((120 << 30)) ] || fail "last hang: $out"
[ "$(value wiredcap_journal_unresolved_runs "$out")" = 0 ] || fail "unresolved: $out"
[ "$(value wiredcap_journal_suspects "$out")" = 0 ] || fail "suspects: $out"
[ "$(value wiredcap_journal_bytes "$out")" = "$(stat -c %s "$(journal)")" ] || fail "journal bytes: $out"
hung_at=$(grep '"event":"hung"' "$(journal)" | tail -n 1 | sed 's/.*"time":"\([^"]*\)".*/\1/')
[ "$(value wiredcap_last_hang_timestamp_seconds "$out")" = "$(date -u -d "$hung_at" +%s)" ] || fail "last hang time ($hung_at): $out"

# A journal that cannot be read: its reading is 0 and the ceiling is absent, never 0.
mv "$(journal)" "$(journal).away"; mkdir "$(journal)"
out=$(checked)
[ "$(value 'wiredcap_reading_ok{reading="journal"}' "$out")" = 0 ] || fail "journal reading: $out"
grep -qE '^wiredcap_(hang|last|journal_(unresolved|suspects|bytes))' <<<"$out" && fail "an unreadable journal's facts were written: $out"
rmdir "$(journal)"; mv "$(journal).away" "$(journal)"

# The textfile collector's file, replaced whole.
mkdir -p "$base/textfile"
front metrics --textfile-dir "$base/textfile"
promtool check metrics <"$base/textfile/wiredcap.prom" || fail "the textfile does not check"
grep -q '^wiredcap_ttm_pages_limit_pages 27648000$' "$base/textfile/wiredcap.prom" || fail "textfile content"
echo "metrics on amd-ttm-128: ok"
