#!/usr/bin/env bash
# tools/mac-smoke, the first-run check for a real Mac, run against the simulated Mac as the test
# suite can (--simulated): every section labelled SIMULATED, the report complete, the cap never
# left changed (the simulator's write history says so), and --ramp at a real terminal (tmux): a
# person types yes, keeps one step with "stop", and mac-smoke puts the cap back as found.
#   mac_smoke_test.sh WIREDCAP SIM SOURCE_DIR WORK_DIR
# shellcheck disable=SC2317  # functions called through check
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need tmux
wiredcap=$1 sim_tool=$2 src=$3 work=$4
smoke=$src/tools/mac-smoke

fresh() {  # a new simulated Mac with a pinned clock and the 192 GiB band
  rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
  printf '%s\n' 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' >"$work/etc/wiredcap.conf"
  "$sim_tool" --state "$work/sim" init >/dev/null && "$sim_tool" --state "$work/sim" clock pinned
}
sim_args=("$work/sim" "$work/etc/wiredcap.conf" "$work/journal/journal.jsonl")
history() { "$sim_tool" --state "$work/sim" history | sed 's/ MiB$//' | tr '\n' ' '; }
knob() { "$sim_tool" --state "$work/sim" show | sed -n 's/^knob_mib=//p'; }

fresh
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" --out "$work/report" </dev/null >"$work/stdout" 2>&1
check "mac-smoke --simulated exits 0" test $? = 0
check "the report it saved is what it printed" cmp -s "$work/report" "$work/stdout"
check "the report says it is SIMULATED at the top" grep -q '^wiredcap mac-smoke report (SIMULATED' "$work/report"
check "every section is labelled SIMULATED" test -z "$(grep '^== ' "$work/report" | grep -v '^== SIMULATED ')"
for s in machine "iogpu keys" helper "wiredcap status" "Metal against the knob" "LaunchDaemon" journal "the cap at the end"; do
  check "the report has its section: $s" grep -q "^== SIMULATED $s" "$work/report"
done
check "it includes status --json, one object" grep -q '^{"schema":"wiredcap.status/2",' "$work/report"
check "it compares Metal with the knob, from the readings" \
  grep -q '^Metal recommendedMaxWorkingSetSize: 161792 MiB (rounded down)$' "$work/report"
check "it reads the knob's width" grep -q '^value_width=4$' "$work/report"
check "it ends saying the cap is as found, read back" grep -q '^cap left as found: iogpu.wired_limit_mb = 0 MiB (read back)$' "$work/report"
check "it wrote nothing to the knob" test -z "$(history)"

# A machine whose cap was raised before: still nothing written.
fresh
"$wiredcap" --sim-state "$work/sim" --policy "$work/etc/wiredcap.conf" --journal "$work/journal/journal.jsonl" \
  set 80GiB --yes >/dev/null 2>&1
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
check "from a raised cap: exit 0, the cap as found (81920 MiB)" \
  test $? = 0 -a -n "$(grep '^cap left as found: iogpu.wired_limit_mb = 81920 MiB' "$work/stdout")"
check "  ... and only the earlier set in the write history" test "$(history)" = "81920 "

# --ramp with no terminal: skipped, nothing written.
fresh
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" --ramp </dev/null >"$work/stdout" 2>&1
check "--ramp without a terminal: skipped, exit 0, nothing written" \
  test $? = 0 -a -n "$(grep '^skipped: needs a terminal' "$work/stdout")" -a -z "$(history)"

# --ramp at a real terminal, driven with tmux: "yes" to mac-smoke's question, "stop" at the
# ramp's prompt (the step is kept and confirmed), then mac-smoke puts the cap back.
tmux_ramp() {  # tmux_ramp ANSWER: runs mac-smoke --ramp in tmux, answering its question
  local session=mac-smoke-$$ i
  fresh
  tmux new-session -d -s "$session" -x 200 -y 50 \
    "$smoke --simulated $wiredcap ${sim_args[*]} --ramp --out $work/report; echo \$? >$work/rc; sleep 30"
  for ((i = 0; i < 100; i++)); do tmux capture-pane -p -t "$session" | grep -q 'Type yes:' && break; sleep 0.1; done
  tmux send-keys -t "$session" "$1" Enter
  if [ "$1" = yes ]; then
    for ((i = 0; i < 100; i++)); do tmux capture-pane -p -t "$session" | grep -q 'Keep it?' && break; sleep 0.1; done
    tmux send-keys -t "$session" stop Enter
  fi
  for ((i = 0; i < 200; i++)); do [ -s "$work/rc" ] && break; sleep 0.1; done
  tmux capture-pane -p -t "$session" -S -200 >"$work/screen"
  tmux kill-session -t "$session" 2>/dev/null
}
tmux_ramp yes
check "--ramp in a terminal, yes then stop: exit 0" test "$(cat "$work/rc" 2>/dev/null)" = 0
check "  ... one step was written, then the OS default again (history: $(history))" \
  test -n "$(history | grep -E '^[0-9]+ 0 $')" -a "$(history | cut -d' ' -f1)" != 0
check "  ... the knob reads 0, as found" test "$(knob)" = 0
check "  ... the report says so" grep -q '^cap left as found: iogpu.wired_limit_mb = 0 MiB (read back)$' "$work/report"
tmux_ramp no
check "--ramp, the person types no: exit 0, nothing written" \
  test "$(cat "$work/rc" 2>/dev/null)" = 0 -a -z "$(history)" -a -n "$(grep '^skipped: the person did not type yes' "$work/report")"

check "mac-smoke passes bash -n" bash -n "$smoke"
check "mac-smoke passes shellcheck" shellcheck "$smoke"
finish
