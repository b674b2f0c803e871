#!/usr/bin/env bash
# The wiredcap.macos Ansible collection (packaging/ansible), run for real with
# Debian's ansible-core (`ansible-playbook -c local`) against a simulated Mac: `wiredcap` on the
# PATH the modules see is this build's, with the development options that point it at the
# simulator. Asserted on the simulator's write history, the journal and the play recap.
#   ansible_test.sh WIREDCAP HELPER SIM SOURCE_DIR WORK SCENARIO
# Exit 77 (skipped) only when ansible-playbook is not installed (tools/install-deps installs it).
WIREDCAP=$(realpath "$1") HELPER=$(realpath "$2") SIM=$(realpath "$3") SRC=$4 WORK=$5 scenario=$6
. "$(dirname "$0")/lib.sh"
command -v ansible-playbook >/dev/null || { echo "SKIP: ansible-playbook is not installed (Debian ansible-core)"; exit 77; }

band=('min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB' 'vouched = 176GiB')
history_is() { local h; h=$(sim history | sed 's/ MiB$//' | paste -sd, -); [ "$h" = "$1" ] || fail "write history is '$h', expected '$1'"; }

# The machine, and `wiredcap` on PATH: this build's, pointed at it.
setup() {
  new_tree; write_policy "${band[@]}"
  mkdir -p "$WORK/bin" "$WORK/ansible-tmp"
  printf '#!/bin/sh\nexec %q --helper %q --policy %q --journal %q --sim-state %q "$@"\n' \
    "$WIREDCAP" "$HELPER" "$POLICY" "$JOURNAL" "$STATE" >"$WORK/bin/wiredcap"
  chmod 755 "$WORK/bin/wiredcap"
}

# play TASK_YAML [ansible-playbook options]: one play on localhost with that task; OUT, RC.
play() {
  local task=$1
  shift
  printf -- '- hosts: localhost\n  gather_facts: false\n  tasks:\n%s\n' "$task" >"$WORK/play.yml"
  OUT=$(PATH="${PLAY_PATH:-$WORK/bin}:$PATH" HOME="$WORK" ANSIBLE_COLLECTIONS_PATH="$SRC/packaging/ansible" \
        ANSIBLE_LOCAL_TEMP="$WORK/ansible-tmp" ANSIBLE_REMOTE_TEMP="$WORK/ansible-tmp" \
        ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
        ansible-playbook -c local -i localhost, -e ansible_python_interpreter=/usr/bin/python3 \
        "$WORK/play.yml" "$@" 2>&1)
  RC=$?
}
recap_is() {  # recap_is changed=N failed=N
  local line
  line=$(grep -E '^localhost +:' <<<"$OUT")
  for want in "$@"; do
    [[ $line =~ (^|[[:space:]])$want([[:space:]]|$) ]] || fail "the recap is not $*: $line
$OUT"
  done
}
cap_task() {  # cap_task KEY=VALUE...: the wiredcap_cap task with those parameters
  local t='    - wiredcap.macos.wiredcap_cap:' kv
  for kv in "$@"; do t+=$'\n'"        ${kv%%=*}: ${kv#*=}"; done
  printf '%s' "$t"
}

second_run_changes_nothing() {
  setup
  # The vouched 176 GiB from the OS default (158 GiB here, max_step 16 GiB), now and at boot.
  play "$(cap_task value=176GiB persist=true)"
  [ "$RC" = 0 ] || fail "the first run failed ($RC): $OUT"
  recap_is changed=1 failed=0
  expect_knob 180224; history_is 180224
  grep -q '"event":"persisted","to_mib":180224' "$JOURNAL" || fail "not persisted: $(cat "$JOURNAL")"
  local lines
  lines=$(wc -l <"$JOURNAL")
  play "$(cap_task value=176GiB persist=true)"
  [ "$RC" = 0 ] || fail "the second run failed ($RC): $OUT"
  recap_is changed=0 failed=0
  history_is 180224
  # Back to the default, and idempotent there too.
  play "$(cap_task state=default)"
  recap_is changed=1 failed=0
  expect_knob 0; history_is 180224,0
  [ ! -e "$WORK/journal/boot.state" ] || fail "the value stored for boot is still there"
  play "$(cap_task state=default)"
  recap_is changed=0 failed=0
  history_is 180224,0
  [ "$(wc -l <"$JOURNAL")" -gt "$lines" ] || fail "the reset was not journaled"
}

