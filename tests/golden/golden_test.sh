#!/usr/bin/env bash
# Golden tests of what a person and a script see: wiredcap's output (stdout, stderr, exit code)
# for one scenario on a simulated Mac, normalised (paths, boot ids, times, run ids) and
# compared with tests/golden/expected/SCENARIO.txt.
#   golden_test.sh WIREDCAP SIM WORKDIR SCENARIO [HELPER [SYSTEM]]
# (wiredcap finds the helper beside itself; SYSTEM, root's wiredcap-system, runs the boot action.)
# WIREDCAP_UPDATE_GOLDEN=1 rewrites the expected file instead (review the diff before committing).
# Exit 77 (skipped): a boot scenario when not run as root (the boot action is root's only).
set -uo pipefail
WIREDCAP=$1 SIM=$2 RESULTS=$3 scenario=$4
SYSTEM=${6:-$(dirname "$WIREDCAP")/wiredcap-system}
here=$(cd "$(dirname "$0")" && pwd)
expected=$here/expected/$scenario.txt
# shellcheck source=../integration/lib.sh
. "$here/../integration/lib.sh"  # normalize_output

# Human output is wrapped to the width (80 unless WIREDCAP_GOLDEN_COLUMNS says otherwise), and
# every line is checked against it (check_width). At a width other than 80 the scenario is run
# for those checks only: the transcript is compared at 80.
export COLUMNS=${WIREDCAP_GOLDEN_COLUMNS:-80}
# The paths wiredcap prints are part of the lines it wraps, so the scenario runs in a directory
# whose path has one length wherever the build tree is (/tmp/wcg.XXXXXX): the lines
# break at the same places in every checkout. It is removed when the scenario passes; RESULTS
# keeps the transcript either way.
WORK=$(mktemp -d /tmp/wcg.XXXXXX) || exit 1
mkdir -p "$WORK/etc" && chmod 755 "$WORK" "$WORK/etc"
rm -rf "$RESULTS" && mkdir -p "$RESULTS" && echo "$WORK" > "$RESULTS/workdir"
POLICY=$WORK/etc/wiredcap.conf
sim() { "$SIM" --state "$WORK/sim-state" "$@" >/dev/null || { echo "sim $* failed" >&2; exit 1; }; }
policy() { printf '%s\n' "$@" > "$POLICY"; chmod 644 "$POLICY"; }
# Every scenario's machine has a pinned clock: its uptime moves only when the story says so
# (`machine advance`), so the transcript's uptimes are exact and compared like everything else.
sim_init() { sim init "$@"; sim clock pinned; }
band_192() { policy 'min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB'; }
# Every command wiredcap suggests must be one it accepts right now: each
# `wiredcap SUBCOMMAND ...` in what it printed (not a "wiredcap set:" message prefix, not one
# with a placeholder such as SIZE) runs against a copy of the same simulated state, journal and
# policy; a usage error (2) or a refusal (3) fails the scenario. `set` gets --yes and `ramp`
# --dry-run, the answers a person would give (a ramp's refusals all happen in its plan).
check_suggestions() {
  local cmd copy rc
  while IFS= read -r cmd; do
    [[ " $cmd " =~ \ [A-Z]+\  ]] && continue  # a placeholder such as SIZE: a syntax, not a command
    copy=$WORK/suggestion && rm -rf "$copy" && mkdir -p "$copy" && chmod 755 "$copy"
    cp -a "$WORK/etc" "$copy/etc" && cp -a "$WORK/sim-state" "$copy/sim-state"
    [ -d "$WORK/journal" ] && cp -a "$WORK/journal" "$copy/journal"
    read -r -a words <<<"${cmd#wiredcap }"
    case ${words[0]} in set) words+=(--yes) ;; ramp) words+=(--dry-run) ;; esac
    "$WIREDCAP" --policy "$copy/etc/wiredcap.conf" --journal "$copy/journal/journal.jsonl" --sim-state "$copy/sim-state" \
      "${words[@]}" >"$copy/out" 2>"$copy/err" </dev/null
    rc=$?
    echo "suggested: $cmd -> exit $rc" >>"$WORK/suggestions.log"
    if [ "$rc" = 2 ] || [ "$rc" = 3 ]; then
      echo "SUGGESTION NOT ACCEPTED (exit $rc): $cmd: $(cat "$copy/err")" >&3
    fi
  done < <(cat "$WORK/out" "$WORK/err" | grep -oE 'wiredcap (status|set|reset|ramp|recover|persist|policy check|convert)( (--[a-z-]+|[0-9][0-9.]*[A-Za-z]+|[A-Z]+))*($|[^:a-z])' |
           sed -E 's/[^A-Za-z0-9-]$//')
}
# Every line a person reads fits the width; the JSON object is one line by
# design and exempt, and so is a row that is one word alone (a path wider than the terminal is
# never cut). A line too wide is reported on fd 3 and counted in widths.log.
check_width() {
  local stream line
  for stream in out err; do
    while IFS= read -r line; do
      [[ $line == "{"* ]] && continue
      [[ ${line#"${line%%[! ]*}"} != *" "* ]] && continue
      if [ "${#line}" -gt "$COLUMNS" ]; then
        echo "LINE WIDER THAN $COLUMNS (${#line}) in $stream of 'wiredcap $*': $line" >&3
        echo "$*" >>"$WORK/widths.log"
      fi
    done <"$WORK/$stream"
  done
}
# Runs wiredcap on this tree and appends what it printed, and its exit code, to the transcript.
# Returns wiredcap's exit code, so a scenario can chain commands as a script would (&&).
wc() {
  local rc
  echo "\$ wiredcap $*"
  "$WIREDCAP" --policy "$POLICY" --journal "$WORK/journal/journal.jsonl" --sim-state "$WORK/sim-state" "$@" \
    >"$WORK/out" 2>"$WORK/err" </dev/null
  rc=$?
  echo "[exit $rc]"
  sed 's/^/out| /' "$WORK/out"
  sed 's/^/err| /' "$WORK/err"
  check_suggestions
  check_width "$@"
  keep_json "$@"
  return $rc
}
# Every run with --json keeps its stdout, which must be one answer that its published schema
# (docs/schema/) accepts; validated after the scenario. An empty stdout is kept too: under
# --json there is always an answer, a failure included.
keep_json() {
  local a
  for a in "$@"; do
    if [ "$a" = --json ]; then
      json_count=$((json_count + 1))
      cp "$WORK/out" "$WORK/json/$(printf '%03d' "$json_count").json"
      return
    fi
  done
}
json_count=0
# The LaunchDaemon's boot action, run the way launchd would (as root), with this tree's files.
boot() {
  echo "\$ wiredcap-system boot-action"
  "$SYSTEM" --policy "$POLICY" --journal "$WORK/journal/journal.jsonl" --sim-state "$WORK/sim-state" boot-action \
    >"$WORK/out" 2>"$WORK/err" </dev/null
  echo "[exit $?]"
  sed 's/^/out| /' "$WORK/out"
  sed 's/^/err| /' "$WORK/err"
}
# The journal's last record, as the helper wrote it (what an override leaves behind).
journal() { echo "\$ tail -n 1 journal.jsonl"; tail -n 1 "$WORK/journal/journal.jsonl"; }
# A change to the simulated machine that the story depends on (reboot, time passing), shown.
machine() { echo "\$ wiredcap-sim $*"; sim "$@"; }
# A test model with known contents (tests/golden/make_model.py): sparse, so its weights cost nothing.
model() { python3 "$here/make_model.py" "$@" || { echo "make_model.py $* failed" >&2; exit 1; }; }
# The `command` of the last `wc fit ... --json`, without the leading "wiredcap".
fit_command() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["command"] or "")' "$WORK/out" | sed 's/^wiredcap //'; }
# `ramp --for MODEL OPTIONS` plans to the very value `fit MODEL OPTIONS` recommends: for each
# option set, the plan's target_mib is fit's recommended value.
same_plan_as_fit() {
  local fit_mib ramp_mib
  wiredcap_q() { "$WIREDCAP" --policy "$POLICY" --journal "$WORK/journal/journal.jsonl" --sim-state "$WORK/sim-state" "$@"; }
  fit_mib=$(wiredcap_q fit "$@" --json 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin)["recommended"]; print(r and r["value"])')
  ramp_mib=$(wiredcap_q ramp --for "$@" --dry-run --json 2>/dev/null | python3 -c 'import json,sys; print(json.load(sys.stdin).get("target_mib"))')
  [ "$fit_mib" = "$ramp_mib" ] && [ "$fit_mib" != None ] ||
    { echo "ramp --for $* plans to $ramp_mib MiB, fit recommends $fit_mib MiB"; exit 1; }
  echo "ramp --for plans to fit's $fit_mib MiB: $*"
}
needs_root() { [ "$(id -u)" = 0 ] || { echo "SKIP: $scenario runs the boot action, which is root's only"; exit 77; }; }

exec 3>&2
: >"$WORK/suggestions.log"
: >"$WORK/widths.log"
mkdir -p "$WORK/json"
case $scenario in
  status_m4_16_builtin_too_small) sim_init --profile m4-16; wc status; wc status --json
                       # No band here (no policy file, too small for the built-in one): exit 14.
                       wc set 10GiB --yes; wc set 10GiB --yes --json; wc ramp --to 10GiB --dry-run ;;
  status_m1max_64)     sim_init --profile m1max-64
                       policy 'min = 24GiB' 'max = 52GiB' 'reserve = 12GiB' 'max_step = 8GiB' 'group = daemon'
                       wc status; wc status --json ;;
  status_m2ultra_192)  sim_init --profile m2ultra-192; band_192; wc status; wc set 96GiB --yes; wc status; wc status --json ;;
  status_m3ultra_512)  sim_init --profile m3ultra-512
                       policy 'min = 256GiB' 'max = 480GiB' 'reserve = 32GiB' 'max_step = 32GiB'
                       wc status; wc status --json ;;
  # The picture of memory that leads status: OS default, raised, a model loaded near the cap,
  # a hang ceiling; at 80 and 120 columns, and TERM=dumb (piped: ASCII, no escape codes).
  status_picture)      sim_init --profile m2ultra-192; band_192
                       wc status; COLUMNS=120 wc status
                       wc set 96GiB --yes; machine wired 90GiB; wc status; COLUMNS=120 wc status; TERM=dumb wc status
                       machine hang-above 100GiB; wc set 110GiB --yes; machine reboot; wc recover --hung
                       wc status; COLUMNS=120 wc status
                       # Nothing known of the cap (the knob unreadable): the bar says '?', never a guess.
                       machine fault key-missing on; wc status ;;
  # The System Settings pane by macOS release (14.7, 15.6, 26.1: the profiles'), for a daemon
  # the simulated launchd lists as disabled: status and persist give both causes and both
  # remedies. Then not loaded (bootstrap advice) and not installed (Homebrew: none).
  launchd_settings_names)
                       sim_init --profile m1max-64; sim launchd disabled
                       policy 'min = 24GiB' 'max = 52GiB' 'reserve = 12GiB' 'max_step = 8GiB'
                       wc status; wc persist 40GiB --unconfirmed --lower
                       sim_init --profile m2ultra-192; sim launchd disabled; band_192
                       wc status; wc persist 80GiB --unconfirmed --lower
                       sim_init --profile m4-16; sim launchd disabled
                       policy 'min = 4GiB' 'max = 12GiB' 'reserve = 4GiB' 'max_step = 2GiB'
                       wc status; wc status --json; wc persist 8GiB --unconfirmed --lower
                       sim_init --profile m2ultra-192; sim launchd not-loaded; band_192
                       wc persist 80GiB --unconfirmed --lower
                       sim launchd not-installed; wc persist 80GiB --unconfirmed --lower ;;
  status_key_missing)  sim_init --profile ventura-64; wc status; wc status --json; wc set 40GiB --yes ;;
  set_and_reset)       sim_init --profile m2ultra-192; band_192
                       wc set 80GiB --yes; wc set 81920MiB --yes; wc set 80GiB --yes --json
                       wc set 232000MB --yes; wc set 200GiB --yes; wc set 0MiB --yes; wc set 96GiB
                       wc reset; wc reset --json; wc set default
                       # Refused before any question: outside the band, and over
                       # max_step, whose refusal names the ramp that gets there (accepted).
                       wc set 192GiB; wc set 80GiB --yes; wc set 112GiB; wc set 112GiB --yes --json; wc reset
                       # A bad --from (the cap the GPU has now) is a usage error and writes nothing.
                       wc set 80GiB --yes --from 96; wc set 80GiB --yes --from 0MiB
                       wc set 80GiB --yes --from 232000MB --json
                       echo "\$ wiredcap-sim history"; "$SIM" --state "$WORK/sim-state" history ;;
  set_readback_differs) sim_init --profile m2ultra-192; band_192; sim fault readback-offset 1MiB
                       wc set 80GiB --yes; wc set 80GiB --yes --json ;;
  set_write_refused)   sim_init --profile m2ultra-192; band_192; sim fault write-refused on
                       wc set 80GiB --yes; wc set 80GiB --yes --json; wc reset ;;
  policy_check)        sim_init --profile m2ultra-192; band_192
                       wc policy check; wc policy check --json
                       policy 'min = 64GiB' 'max = 170000MiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check
                       policy 'min = 64GiB' 'max = 232000MiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check
                       policy 'min = 64GiB' 'max = 232000MB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check; wc policy check --json
                       chmod 666 "$POLICY"; wc policy check
                       cp "$POLICY" "$WORK/candidate.conf"; chmod 666 "$WORK/candidate.conf"
                       policy 'min = 64GiB' 'max = 190GiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc policy check "$WORK/candidate.conf"; wc policy check
                       # No policy file is not an invalid one: the built-in band applies (exit 0),
                       # and on a Mac too small for it only reset is permitted (still exit 0).
                       rm "$POLICY"; wc policy check; wc policy check --json
                       # A FILE mistyped is no file (15); a directory cannot be read as one (16).
                       wc policy check "$WORK/etc/wiredcap.cnof"; wc policy check "$WORK/etc/wiredcap.cnof" --json
                       wc policy check "$WORK/etc"
                       sim_init --profile m4-16; wc policy check; wc policy check --json ;;
  # The command line itself: a mistyped command, a size as two words, exact decimals.
  cli_conventions)     sim_init --profile m2ultra-192; band_192
                       wc stauts; wc policy chek; wc frobnicate
                       wc convert 96 GiB; wc convert 96 GiB --json; wc convert 232000MB; wc convert 232000MB --to MiB
                       wc convert 96 GiB MiB; wc set 96GiB
                       # Under --json a failure is an answer too (wiredcap.error/1) on stdout.
                       wc frobnicate --json; wc convert 232000MB --json; wc set 96GiB --json
                       wc --version; wc --version --json ;;
  # README's install line on a fresh simulated Mac (no policy file): both commands run.
  install_line)        sim_init --profile m2ultra-192
                       wc policy check && wc status ;;
  ramp_refusals)       sim_init --profile m2ultra-192; band_192
                       wc ramp --to 232000MB --dry-run; wc ramp --to 200GiB --dry-run; wc ramp --to 32GiB --dry-run
                       wc ramp --to 200GiB --dry-run --json
                       wc ramp --to 96GiB --step 32GiB --dry-run; wc ramp --to 96GiB --step 0MiB --dry-run
                       wc ramp --to 96GiB --timeout 60 --dry-run; wc ramp --to 96GiB --timeout 0s --dry-run
                       wc ramp --to 96GiB --timeout 25h --dry-run; wc ramp --to 96GiB --probe-timeout 1e3s --dry-run
                       wc ramp --to 96GiB --unattended; wc ramp --to 96GiB --check true
                       wc ramp --to 96GiB
                       wc ramp --to 112GiB --dry-run; wc ramp --to 158GiB --dry-run; wc ramp --to 166GiB --dry-run
                       wc set 80GiB --yes; wc ramp --to 64GiB --dry-run ;;
  ramp_unattended)     sim_init --profile m2ultra-192; band_192
                       wc ramp --to 174GiB --step 8GiB --dry-run --json
                       wc ramp --to 174GiB --step 8GiB --unattended --check true
                       wc status
                       # The same ramp again: already there, nothing written or journaled.
                       wc ramp --to 174GiB --step 8GiB --unattended --check true
                       wc ramp --to 174GiB --step 8GiB --unattended --check true --json; wc ramp --to 174GiB --dry-run --json
                       wc ramp --to 176GiB --step 8GiB --unattended --check false --json
                       wc recover
                       wc ramp --to 176GiB --step 2GiB --unattended --check true; machine reboot; wc recover ;;
  hang_binds_every_write) needs_root; sim_init --profile m2ultra-192
                       # persist --unconfirmed counts its one step from the effective cap (158 GiB
                       # from the OS default, the knob's read-back once set): 174 GiB is one step.
                       policy 'min = 160GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       wc persist 174GiB --unconfirmed; machine hang-above 170GiB
                       wc ramp --to 174GiB --step 8GiB --unattended --check true
                       machine reboot; boot; wc recover; wc status
                       wc set 174GiB --yes; wc set 170GiB --yes --json; wc ramp --to 176GiB --dry-run; wc ramp --to 176GiB --dry-run --json
                       # With the knob set the OS default's cap is hidden: --unconfirmed is refused.
                       wc persist 172GiB --unconfirmed; wc reset
                       wc persist 174GiB --unconfirmed; wc persist 174GiB --unconfirmed --ignore-hang-ceiling; journal
                       wc set 166GiB --yes; wc ramp --to 176GiB --step 4GiB --dry-run --json
                       wc set 174GiB --yes --ignore-hang-ceiling; journal ;;
  # A set that hung is a hang like a ramp step's (named, binding); a clean raising set
  # and a reboot is a suspect until a person answers; a ceiling can be forgotten on purpose.
  set_hang_and_suspect) sim_init --profile m2ultra-192; band_192; machine hang-above 160GiB
                       wc set 166GiB --yes; machine reboot; wc recover; wc status
                       wc ramp --to 170GiB --dry-run; wc set 166GiB --yes
                       machine hang-above off; wc set 162GiB --yes; machine reboot
                       wc recover; wc status; wc recover --json; wc recover --not-hung
                       wc recover --forget-hang --why macos-update
                       wc recover --forget-hang --why macos-update --yes; wc status; wc status --json ;;
  # After a hang, the knob cannot be read: recover says unknown, and suggests no command.
  recover_knob_unreadable) sim_init --profile m2ultra-192; band_192; machine default-cap 64GiB
                       wc ramp --to 96GiB --unattended --check true; machine hang-above 88GiB
                       wc ramp --to 112GiB --unattended --check true
                       machine reboot; machine fault key-missing on; wc recover; wc recover --json ;;
  persist_refusals)    sim_init --profile m2ultra-192; band_192
                       wc persist; wc persist --json; wc persist 80GiB; wc persist 80GiB --json
                       wc persist 96; wc persist 0MiB; wc persist default; wc persist -5GiB; wc persist 96G
                       wc persist 1.5MiB; wc persist --off 96GiB; wc persist --off --unconfirmed
                       wc persist --off --ignore-hang-ceiling; wc persist --unconfirmed
                       wc persist 200GiB --unconfirmed ;;
  persist_boot_healthy) needs_root; sim_init --profile m2ultra-192; band_192
                       # 80 GiB is below the effective cap (158 GiB): refused without --lower.
                       wc persist 80GiB --unconfirmed; wc persist 80GiB --unconfirmed --json
                       wc persist 80GiB --unconfirmed --lower; wc persist 80GiB --unconfirmed --lower --json
                       wc status; wc status --json
                       boot; machine reboot; boot
                       wc status; wc status --json; boot
                       machine advance 11m; boot
                       wc status; wc status --json
                       touch "$WORK/etc/wiredcap.boot-disabled"; wc status; machine reboot; boot
                       rm "$WORK/etc/wiredcap.boot-disabled"
                       wc persist --off; wc persist --off --json; wc status ;;
  persist_boot_trip)   needs_root; sim_init --profile m2ultra-192; band_192
                       wc ramp --to 174GiB --step 8GiB --unattended --check true
                       wc persist; wc persist --json
                       machine reboot; boot; machine reboot; boot
                       wc status; wc status --json; wc recover; wc recover --json
                       wc persist; wc ramp --to 176GiB --dry-run
                       wc reset; wc reset --json; wc status; wc persist --off
                       wc persist 80GiB --json ;;
  persist_boot_failed) needs_root; sim_init --profile m2ultra-192; band_192
                       wc persist 80GiB --unconfirmed --lower; machine reboot
                       policy 'min = 64GiB' 'max = 76GiB' 'reserve = 16GiB' 'max_step = 16GiB'
                       boot; wc status; wc status --json; boot
                       wc persist 72GiB --unconfirmed --lower; wc status
                       # Forgetting the stored value is a change, though the knob stays 0.
                       wc set default --json; wc set default --json ;;
  fit_m2ultra_192)     sim_init --profile m2ultra-192; band_192
                       # Model names are looked up in Ollama's and LM Studio's stores: none here.
                       export HOME="$WORK/home" OLLAMA_MODELS="$WORK/no-ollama"
                       model gguf "$WORK/small.gguf" 32 4096 32 8 4500
                       wc fit "$WORK/small.gguf"; wc fit "$WORK/small.gguf" --json
                       model gguf "$WORK/big.gguf" 80 8192 64 8 153600 2
                       wc fit "$WORK/big.gguf" --context 32768; wc fit "$WORK/big.gguf" --context 32768 --json
                       # The verdict's command, run as printed (unattended, so no terminal is needed).
                       cmd=$(fit_command); [ -n "$cmd" ] || { echo "no command in the verdict"; exit 1; }
                       # shellcheck disable=SC2086 # the command is words to split
                       wc $cmd --unattended --check true
                       wc fit "$WORK/big.gguf" --context 32768
                       wc fit "$WORK/big.gguf" --context 131072; wc fit "$WORK/big.gguf" --context 131072 --json
                       wc fit "$WORK/big.gguf" --context 32768 --kv-type q4_0 --parallel 2
                       # The compute buffer: an estimate that grows with the context and the
                       # micro-batch, far smaller with flash attention (compute_buffer_test.cpp).
                       wc fit "$WORK/big.gguf" --context 131072 --flash-attn
                       wc fit "$WORK/big.gguf" --context 32768 --ubatch 2048 --batch 1024
                       # --check: the verdict as the exit code (0 fits now, 17 after a raise, 3 not).
                       wc fit "$WORK/small.gguf" --check; wc fit "$WORK/big.gguf" --context 32768 --ubatch 1024 --check
                       wc fit "$WORK/big.gguf" --context 131072 --check --json
                       model safetensors "$WORK/mlx-model" 32 4096 32 8 4000; wc fit "$WORK/mlx-model"
                       head -c 200 "$WORK/small.gguf" > "$WORK/cut.gguf"; wc fit "$WORK/cut.gguf"
                       wc fit "$WORK/missing.gguf"; wc fit "$WORK/missing.gguf" --json; wc fit "$WORK/small.gguf" --context 0
                       wc fit "$WORK/small.gguf" --kv-type q3_K
                       wc fit "$WORK/small.gguf" --context 262144
                       # Today's families, each by its runtime's rule (kv_cache_families_test.cpp).
                       model family "$WORK/r1.gguf" deepseek-r1 4000
                       wc fit "$WORK/r1.gguf" --context 32768 --kv-type q8_0
                       model family "$WORK/q35.gguf" qwen35-27b 4000; wc fit "$WORK/q35.gguf" --parallel 3
                       model family "$WORK/scout.gguf" llama4-scout 4000
                       wc fit "$WORK/scout.gguf" --context 131072 --kv-type-k q8_0 --kv-type-v f16
                       model family "$WORK/glm.gguf" glm45 4000; wc fit "$WORK/glm.gguf" --json
                       # README: a model by its Ollama name, from the store Ollama keeps.
                       model ollama "$WORK/ollama" llama3.1 70b 40000
                       OLLAMA_MODELS="$WORK/ollama" wc fit llama3.1:70b --context 32768
                       # The runtime's defaults (runtime_defaults_test.cpp): Ollama's context by GPU
                       # memory and its variables; llama-server's 4 slots on one unified cache;
                       # a runtime named; flash attention turned off; a runtime fit does not know.
                       OLLAMA_MODELS="$WORK/ollama" wc fit llama3.1:70b
                       OLLAMA_MODELS="$WORK/ollama" OLLAMA_NUM_PARALLEL=2 OLLAMA_KV_CACHE_TYPE=q8_0 wc fit llama3.1:70b --json
                       wc fit "$WORK/big.gguf" --runtime llama-server
                       wc fit "$WORK/big.gguf" --runtime ollama --context 32768 --no-flash-attn
                       wc fit "$WORK/small.gguf" --runtime vllm ;;
  ramp_for)            sim_init --profile m2ultra-192; band_192
                       model gguf "$WORK/big.gguf" 80 8192 64 8 153600
                       model gguf "$WORK/small.gguf" 32 4096 32 8 4500
                       wc ramp --for "$WORK/big.gguf" --context 32768 --dry-run
                       wc ramp --for "$WORK/big.gguf" --context 32768 --dry-run --json
                       wc ramp --for "$WORK/big.gguf" --context 131072 --dry-run
                       # fit's options, so the ramp plans to fit's own figure (q8_0 and flash
                       # attention make it fit).
                       wc ramp --for "$WORK/big.gguf" --context 131072 --kv-type q8_0 --flash-attn --dry-run
                       wc ramp --for "$WORK/small.gguf" --parallel 4 --kv-type-k q8_0 --dry-run
                       wc ramp --for "$WORK/big.gguf" --context 65536 --ubatch 1024 --flash-attn --dry-run
                       wc ramp --to 170GiB --flash-attn --ubatch 128 --dry-run
                       for opts in "--context 32768" "--context 65536 --kv-type q8_0 --ubatch 256" \
                                   "--context 65536 --kv-type-k q8_0 --kv-type-v q4_0 --batch 256" \
                                   "--context 16384 --parallel 4 --flash-attn"; do
                         # shellcheck disable=SC2086 # the options are words to split
                         same_plan_as_fit "$WORK/big.gguf" $opts
                       done
                       wc ramp --for "$WORK/small.gguf" --dry-run; wc ramp --for "$WORK/small.gguf" --dry-run --json
                       wc ramp --for "$WORK/big.gguf" --to 96GiB --dry-run
                       wc ramp --context 8192 --to 96GiB --dry-run; wc ramp --dry-run
                       wc ramp --for "$WORK/big.gguf" --context 32768 --step 16GiB --unattended --check true
                       wc status ;;
  readme_quick_start)  # README's quick start, as written there, on the default simulated Mac (no policy)
                       sim_init; rm -f "$POLICY"
                       cmd=$(grep -o 'wiredcap ramp --to [0-9A-Za-z]* --timeout [0-9a-z]*' "$here/../../README.md" | head -n 1)
                       [ -n "$cmd" ] || { echo "README has no quick-start ramp"; exit 1; }
                       read -r -a quick <<<"${cmd#wiredcap }"
                       wc status; wc "${quick[@]}" --dry-run
                       wc "${quick[@]}" --unattended --check true
                       echo "\$ wiredcap-sim history"; "$SIM" --state "$WORK/sim-state" history ;;
  *) echo "no scenario '$scenario'" >&2; exit 2 ;;
