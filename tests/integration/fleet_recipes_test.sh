#!/usr/bin/env bash
# The MDM and Munki recipes of docs/fleet.md, run against a simulated Mac:
# the Jamf extension attributes (packaging/fleet/jamf) and the scripts of the Munki nopkg item
# (packaging/fleet/munki/wiredcap-gpu-cap.plist, taken out of the pkginfo as Munki does), with
# `wiredcap` this build's, pointed at the simulator (WIREDCAP, which the scripts default to
# /usr/local/bin/wiredcap). Asserted on the write history, the boot state and what the scripts
# print and exit with. docs_show_the_scripts: docs/fleet.md shows each file verbatim.
#   fleet_recipes_test.sh WIREDCAP HELPER SYSTEM SIM SOURCE_DIR WORK SCENARIO
WIREDCAP=$(realpath "$1") HELPER=$(realpath "$2") SYSTEM=$(realpath "$3") SIM=$(realpath "$4") SRC=$5 WORK=$6 scenario=$7
. "$(dirname "$0")/lib.sh"

band=('min = 64GiB' 'max = 176GiB' 'reserve = 16GiB' 'max_step = 16GiB')
history_is() { local h; h=$(sim history | sed 's/ MiB$//' | paste -sd, -); [ "$h" = "$1" ] || fail "write history is '$h', expected '$1'"; }
setup() {
  new_tree; write_policy "${band[@]}" 'vouched = 176GiB'
  mkdir -p "$WORK/bin"
  printf '#!/bin/sh\nexec %q --helper %q --policy %q --journal %q --sim-state %q "$@"\n' \
    "$WIREDCAP" "$HELPER" "$POLICY" "$JOURNAL" "$STATE" >"$WORK/bin/wiredcap"
  chmod 755 "$WORK/bin/wiredcap"
  export WIREDCAP_WRAPPER=$WORK/bin/wiredcap
}
# script FILE: runs it as Jamf or Munki would (sh, as root), with WIREDCAP set; OUT, RC.
# The attributes read as WIREDCAP_EA_USER (nobody unless set): the development helper reads only
# files of the user running it, so the stories that read the journal and boot state read as root.
script() { OUT=$(WIREDCAP=$WIREDCAP_WRAPPER sh "$1" 2>"$WORK/stderr"); RC=$?; ERR=$(cat "$WORK/stderr"); }
expect_result() { [ "$OUT" = "<result>$1</result>" ] || fail "the attribute printed '$OUT', expected <result>$1</result> (stderr: $ERR)"; }

jamf_attributes() {
  setup
  export WIREDCAP_EA_USER=root
  local cap=$SRC/packaging/fleet/jamf/wiredcap-cap-mib.sh guard=$SRC/packaging/fleet/jamf/wiredcap-boot-guard.sh
  script "$cap"; expect_rc 0; expect_result 0
  script "$guard"; expect_rc 0; expect_result none
  helper apply 176GiB; expect_rc 0
  helper persist 176GiB; expect_rc 0
  script "$cap"; expect_result 180224
  script "$guard"; expect_result armed
  # The stored value applied at a boot that then went down before it was healthy: tripped.
  sim reboot >/dev/null; system boot-action; expect_rc 0
  script "$guard"; expect_result trying
  sim reboot >/dev/null; system boot-action
  script "$guard"; expect_result tripped
  script "$cap"; expect_result 0
  # A machine that does not answer: empty, never a made-up 0.
  sim hang-above 100GiB >/dev/null; helper apply 120GiB --effective 158GiB --effective-source given
  expect_rc 6
  script "$cap"; expect_rc 0; expect_result ''
  # No wiredcap installed: empty.
  OUT=$(WIREDCAP=$WORK/no-such-wiredcap sh "$cap"); [ "$OUT" = '<result></result>' ] || fail "without wiredcap: $OUT"
}