check_mode_changes_nothing() {
  setup
  play "$(cap_task value=176GiB persist=true)" --check --diff
  [ "$RC" = 0 ] || fail "check mode failed ($RC): $OUT"
  recap_is changed=1 failed=0
  [[ $OUT == *'-iogpu.wired_limit_mb: 0 MiB'* && $OUT == *'+iogpu.wired_limit_mb: 180224 MiB'* ]] ||
    fail "the diff does not show before and after in MiB: $OUT"
  [[ $OUT == *'+stored for boot: 180224 MiB'* ]] || fail "the diff does not show the value stored for boot: $OUT"
  history_is ''; expect_knob 0
  [ ! -s "$JOURNAL" ] || fail "check mode journaled something: $(cat "$JOURNAL")"
  [ ! -e "$WORK/journal/boot.state" ] || fail "check mode stored a value for boot"
}

out_of_band_fails_with_the_tools_message() {
  setup
  play "$(cap_task value=180GiB)"
  [ "$RC" != 0 ] || fail "a value outside the band did not fail the play: $OUT"
  recap_is changed=0 failed=1
  [[ $(flat "$OUT") == *'184320 MiB (180.00 GiB, 193.27 GB) is outside the permitted band 65536 MiB (64.00 GiB, 68.71 GB) to 180224 MiB'* ]] ||
    fail "the task's message is not wiredcap's: $OUT"
  history_is ''; expect_knob 0
  # A size without its unit: wiredcap's parser refuses it, and says why.
  play "$(cap_task value=176)"
  recap_is failed=1
  history_is ''
  [[ $OUT == *'unit'* ]] || fail "a bare number was not refused with wiredcap's reason: $OUT"
}

# state=default with the knob already at the OS default but a value stored for boot: that
# value is what would change the cap at the next boot, so it is forgotten and the task changed;
# check mode says so first and forgets nothing.
default_forgets_a_value_stored_for_boot() {
  setup
  "$WORK/bin/wiredcap" persist 176GiB >/dev/null 2>&1 || fail "cannot store the vouched value"
  expect_knob 0; [ -e "$WORK/journal/boot.state" ] || fail "nothing stored for boot"
  play "$(cap_task state=default)" --check --diff
  recap_is changed=1 failed=0
  [[ $OUT == *'-stored for boot: 180224 MiB'* && $OUT == *'+stored for boot: none'* ]] ||
    fail "the diff does not show the stored value going: $OUT"
  [ -e "$WORK/journal/boot.state" ] || fail "check mode forgot the stored value"
  play "$(cap_task state=default)"
  recap_is changed=1 failed=0
  [ ! -e "$WORK/journal/boot.state" ] || fail "the value stored for boot is still there"
  history_is ''
}

# docs/fleet.md's playbook as written, on localhost without become (the test is root already):
# the vouched value now and at boot, then wiredcap_info's facts in the debug message.
the_docs_playbook_runs() {
  setup
  python3 - "$SRC/docs/fleet.md" "$WORK/docs-play.yml" <<'PY2' || fail "no playbook in docs/fleet.md"
import re, sys
block = re.search(r"```yaml\n(.*?)```", open(sys.argv[1]).read(), re.S).group(1)
assert "hosts: mac_studios" in block and "become: true" in block
block = block.replace("hosts: mac_studios", "hosts: localhost\n  gather_facts: false")
open(sys.argv[2], "w").write(block.replace("become: true", "become: false"))
PY2
  OUT=$(PATH="$WORK/bin:$PATH" HOME="$WORK" ANSIBLE_COLLECTIONS_PATH="$SRC/packaging/ansible" \
        ANSIBLE_LOCAL_TEMP="$WORK/ansible-tmp" ANSIBLE_REMOTE_TEMP="$WORK/ansible-tmp" \
        ANSIBLE_NOCOLOR=1 ANSIBLE_FORCE_COLOR=0 ANSIBLE_RETRY_FILES_ENABLED=0 \
        ansible-playbook -c local -i localhost, -e ansible_python_interpreter=/usr/bin/python3 \
        "$WORK/docs-play.yml" 2>&1)
  RC=$?
  [ "$RC" = 0 ] || fail "the docs' playbook failed ($RC): $OUT"
  recap_is changed=1 failed=0
  expect_knob 180224; history_is 180224
  [[ $OUT == *'"msg": "180224 MiB, wired now 6144 MiB"'* ]] || fail "wiredcap_info's facts are not in the message: $OUT"
}

