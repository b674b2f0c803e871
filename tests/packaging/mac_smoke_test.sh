#!/usr/bin/env bash
# tools/mac-smoke, the first-run check for a real Mac, run against the simulated Mac as the test
# suite can (--simulated): every section labelled SIMULATED, the report complete, the cap never
# left changed (the simulator's write history says so), and --ramp at a real terminal (tmux): a
# person types yes, keeps one step with "stop", and mac-smoke puts the cap back as found.
# On the simulated Ventura (no iogpu.wired_limit_mb) it exits 0 saying nothing
# changed; it finds the helper from status --json, else in the resolved keg's libexec/, prints
# modes with the setuid bit and judges every directory above the helper; each check only a Mac
# can answer says "needs a Mac", never a pass; the report ends with what to send back.
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
for s in machine "iogpu keys" helper "wiredcap status" "Metal against the knob" "LaunchDaemon" \
  "wiredcap's records in the unified log" "the boot action's records in the unified log (this boot)" \
  "Metal as nobody reads it" "/usr/local/bin and /usr/local/share: owner and mode" \
  "the knob and the value stored for boot" journal "the cap at the end" \
  "what to send back"; do
  check "the report has its section: $s" grep -q "^== SIMULATED $s" "$work/report"
done
check "it includes status --json, one object" grep -q '^{"schema":"wiredcap.status/2",' "$work/report"
check "it compares Metal with the knob, from the readings" \
  grep -q '^Metal recommendedMaxWorkingSetSize: 161792 MiB (rounded down)$' "$work/report"
check "it reads the knob's width" grep -q '^value_width=4$' "$work/report"
check "it ends saying the cap is as found, read back" grep -q '^cap left as found: iogpu.wired_limit_mb = 0 MiB (read back)$' "$work/report"
check "it wrote nothing to the knob" test -z "$(history)"

helper_built=$(dirname "$wiredcap")/wiredcap-helper
check "it finds the helper from status --json" \
  grep -qxF "helper: $helper_built (reported by wiredcap status --json)" "$work/report"
check "  ... and prints its mode as status --json and stat give it (0755, the test build)" \
  test -n "$(grep -F 'status --json: mode 0755, uid ' "$work/report")" -a -n "$(grep -E '^owner uid [0-9]+, gid [0-9]+, mode 0755 ' "$work/report")"
check "it judges every directory above the helper, up to /" grep -qE '^  /: uid 0, mode [0-7]{4}: ok$' "$work/report"
# Each check only a Mac answers prints its line: the four Mac-only checks among them (the boot
# action's records, Metal as nobody, BTM's record, /usr/local as an installer left it).
for c in "launchctl print system/org.wiredcap.boot" "launchctl print-disabled system against the System Settings switch" \
  "BTM's record for the daemon: sudo sfltool dumpbtm" \
  "log show --predicate 'process IN {\"wiredcap-helper\",\"wiredcap-system\"}'" \
  "the boot action's records after a boot with a stored value: log show --last boot --predicate 'process IN {\"wiredcap-helper\",\"wiredcap-system\"}'" \
  "Metal read as nobody: sudo -u nobody wiredcap metrics" "/usr/local/bin and /usr/local/share as a Mac's installer left them" \
  "the directories' ACLs"; do
  check "needs a Mac: $c" grep -qF "needs a Mac: $c" "$work/report"
done
for d in /usr/local/bin /usr/local/share; do
  check "it prints the owner and mode of $d (this machine's)" grep -qE "^stat $d: (uid [0-9]+, gid [0-9]+, mode [0-7]{4}: |absent)" "$work/report"
done
check "no launchd on the simulated Mac: no Settings pane named" \
  grep -qF 'the System Settings switch: not applicable on the SIMULATED Mac' "$work/report"
check "no Mac-only check claims an answer (loaded, enabled, visible, redacted, knob holds)" \
  test -z "$(grep -E '^(loaded: |launchd.s override database|visible: |REDACTED|the knob (does NOT )?holds?)' "$work/report")"
check "what to send back: nothing, it was SIMULATED" grep -q '^nothing: this run was SIMULATED' "$work/report"

# A value stored for boot: the knob against it needs a real boot.
fresh
"$wiredcap" --sim-state "$work/sim" --policy "$work/etc/wiredcap.conf" --journal "$work/journal/journal.jsonl" \
  persist 80GiB --unconfirmed --lower >/dev/null 2>&1
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
check "a value stored for boot: the report names it, and the knob after a boot needs a Mac" \
  test -n "$(grep '^stored for boot: 81920 MiB; guard: armed' "$work/stdout")" -a \
  -n "$(grep '^needs a Mac: the knob a minute after a real boot' "$work/stdout")"