esac > "$WORK/transcript.raw" 2>&1

# Normalise what differs between runs (the work directory, boot ids, times, run ids): one shared
# definition, lib.sh's normalize_output.
# Where the build put the helper, and whose file it is (status --json's "helper"), differ between
# checkouts and users: masked there alone. That it is reported, and its setuid bit, are compared.
normalize_output "$WORK" < "$WORK/transcript.raw" |
  sed -E 's#"helper":\{"path":"[^"]*/wiredcap-helper","mode":"[0-7]{4}","setuid":(true|false),"uid":[0-9]+,"gid":[0-9]+#"helper":{"path":"<BIN>/wiredcap-helper","mode":"<MODE>","setuid":\1,"uid":<UID>,"gid":<GID>#g' \
  > "$WORK/transcript"

# The counts come from the log: the scenario ran in the redirected block's shell.
checked=$(grep -c "" "$WORK/suggestions.log")
refused=$(grep -cE -- '-> exit (2|3)$' "$WORK/suggestions.log")
echo "checked $checked suggested commands; $refused not accepted"
[ "$refused" = 0 ] || { echo "FAIL: $scenario printed a suggestion wiredcap does not accept (above)"; exit 1; }
cp "$WORK/transcript" "$RESULTS/transcript"
wide=$(grep -c "" "$WORK/widths.log")
echo "checked every human line at $COLUMNS columns; $wide commands printed a wider one"
[ "$wide" = 0 ] || { echo "FAIL: $scenario printed lines wider than $COLUMNS columns (above)"; exit 1; }
if [ "$COLUMNS" != 80 ]; then
  rm -rf "$WORK"
  echo "PASS: $scenario at $COLUMNS columns"
  exit 0
fi

# Every JSON answer against its schema, in update mode too: a golden never records one that
# breaks the published contract.
json_answers=("$WORK"/json/*.json)
if [ -e "${json_answers[0]}" ]; then
  python3 "$here/../schema/validate_json.py" "$here/../../docs/schema" "${json_answers[@]}" ||
    { echo "FAIL: $scenario printed JSON its schema (docs/schema/) does not accept"; exit 1; }
fi

if [ "${WIREDCAP_UPDATE_GOLDEN:-}" = 1 ]; then
  mkdir -p "$here/expected" && cp "$WORK/transcript" "$expected"
  rm -rf "$WORK"
  echo "updated $expected"
  exit 0
fi
[ -f "$expected" ] || { echo "FAIL: no expected output $expected (run with WIREDCAP_UPDATE_GOLDEN=1)"; exit 1; }
if ! diff -u "$expected" "$WORK/transcript"; then
  echo "FAIL: $scenario differs from $expected"
  exit 1
fi
rm -rf "$WORK"
echo "PASS: $scenario"