# Under become the modules run as root (the test is root already). A wiredcap a user could
# replace (Intel Homebrew's /usr/local/bin is a user's, group-writable) fails the task, naming
# the path, and is never run: the planted one would leave a marker. Found on PATH first, or
# given as executable, the same.
root_refuses_a_wiredcap_a_user_can_replace() {
  setup
  local bin=$WORK/prefix/usr/local/bin
  mkdir -p "$bin"; chmod 755 "$WORK/prefix" "$WORK/prefix/usr" "$WORK/prefix/usr/local"
  printf '#!/bin/sh\ntouch %q\n' "$WORK/planted-ran" >"$bin/wiredcap"
  chmod 755 "$bin/wiredcap"; chown -R 65534:65534 "$bin"; chmod 775 "$bin"
  PLAY_PATH="$bin:$WORK/bin" play "$(cap_task value=176GiB)"
  recap_is changed=0 failed=1
  [[ $(flat "$OUT") == *"refusing to run $bin/wiredcap as root: $bin/wiredcap is owned by uid 65534, not root"* ]] ||
    fail "the task did not name the path a user owns: $OUT"
  PLAY_PATH="$bin:$WORK/bin" play "$(cap_task value=176GiB)" --check
  recap_is failed=1
  PLAY_PATH="$bin:$WORK/bin" play '    - wiredcap.macos.wiredcap_info:'
  recap_is failed=1
  chown 0:0 "$bin/wiredcap"
  play "$(cap_task value=176GiB executable="$bin/wiredcap")"
  recap_is failed=1
  [[ $(flat "$OUT") == *"$bin is owned by uid 65534, not root"* ]] || fail "the directory a user owns is not named: $OUT"
  [ ! -e "$WORK/planted-ran" ] || fail "the planted wiredcap ran as root"
  history_is ''
}