# The boot daemon's attribute: empty on the simulated Mac (no launchd: not applicable), and each
# state launchd can report, from a wiredcap that prints those metric lines.
jamf_daemon_attribute() {
  setup
  local ea=$SRC/packaging/fleet/jamf/wiredcap-daemon.sh stub=$WORK/stub/wiredcap
  script "$ea"; expect_rc 0; expect_result ''
  mkdir -p "$WORK/stub"; chmod 755 "$WORK/stub"
  for lines_want in '1 1|loaded, enabled' '1 0|disabled' '0 1|not loaded' '0 0|not loaded' '- 0|disabled' '1 -|'; do
    local lines=${lines_want%|*} want=${lines_want#*|}
    local l=${lines% *} e=${lines#* }
    { echo '#!/bin/sh'; echo 'echo wiredcap_up 1'
      [ "$l" = - ] || echo "echo wiredcap_daemon_loaded $l"
      [ "$e" = - ] || echo "echo wiredcap_daemon_enabled $e"; } >"$stub"
    chmod 755 "$stub"
    WIREDCAP_WRAPPER=$stub script "$ea"
    expect_result "$want"
  done
}

# The journal's attribute: status --json's needs_attention through a suspect, a hang and an open
# step, in status's order; empty, never "none", when the journal or the helper cannot be read.
jamf_journal_attribute() {
  setup
  export WIREDCAP_EA_USER=root
  local ea=$SRC/packaging/fleet/jamf/wiredcap-journal.sh
  script "$ea"; expect_rc 0; expect_result none
  # A raise in force when the Mac went down: a suspect.
  "$WIREDCAP_WRAPPER" set 160GiB --yes >/dev/null || fail "set 160GiB"
  sim reboot >/dev/null
  script "$ea"; expect_result suspect
  # A ramp step at 120 GiB hangs the Mac: found at the next boot.
  sim hang-above 100GiB >/dev/null
  helper apply 120GiB --run r-1 --step 1 --effective 158GiB --effective-source given; expect_rc 6
  sim reboot >/dev/null; sim hang-above off >/dev/null
  script "$ea"; expect_result 'hang, suspect'
  "$WIREDCAP_WRAPPER" recover >/dev/null 2>&1  # ends the hung run; exits non-zero: the suspect awaits a person
  # A step applied in this boot and not yet confirmed.
  helper apply 64GiB --run r-2 --step 1 --effective 158GiB --effective-source given; expect_rc 0
  script "$ea"; expect_result 'hang, suspect, open_step'
  [ "$(WIREDCAP=$WIREDCAP_WRAPPER "$WIREDCAP_WRAPPER" status --json | python3 -c \
      'import json, sys; print(", ".join(dict.fromkeys(a["kind"] for a in json.load(sys.stdin)["needs_attention"])))')" \
    = 'hang, suspect, open_step' ] || fail "status --json's needs_attention differs from the attribute"
  # The journal unreadable (a directory at its name): empty, not "none".
  mv "$JOURNAL" "$JOURNAL.away"; mkdir "$JOURNAL"
  script "$ea"; expect_rc 0; expect_result ''
  rmdir "$JOURNAL"; mv "$JOURNAL.away" "$JOURNAL"
  # No helper answers: empty. No wiredcap: empty.
  printf '#!/bin/sh\nexec %q --helper %q --policy %q --journal %q --sim-state %q "$@"\n' \
    "$WIREDCAP" "$WORK/no-such-helper" "$POLICY" "$JOURNAL" "$STATE" >"$WORK/bin/no-helper"
  chmod 755 "$WORK/bin/no-helper"
  WIREDCAP_WRAPPER=$WORK/bin/no-helper script "$ea"; expect_result ''
  OUT=$(WIREDCAP=$WORK/no-such-wiredcap sh "$ea"); [ "$OUT" = '<result></result>' ] || fail "without wiredcap: $OUT"
  # Texts that look like JSON do not fool it: brackets, quotes and a "kind" inside strings.
  mkdir -p "$WORK/stub"; chmod 755 "$WORK/stub"
  cat >"$WORK/stub/wiredcap" <<'STUB'
#!/bin/sh
cat <<'JSON'
{"schema":"wiredcap.status/2","needs_attention":[{"kind":"suspect","text":"a ] b } \"kind\":\"boot_guard\" \" \\","command":"wiredcap recover"},{"kind":"hang","text":"[x]"}],"x":{"kind":"boot_guard"},
"journal":{"source":"journal j","suspects":[{"kind":"suspect","text":"\"needs_attention\":["}]}}
JSON
STUB
  chmod 755 "$WORK/stub/wiredcap"
  WIREDCAP_WRAPPER=$WORK/stub/wiredcap script "$ea"; expect_result 'suspect, hang'
}

# The pkginfo's script KEY, written out as Munki does before running it.
munki_script() { munki_extract "$1"; script "$WORK/$1"; }
munki_extract() {
  python3 - "$SRC/packaging/fleet/munki/wiredcap-gpu-cap.plist" "$1" "$WORK/$1" <<'PY' || fail "no $1 in the pkginfo"
import plistlib, sys
with open(sys.argv[1], "rb") as f:
    info = plistlib.load(f)
assert info["installer_type"] == "nopkg" and info["uninstall_method"] == "uninstall_script"
open(sys.argv[3], "w").write(info[sys.argv[2]])
PY
}

munki_nopkg_item() {
  setup
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck on a fresh Mac: exit $RC, expected 0 (install needed)"
  history_is ''
  munki_script postinstall_script; expect_rc 0
  history_is 180224; expect_knob 180224
  grep -q '"event":"persisted","to_mib":180224' "$JOURNAL" || fail "not stored for boot: $(cat "$JOURNAL")"
  munki_script installcheck_script; [ "$RC" = 1 ] || fail "installcheck after the install: exit $RC, expected 1 (installed)"
  # Stored for boot but the knob back at the default (a reboot before the boot action): needed.
  sim reboot >/dev/null
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck with the knob at 0: exit $RC, expected 0"
  munki_script uninstall_script; expect_rc 0
  expect_knob 0
  [ ! -e "$WORK/journal/boot.state" ] || fail "uninstall left a value stored for boot"
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck after the uninstall: exit $RC, expected 0"
  # The cap at the target but nothing stored for boot: still needed.
  helper apply 176GiB; expect_rc 0
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck with nothing stored for boot: exit $RC, expected 0"
  # Without the vouch the install is refused with wiredcap's reason, and nothing is written.
  setup; write_policy "${band[@]}"
  munki_script postinstall_script
  [ "$RC" = 3 ] || fail "install without the vouch: exit $RC, expected 3"
  expect_err 'more than max_step'
  history_is ''
}

# Munki's checks through an install, both half states, an uninstall and a hang at the target:
# a half state is "needed" both ways and named; after the hang the item says so and stops (no
# refused install on every run); the uninstall check sees either half.
munki_half_states_and_hang() {
  setup
  munki_script uninstallcheck_script; [ "$RC" = 1 ] || fail "uninstallcheck on a fresh Mac: exit $RC, expected 1 (nothing to remove)"
  munki_script postinstall_script; expect_rc 0
  munki_script uninstallcheck_script; [ "$RC" = 0 ] || fail "uninstallcheck after the install: exit $RC, expected 0"
  # Stored for boot, not applied (a reboot before the boot action).
  sim reboot >/dev/null
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck, stored but not applied: exit $RC, expected 0"
  expect_err 'half installed: 180224 MiB is stored for boot but the cap is 0 MiB'
  munki_script uninstallcheck_script; [ "$RC" = 0 ] || fail "uninstallcheck, stored but not applied: exit $RC, expected 0 (the stored half must go)"
  munki_script uninstall_script; expect_rc 0
  munki_script uninstallcheck_script; [ "$RC" = 1 ] || fail "uninstallcheck after the uninstall: exit $RC, expected 1"
  [ ! -e "$WORK/journal/boot.state" ] || fail "the uninstall left a value stored for boot"
  # Raised, not stored.
  helper apply 176GiB; expect_rc 0
  munki_script installcheck_script; [ "$RC" = 0 ] || fail "installcheck, raised but not stored: exit $RC, expected 0"
  expect_err 'half installed: the cap is 180224 MiB but nothing (or another value) is stored for boot'
  munki_script uninstallcheck_script; [ "$RC" = 0 ] || fail "uninstallcheck, raised but not stored: exit $RC, expected 0 (the raised half must go)"
  munki_script uninstall_script; expect_rc 0; expect_knob 0
  # The target hangs this Mac: the hang is recorded at the next boot.
  sim hang-above 170GiB >/dev/null
  helper apply 176GiB
  sim reboot >/dev/null
  local before; before=$(sim history | wc -l)
  for run in 1 2 3; do
    munki_script installcheck_script
    [ "$RC" = 1 ] || fail "installcheck after a hang at the target (run $run): exit $RC, expected 1 (stop, do not retry)"
    expect_err 'a hang at 180224 MiB is recorded, at or below the target 180224 MiB: not installing'
  done
  [ "$(sim history | wc -l)" = "$before" ] || fail "something was written after the hang: $(sim history)"
}

# A wiredcap that is missing, or that answers nothing, never lets the install check say
# "installed": Munki then runs the install, whose failure is reported, instead of skipping the
# item on every Mac where the tool broke.
munki_when_wiredcap_fails() {
  setup
  printf '#!/bin/sh\nexit 1\n' >"$WORK/bin/broken"; chmod 755 "$WORK/bin/broken"
  for tool in "$WORK/no-such-wiredcap" "$WORK/bin/broken"; do
    WIREDCAP_WRAPPER=$tool munki_script installcheck_script
    [ "$RC" = 0 ] || fail "installcheck with $tool: exit $RC, expected 0 (install needed)"
  done
  # convert works but the readings do not (the helper cannot be run): still needed.
  printf '#!/bin/sh\nexec %q --helper %q --policy %q --journal %q --sim-state %q "$@"\n' \
    "$WIREDCAP" "$WORK/no-such-helper" "$POLICY" "$JOURNAL" "$STATE" >"$WORK/bin/no-helper"
  chmod 755 "$WORK/bin/no-helper"
  WIREDCAP_WRAPPER=$WORK/bin/no-helper munki_script installcheck_script
  [ "$RC" = 0 ] || fail "installcheck without readings: exit $RC, expected 0 (install needed)"
  history_is ''
}

# Intel Homebrew's /usr/local: bin/ and share/ a user's and group-writable, /usr/local and
# libexec/ root's. Every script root runs refuses a wiredcap in bin/ (or under any directory a
# user owns or others may write), naming the directory, and runs nothing: the planted program
# would leave a marker. The package's copy in libexec/wiredcap/ runs, and the attributes run it
# as nobody.
root_runs_nothing_a_user_can_replace() {
  setup
  local prefix=$WORK/prefix/usr/local s
  mkdir -p "$prefix/bin" "$prefix/share/wiredcap" "$prefix/libexec/wiredcap"
  chmod 755 "$WORK/prefix" "$WORK/prefix/usr" "$prefix" "$prefix/libexec" "$prefix/libexec/wiredcap"
  printf '#!/bin/sh\ntouch %q\necho wiredcap_knob_bytes 1048576\n' "$WORK/planted-ran" >"$prefix/bin/wiredcap"
  cp "$prefix/bin/wiredcap" "$prefix/share/wiredcap/wiredcap"
  chmod 755 "$prefix/bin/wiredcap" "$prefix/share/wiredcap/wiredcap"
  chown -R 65534:65534 "$prefix/bin" "$prefix/share"
  chmod 775 "$prefix/bin" "$prefix/share"
  # The package's copy: this build's wiredcap, saying which user ran it.
  { printf '#!/bin/sh\nid -u >%q\n' "$WORK/ran-as"; tail -n 1 "$WORK/bin/wiredcap"; } >"$prefix/libexec/wiredcap/wiredcap"
  chmod 755 "$prefix/libexec/wiredcap/wiredcap"
  : >"$WORK/ran-as"; chmod 666 "$WORK/ran-as"
  local scripts=("$SRC"/packaging/fleet/jamf/*.sh)
  for s in installcheck_script uninstallcheck_script postinstall_script uninstall_script; do
    munki_extract "$s"
    scripts+=("$WORK/$s")
  done
  for tool in "$prefix/bin/wiredcap" "$prefix/share/wiredcap/wiredcap"; do
    for s in "${scripts[@]}"; do
      WIREDCAP_WRAPPER=$tool script "$s"
      [ ! -e "$WORK/planted-ran" ] || fail "${s##*/} ran $tool as root"
      [[ $ERR == *"wiredcap: refusing $tool: ${tool%/*}"*"is owned by uid 65534, not root"* ]] ||
        fail "${s##*/} with $tool did not name the directory a user owns: $ERR"
      case ${s##*/} in
        installcheck_script|uninstallcheck_script) [ "$RC" = 0 ] || fail "installcheck refusing: exit $RC, expected 0 (needed: the install reports why)" ;;
        *_script) [ "$RC" = 1 ] || fail "${s##*/} refusing: exit $RC, expected 1" ;;
        *) expect_result '' ;;
      esac
    done
  done
  history_is ''
  # A group-writable libexec/: refused too.
  chmod 775 "$prefix/libexec"
  WIREDCAP_WRAPPER=$prefix/libexec/wiredcap/wiredcap script "$WORK/uninstall_script"
  [ "$RC" = 1 ] && [[ $ERR == *"$prefix/libexec is writable by its group or by others (drwxrwxr-x)"* ]] ||
    fail "a group-writable libexec was not refused: $RC $ERR"
  chmod 755 "$prefix/libexec"
  # The package's copy, root's all the way up: the attribute reads (as nobody), Munki installs.
  WIREDCAP_WRAPPER=$prefix/libexec/wiredcap/wiredcap script "$SRC/packaging/fleet/jamf/wiredcap-cap-mib.sh"
  expect_result 0
  [ "$(cat "$WORK/ran-as")" = 65534 ] || fail "the attribute ran wiredcap as uid $(cat "$WORK/ran-as"), not nobody"
  WIREDCAP_WRAPPER=$prefix/libexec/wiredcap/wiredcap script "$WORK/postinstall_script"
  expect_rc 0; history_is 180224
  [ ! -e "$WORK/planted-ran" ] || fail "the planted wiredcap ran"
}