# The Settings pane by the simulated Mac's macOS release, from status --json (one table of
# texts: cli/readings/daemon_texts.cpp): 15.6 for the default profile, 26.1 for m4-16.
fresh
"$sim_tool" --state "$work/sim" launchd disabled
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
check "macOS 15: the switch is in Login Items & Extensions > Allow in the Background" \
  grep -qxF 'the System Settings switch: System Settings > General > Login Items & Extensions > Allow in the Background' "$work/stdout"
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
printf '%s\n' 'min = 4GiB' 'max = 12GiB' 'reserve = 4GiB' 'max_step = 2GiB' >"$work/etc/wiredcap.conf"
"$sim_tool" --state "$work/sim" init --profile m4-16 >/dev/null && "$sim_tool" --state "$work/sim" launchd loaded
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
check "macOS 26: the switch is in Login Items & Extensions > App Background Activity" \
  grep -qxF 'the System Settings switch: System Settings > General > Login Items & Extensions > App Background Activity' "$work/stdout"

# macOS 13 (the simulated Ventura: no iogpu.wired_limit_mb): nothing to read, nothing written,
# and nothing to put back. (Older versions said "CAP NOT AS FOUND" and exited 1.)
ventura() {
  rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
  printf '%s\n' 'min = 16GiB' 'max = 48GiB' 'reserve = 8GiB' 'max_step = 8GiB' >"$work/etc/wiredcap.conf"
  "$sim_tool" --state "$work/sim" init --profile ventura-64 >/dev/null && "$sim_tool" --state "$work/sim" clock pinned
}
ventura
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
rc=$?
check "simulated Ventura: exit 0 (got $rc)" test "$rc" = 0
check "  ... it says: knob not readable here; nothing changed" grep -qx 'knob not readable here; nothing changed' "$work/stdout"
check "  ... never CAP NOT AS FOUND" test -z "$(grep 'CAP NOT AS FOUND' "$work/stdout")"
check "  ... nothing written" test -z "$(history)"
ventura
"$smoke" --simulated "$wiredcap" "${sim_args[@]}" --ramp </dev/null >"$work/stdout" 2>&1
rc=$?
check "simulated Ventura with --ramp: exit 0, the step skipped (the knob cannot be read back), nothing written" \
  test "$rc" = 0 -a -n "$(grep '^skipped: the knob is not readable here' "$work/stdout")" -a -z "$(history)"

# A Homebrew keg, as an older wiredcap has it (status --json without "helper"): bin/wiredcap is
# a link into the keg, the helper is in the keg's libexec/, setuid (4755) and in a directory a
# user owns. mac-smoke resolves the link, finds it, prints 4755 and says the tree is not safe.
fresh
keg=$work/Cellar/wiredcap/9.9
mkdir -p "$keg/bin" "$keg/libexec/wiredcap" "$work/brew/bin"
# shellcheck disable=SC2016  # the stand-in expands its own "$@" and "$*"
{
  echo '#!/bin/bash'
  echo '# status --json without the "helper" object, as an older wiredcap prints it'
  printf 'case " $* " in *" status --json "*) "%s" "$@" | sed %q ;; *) exec "%s" "$@" ;; esac\n' \
    "$wiredcap" 's/,"helper":{[^{}]*}//' "$wiredcap"
} >"$keg/bin/wiredcap"
chmod 755 "$keg/bin/wiredcap"
cp "$helper_built" "$keg/libexec/wiredcap/wiredcap-helper"
chmod 4755 "$keg/libexec/wiredcap/wiredcap-helper"
chown 65534 "$work/Cellar/wiredcap"
ln -s ../../Cellar/wiredcap/9.9/bin/wiredcap "$work/brew/bin/wiredcap"
"$smoke" --simulated "$work/brew/bin/wiredcap" "${sim_args[@]}" </dev/null >"$work/stdout" 2>&1
check "a keg: status --json has no helper path, so it looks in the resolved keg's libexec/" \
  grep -qF "helper: $work/brew/bin/../../Cellar/wiredcap/9.9/libexec/wiredcap/wiredcap-helper (beside the resolved" "$work/stdout"
check "  ... and prints its mode with the setuid bit: 4755" grep -qE '^owner uid 0, gid 0, mode 4755 ' "$work/stdout"
check "  ... the user-owned directory above it: NOT ROOT'S, NOT SAFE" \
  test -n "$(grep -F "  $(cd "$work" && pwd -P)/Cellar/wiredcap: uid 65534, mode 0755: NOT ROOT'S" "$work/stdout")" -a \
  -n "$(grep '^NOT SAFE: a directory above the helper' "$work/stdout")"

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

# The unified log keeps no syslog facility: the docs and mac-smoke find the records by process,
# both that log (every documented query: packaging.log_queries).
query="--predicate 'process IN {\"wiredcap-helper\",\"wiredcap-system\"}'"
check "mac-smoke runs the query over 7 days" grep -qF "log show --last 7d --style compact $query" "$smoke"
check "mac-smoke runs it over this boot, for the boot action's records" grep -qF "log show --last boot --style compact $query" "$smoke"
check "mac-smoke passes bash -n" bash -n "$smoke"
check "mac-smoke passes shellcheck" shellcheck "$smoke"
finish