# ansible-test's module validator, run offline from ansible-core's own sources (ansible-test
# sanity would build a venv with pip from the network). Every error it reports must be one the
# collection's tests/sanity/ignore-2.14.txt names (there: the GPLv3 header, the collection being
# MIT), and every ignore must still be needed.
validate_modules_is_clean() {
  local v=/usr/lib/python3/dist-packages/ansible_test/_util/controller/sanity/validate-modules
  [ -f "$v/validate.py" ] || { echo "SKIP: ansible-test's validate-modules is not installed (ansible-core)"; exit 77; }
  /usr/bin/python3 -c 'import voluptuous' 2>/dev/null || fail "python3-voluptuous is missing (tools/install-deps)"
  rm -rf "$WORK" && mkdir -p "$WORK/ac/ansible_collections/wiredcap"
  cp -r "$SRC/packaging/ansible/ansible_collections/wiredcap/macos" "$WORK/ac/ansible_collections/wiredcap/"
  local c=$WORK/ac/ansible_collections/wiredcap/macos
  OUT=$(cd "$c" && PYTHONPATH=$v ANSIBLE_COLLECTIONS_PATH=$WORK/ac /usr/bin/python3 "$v/validate.py" \
        --collection ansible_collections/wiredcap/macos --arg-spec --plugin-type module plugins/modules/*.py 2>&1)
  printf '%s\n' "$OUT" | grep . >"$WORK/validate.out"
  python3 - "$c/tests/sanity/ignore-2.14.txt" "$WORK/validate.out" <<'PY' || fail "validate-modules: $OUT"
import re, sys
ignores = {tuple(l.split("#")[0].split()) for l in open(sys.argv[1]) if l.strip() and not l.startswith("#")}
found = set()
for line in open(sys.argv[2]).read().splitlines():
    m = re.match(r"(\S+):\d+:\d+: E(\S+) ", line)
    if not m:
        sys.exit("not a validator line: " + line)
    found.add((m.group(1), "validate-modules:" + m.group(2)))
if found - ignores or ignores - found:
    sys.exit("not ignored: %s; ignored but not reported: %s" % (sorted(found - ignores), sorted(ignores - found)))
PY
  [ -f "$c/meta/runtime.yml" ] && grep -q '^requires_ansible: ">=2.14.0"$' "$c/meta/runtime.yml" || fail "no meta/runtime.yml with requires_ansible"
}

# value: default is the OS default in check mode and for real alike (a reset), as wiredcap's
# own word for it; wiredcap_info returns its answer, not ansible_facts (it is no _facts module).
value_default_and_info() {
  setup
  "$WORK/bin/wiredcap" set 160GiB --yes >/dev/null 2>&1 || fail "cannot set 160 GiB"
  play "$(cap_task value=default)" --check --diff
  [ "$RC" = 0 ] || fail "value: default in check mode failed ($RC): $OUT"
  recap_is changed=1 failed=0
  [[ $OUT == *'+iogpu.wired_limit_mb: 0 MiB'* ]] || fail "check mode does not show the default: $OUT"
  expect_knob 163840
  play "$(cap_task value=default)"
  recap_is changed=1 failed=0
  expect_knob 0; history_is 163840,0
  play $'    - wiredcap.macos.wiredcap_info:\n      register: cap\n    - ansible.builtin.debug:\n        msg: "{{ cap.wiredcap.wired_limit.value }} MiB, facts {{ cap.ansible_facts | default(\'none\') }}"'
  recap_is failed=0
  [[ $OUT == *'"msg": "0 MiB, facts none"'* ]] || fail "wiredcap_info's answer is not registered as wiredcap, or it set facts: $OUT"
}

# An AMD Linux host (the simulated one, amd-ttm-128): wiredcap there changes the cap only by a
# trial boot that a reboot and a root's confirmation must follow, which a task cannot finish.
# wiredcap_cap fails with one sentence saying so, in check mode as in the real run, for a value
# and for the default; nothing under the host's root changes. wiredcap_info returns its status.
# (`wiredcap` here passes --linux-root to the commands that take it, as detection does on a
# real APU.)
linux_host_is_refused() {
  setup
  local root=$WORK/apu
  "$(dirname "$SIM")/wiredcap-sim-linux" init --root "$root" --profile amd-ttm-128 >/dev/null ||
    fail "no simulated Linux root (wiredcap-sim-linux, built beside wiredcap-sim)"
  mkdir -p "$root/var/lib/wiredcap"
  printf '#!/bin/sh\ncase $2 in status|set|reset|recover) exec %q --journal %q --policy %q "$@" --linux-root %q ;; esac\nexec %q --journal %q --policy %q "$@"\n' \
    "$WIREDCAP" "$root/var/lib/wiredcap/journal.jsonl" "$POLICY" "$root" \
    "$WIREDCAP" "$root/var/lib/wiredcap/journal.jsonl" "$POLICY" >"$WORK/bin/wiredcap"
  local before; before=$(cd "$root" && find . -type f -exec md5sum {} + | sort)
  for task in "$(cap_task value=100GiB)" "$(cap_task value=100GiB persist=true)" "$(cap_task state=default)"; do
    for mode in --check ''; do
      play "$task" $mode
      [ "$RC" != 0 ] || fail "the task succeeded on a Linux host ($mode): $OUT"
      recap_is changed=0 failed=1
      [[ $OUT == *'this host is Linux, where wiredcap changes the GPU cap'*'which wiredcap.macos.wiredcap_cap does not drive; nothing was changed'* ]] ||
        fail "not refused in one sentence ($mode): $OUT"
    done
  done
  [ "$(cd "$root" && find . -type f -exec md5sum {} + | sort)" = "$before" ] || fail "a file under the Linux root changed"
  play '    - wiredcap.macos.wiredcap_info:
      register: w
    - ansible.builtin.debug:
        msg: "{{ w.wiredcap.schema }}"'
  [ "$RC" = 0 ] && [[ $OUT == *'"msg": "wiredcap.linux-status/1"'* ]] || fail "wiredcap_info on the Linux host: $OUT"
}

# A fleet converging with set after every reboot: a raise set wrote is a suspect after each one
# (recover exits 10). Only the play's own word, after_planned_reboot, settles them: explicitly,
# as not-hung verdicts in the journal; never by habit, never in check mode.
verdicts() { grep -c '"command":"verdict","event":"not-hung"' "$JOURNAL" || true; }
recover_rc() { "$WORK/bin/wiredcap" recover </dev/null >/dev/null 2>&1; echo $?; }
planned_reboot_settles_only_when_said() {
  setup
  play "$(cap_task value=170GiB)"
  recap_is changed=1 failed=0
  sim reboot >/dev/null
  [ "$(recover_rc)" = 10 ] || fail "no suspect after the reboot"
  # Converging again without the word: the value is set again, the suspect stays.
  play "$(cap_task value=170GiB)"
  recap_is changed=1 failed=0
  [ "$(recover_rc)" = 10 ] && [ "$(verdicts)" = 0 ] || fail "a suspect was settled without the play's word"
  sim reboot >/dev/null
  play "$(cap_task value=170GiB after_planned_reboot=true)" --check
  recap_is changed=1 failed=0
  [ "$(recover_rc)" = 10 ] && [ "$(verdicts)" = 0 ] || fail "check mode answered a suspect"
  play "$(cap_task value=170GiB after_planned_reboot=true)" -v
  recap_is changed=1 failed=0
  [ "$(recover_rc)" = 0 ] || fail "recover still exits $(recover_rc) after the planned reboot was said"
  # Both boots' suspects (the value set before each reboot), each with its own verdict.
  [ "$(verdicts)" = 2 ] || fail "not one not-hung verdict per suspect journaled: $(cat "$JOURNAL")"
  [[ $OUT == *'"settled_mib": [174080, 174080]'* ]] || fail "the settled suspects are not returned: $OUT"
  expect_knob 174080; history_is 174080,174080,174080
  # Nothing left to settle, the cap in place: nothing changes.
  play "$(cap_task value=170GiB after_planned_reboot=true)"
  recap_is changed=0 failed=0
}

# Check mode and the real run side by side: from the same machine, the task's verdict
# in check mode -- failed or not, wiredcap's exit code (rc), its message, changed -- is the real
# run's, for a value in the band, one more than max_step from the OS default's 158 GiB, one
# outside the band, the vouched one, one at a hang ceiling, the default, and with persist: true a
# value that could not be stored for boot (refused before set changes anything, in both modes)
# and one that can. Check mode writes nothing: the simulator's write history, the journal and the
# boot state are as before it.
verdict_play() {  # verdict_play OUTFILE TASK [--check]: the task's result as one JSON line
  local out=$1 task=$2
  shift 2
  play "$task
      register: r
      ignore_errors: true
    - ansible.builtin.copy:
        content: \"{{ {'failed': r.failed | default(false), 'rc': r.rc | default(0), 'msg': r.msg | default(''), 'changed': r.changed} | to_json }}\"
        dest: $out
      check_mode: false" "$@"
  [ -s "$out" ] || fail "no result of the task ($RC): $OUT"
}
# (a journal not there yet and an empty one are the same: no record; taking the helper's lock
# makes the file, as any call that takes it does).
machine_print() {  # what a run could have written: the write history, the journal, the boot state
  printf '%s|%s|%s' "$(sim history | paste -sd,)" "$(cat "$JOURNAL" 2>/dev/null | md5sum)" \
    "$(cat "$WORK/journal/boot.state" 2>/dev/null)"
}
check_mode_predicts_the_run() {
  local name params prep before verdict
  local cases=(
    'in-band|value=160GiB|'
    'over-step|value=175GiB|'
    'outside-band|value=180GiB|'
    'vouched|value=176GiB|'
    'hang-ceiling|value=168GiB|hang'
    'below-the-hang-ceiling|value=160GiB|hang'
    'default|value=default|set'
    'persist-refused|value=160GiB persist=true|'
    'persist-vouched|value=176GiB persist=true|'
  )
  local c
  for c in "${cases[@]}"; do
    IFS='|' read -r name params prep <<<"$c"
    setup
    # A hang at 164 GiB: root's ramp step applied in the boot before, never confirmed.
    if [ "$prep" = hang ]; then
      "$HELPER" --policy "$POLICY" --journal "$JOURNAL" --sim-state "$STATE" apply 164GiB --run r-hung --step 1 \
        --effective 158GiB >/dev/null 2>&1 || fail "$name: cannot apply the step that hangs"
      sim reboot >/dev/null
    fi
    [ "$prep" = set ] && { "$WORK/bin/wiredcap" set 160GiB --yes >/dev/null 2>&1 || fail "$name: cannot set 160 GiB"; }
    # shellcheck disable=SC2086  # the parameters are words
    local task; task=$(cap_task $params)
    before=$(machine_print)
    verdict_play "$WORK/check.json" "$task" --check
    [ "$(machine_print)" = "$before" ] || fail "$name: check mode wrote something: $before -> $(machine_print)"
    verdict_play "$WORK/real.json" "$task"
    verdict=$(python3 - "$WORK/check.json" "$WORK/real.json" 2>&1 <<'PY'
import json, sys
check, real = (json.load(open(f)) for f in sys.argv[1:])
for k in ("failed", "rc", "msg", "changed"):
    if check[k] != real[k]:
        sys.exit("%s differs: check mode %r, the real run %r" % (k, check[k], real[k]))
print("failed rc=%s" % real["rc"] if real["failed"] else "changed=%s" % real["changed"])
PY
) || fail "$name: check mode is not the real run's verdict: $verdict"
    note "$name: $verdict in both"
    case $name in
      in-band|vouched|below-the-hang-ceiling|default|persist-vouched) [[ $verdict == changed=True ]] ;;
      *) [[ $verdict == 'failed rc=3' ]] ;;
    esac || fail "$name: the verdict is not the one expected: $verdict"
    # A persist that is refused is refused before set: the real run changed nothing either.
    if [ "$name" = persist-refused ]; then
      [ "$(machine_print)" = "$before" ] || fail "persist-refused: the real run changed the machine: $(machine_print)"
    fi
  done
}

"$scenario"
echo "PASS: $scenario"