# Every script root runs holds root-chain.sh's rule verbatim (packaging/fleet/embed-root-chain
# writes the copies), so that there is one text of it.
one_text_of_the_root_chain_rule() {
  python3 - "$SRC" <<'PY'
import plistlib, re, sys
src = sys.argv[1]
chain = open(src + "/packaging/fleet/root-chain.sh").read().rstrip("\n")
texts = {p: open(src + "/" + p).read() for p in ["packaging/fleet/jamf/wiredcap-cap-mib.sh",
         "packaging/fleet/jamf/wiredcap-boot-guard.sh", "packaging/fleet/jamf/wiredcap-daemon.sh",
         "packaging/fleet/jamf/wiredcap-journal.sh",
         "packaging/macos/uninstall.sh"]}
info = plistlib.load(open(src + "/packaging/fleet/munki/wiredcap-gpu-cap.plist", "rb"))
for key in ("installcheck_script", "uninstallcheck_script", "postinstall_script", "uninstall_script"):
    texts["munki " + key] = info[key]
bad = [p for p, t in texts.items()
       if [m for m in re.findall(r"# root-chain:begin\n.*?# root-chain:end", t, re.S)] != [chain]]
if bad:
    sys.exit("FAIL: not root-chain.sh's text (run packaging/fleet/embed-root-chain): " + ", ".join(bad))
PY
  [ $? = 0 ] || exit 1
}

docs_show_the_scripts() {
  python3 - "$SRC/docs/fleet.md" "$SRC"/packaging/fleet/jamf/*.sh "$SRC/packaging/fleet/munki/wiredcap-gpu-cap.plist" \
    "$SRC/packaging/fleet/root-chain.sh" <<'PY'
import re, sys
doc = open(sys.argv[1]).read()
# Each script's copy of root-chain.sh is shown once, as itself; in the scripts, by reference.
shown = "# root-chain:begin\n# (wiredcap_trusted: packaging/fleet/root-chain.sh, shown above)\n# root-chain:end"
def as_shown(f):
    text = open(f).read()
    return text if f.endswith("root-chain.sh") else re.sub(r"# root-chain:begin\n.*?# root-chain:end", lambda m: shown, text, flags=re.S)
missing = [f for f in sys.argv[2:] if as_shown(f) not in doc]
if missing:
    sys.exit("FAIL: docs/fleet.md does not show verbatim: " + ", ".join(missing))
PY
  [ $? = 0 ] || exit 1
}

"$scenario"
echo "PASS: $scenario"
