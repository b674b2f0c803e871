#!/usr/bin/env bash
# The boot LaunchDaemon, packaging/macos/org.wiredcap.boot.plist, validated without launchd
# (launchd and plutil exist only on macOS; `plutil -lint` runs when plutil is found):
# - it parses as an XML property list (Python's plistlib) and its top level is a dict;
# - Label is org.wiredcap.boot, the file name's stem;
# - ProgramArguments is a list of strings: root's wiredcap-system's installed path in the macOS
#   package (/usr/local + LAYOUT.md's row for it, mode 0755, never setuid) followed by exactly
#   "boot-action"; the setuid helper (LAYOUT.md's one row of mode 4755) has no boot action;
# - RunAtLoad is the boolean true, StartInterval an integer from 30 to 600, UserName root, no
#   KeepAlive, and no key outside allowed_keys below;
# - the paths agree: LAYOUT.md installs the plist under share/wiredcap (cmake/Install.cmake
#   does), its "What the macOS package adds" table lists /Library/LaunchDaemons/LABEL.plist,
#   scripts/postinstall copies the plist from its scripts directory there and bootstraps it (reading
#   print-disabled, nothing else), uninstall.sh boots out the same label, clears its own
#   override (launchctl enable) and removes the same file;
# - the disable switch (the policy file's directory + /wiredcap.boot-disabled, with the macOS
#   policy path from helper/CMakeLists.txt) is named in every file of switch_mentioned_in,
#   and in the plist inside its comment.
#   launchd_plist_test.sh SOURCE_DIR WORK_DIR
# shellcheck disable=SC2317  # p and f are called through check
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need python3
src=$1 work=$2
rm -rf "$work"
mkdir -p "$work"

label=org.wiredcap.boot
plist=$src/packaging/macos/$label.plist
layout=$src/packaging/LAYOUT.md
postinstall=$src/packaging/macos/scripts/postinstall
uninstall=$src/packaging/macos/uninstall.sh
prefix=/usr/local  # the macOS package's prefix
daemon_path=/Library/LaunchDaemons/$label.plist

# Keys the plist may have. Anything else fails the test (add a key here deliberately).
allowed_keys=(Label ProgramArguments RunAtLoad StartInterval UserName)
# Files that must name the disable switch (its path, verbatim; in a man page's source a hyphen
# is written \-, which is read as -). Extend the list as the documentation grows.
switch_mentioned_in=(
  packaging/macos/org.wiredcap.boot.plist
  packaging/LAYOUT.md
  packaging/man/wiredcap-helper.8
  packaging/man/wiredcap.1
  docs/install.md
  docs/recovery.md
)

check "the plist exists" test -f "$plist"
check "the plist's file name is LABEL.plist" test "${plist##*/}" = "$label.plist"

# --- the property list ---------------------------------------------------------------------
# Parsed once to JSON (types kept: true stays a boolean, 60 an integer, "true" a string).
if ! python3 - "$plist" "$work/plist.json" >"$work/parse.log" 2>&1 <<'EOF'
import json, plistlib, sys
with open(sys.argv[1], "rb") as f:
    data = plistlib.load(f, fmt=plistlib.FMT_XML)
with open(sys.argv[2], "w") as f:
    json.dump({"type": type(data).__name__, "plist": data}, f, default=repr)
EOF
then
  cat "$work/parse.log" >&2
  fail "$plist does not parse as an XML property list (plistlib)"
  finish
fi
echo "ok: parses as an XML property list (plistlib):"
sed 's/^/    /' "$work/plist.json"
echo
# p EXPR: a Python expression over the plist (as `p`, a dict); exit status = truth.
p() {
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); p=d["plist"]; sys.exit(0 if (d["type"] == "dict" and ('"$1"')) else 1)' \
    "$work/plist.json"
}
check "XML plist version 1.0 with Apple's DOCTYPE" \
  grep -qE '^<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www\.apple\.com/DTDs/PropertyList-1\.0\.dtd">$' "$plist"
check "  ... and <plist version=\"1.0\">" grep -qxF '<plist version="1.0">' "$plist"
check "the top level is a dict" p 'True'
check "Label is $label (the file name's stem)" p "p.get('Label') == '$label'"

# The helper's row in LAYOUT.md's table: the one file of mode 4755.
helper_rows=$(sed -n '/<!-- layout:begin -->/,/<!-- layout:end -->/p' "$layout" |
  awk -F'|' '$2 ~ /`/ { p = $2; m = $3; gsub(/[` ]/, "", p); gsub(/ /, "", m); if (m == "4755") print p }')
check "LAYOUT.md has exactly one row of mode 4755 (got: $(tr '\n' ' ' <<<"$helper_rows"))" \
  test "$(grep -c . <<<"$helper_rows")" = 1 -a "$helper_rows" = libexec/wiredcap/wiredcap-helper
system_row=$(sed -n '/<!-- layout:begin -->/,/<!-- layout:end -->/p' "$layout" |
  awk -F'|' '$2 ~ /wiredcap-system`/ { p = $2; m = $3; gsub(/[` ]/, "", p); gsub(/ /, "", m); print p " " m }')
check "LAYOUT.md lists libexec/wiredcap/wiredcap-system, mode 0755 (got: '$system_row')" \
  test "$system_row" = "libexec/wiredcap/wiredcap-system 0755"
system=$prefix/${system_row% *}
check "the macOS package's prefix is $prefix (build-pkg.sh)" grep -qx "prefix=$prefix" "$src/packaging/macos/build-pkg.sh"
check "ProgramArguments is a non-empty list of strings" \
  p "isinstance(p.get('ProgramArguments'), list) and p['ProgramArguments'] and all(isinstance(a, str) for a in p['ProgramArguments'])"
check "ProgramArguments[0] is the installed wiredcap-system, $system" p "p.get('ProgramArguments', [None])[0] == '$system'"
check "ProgramArguments[1:] is exactly [\"boot-action\"]" p "p.get('ProgramArguments', [])[1:] == ['boot-action']"
check "RunAtLoad is the boolean true (not a string)" p "p.get('RunAtLoad') is True"
check "StartInterval is an integer (not a string, not a boolean) from 30 to 600" \
  p "type(p.get('StartInterval')) is int and 30 <= p['StartInterval'] <= 600"
check "no KeepAlive (each run exits when done)" p "'KeepAlive' not in p"
check "UserName is root (the boot action needs real uid 0)" p "p.get('UserName') == 'root'"
allowed_py=$(printf "'%s'," "${allowed_keys[@]}")
check "no keys beyond the allow-list (${allowed_keys[*]})" p "set(p) <= {$allowed_py}"

if command -v plutil >/dev/null; then
  check "plutil -lint accepts it" plutil -lint "$plist"
else
  echo "note: plutil not found (it exists only on macOS): plutil -lint not run"
fi

# --- the paths agree --------------------------------------------------------------------------
share_row=share/wiredcap/$label.plist
check "LAYOUT.md's install table lists $share_row, 0644" \
  test -n "$(sed -n '/<!-- layout:begin -->/,/<!-- layout:end -->/p' "$layout" | grep -F "| \`$share_row\` | 0644 |")"
check "cmake/Install.cmake installs packaging/macos/$label.plist to share/wiredcap" \
  grep -qxE "install\(FILES \\\$\{_wiredcap_pkg\}/macos/$label\.plist DESTINATION share/wiredcap( .*)?" "$src/cmake/Install.cmake"
check "LAYOUT.md's macOS package table lists $daemon_path, root:wheel 0644" \
  test -n "$(sed -n '/^## What the macOS package adds/,/^## /p' "$layout" | grep -F "| \`$daemon_path\` | root:wheel 0644 |")"

# shell_facts SCRIPT PRESET...: as JSON, the script's top-level NAME=VALUE assignments (without
# command substitution) expanded with the PRESET NAME=VALUE pairs ("vars"), its launchctl
# commands in command position (code, not comments or messages) expanded the same way
# ("launchctl": [[subcommand, args...], ...]), and every double-quoted word, expanded ("words").
shell_facts() {
  python3 - "$@" <<'EOF'
import json, re, sys
script, presets = sys.argv[1], sys.argv[2:]
env = dict(kv.split("=", 1) for kv in presets)
def expand(s):
    s = s.replace('"', "").replace("'", "")
    return re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), m.group(0)), s)
code = [re.sub(r"(^|\s)#.*", "", line) for line in open(script)]
for line in code:
    m = re.match(r"^([A-Za-z_][A-Za-z0-9_]*)=(\S+)\s*$", line)
    if m and m.group(1) not in env and "$(" not in m.group(2):
        env[m.group(1)] = expand(m.group(2))
launchctl = []
for line in code:
    line = re.sub(r"\d*[<>]&?[^\s;|&]*", "", line)  # redirections
    # launchctl in command position (not inside a message): a line's start, after
    # if/then/!/;/&&/||, or opening a command substitution
    for m in re.finditer(r"(?:^|[;&|!]|\$\(|\bif|\bthen)\s*launchctl\s+(\S+)((?:[ \t]+[^\s;|&)]+)*)", line):
        launchctl.append([m.group(1)] + [expand(a) for a in m.group(2).split()])
words = [expand(w) for w in re.findall(r'"[^"]*"', "".join(code))]
json.dump({"vars": env, "launchctl": launchctl, "words": words}, sys.stdout)
EOF
}
# f FILE EXPR: a Python expression over shell_facts output (as `f`); exit status = truth.
f() { python3 -c 'import json,sys; f=json.load(open(sys.argv[1])); sys.exit(0 if ('"$2"') else 1)' "$1"; }

shell_facts "$postinstall" target= >"$work/postinstall.json"
# Not the payload's share/ copy (a user may own share/): the one in the package's scripts directory.
check "postinstall copies the plist from the package's scripts directory (\$scripts_dir/$label.plist)" \
  f "$work/postinstall.json" "f['vars'].get('daemon_template') == '\$scripts_dir/$label.plist'"
check "postinstall copies it to $daemon_path" f "$work/postinstall.json" "f['vars'].get('daemon_plist') == '$daemon_path'"
check "postinstall boots out system/$label" f "$work/postinstall.json" "['bootout', 'system/$label'] in f['launchctl']"
check "postinstall bootstraps $daemon_path into the system domain" \
  f "$work/postinstall.json" "['bootstrap', 'system', '$daemon_path'] in f['launchctl']"
check "postinstall runs no other launchctl command" \
  f "$work/postinstall.json" "all(c in (['bootout', 'system/$label'], ['bootstrap', 'system', '$daemon_path'], ['print-disabled', 'system']) for c in f['launchctl'])"
grep -n 'launchctl' "$postinstall" | sed 's/^/    postinstall:/'

shell_facts "$uninstall" base= root=/ >"$work/uninstall.json"
check "uninstall.sh boots out system/$label, reads print-disabled and enables (clears) its own override only" \
  f "$work/uninstall.json" "f['launchctl'] == [['bootout', 'system/$label'], ['print-disabled', 'system'], ['enable', 'system/$label']]"
check "uninstall.sh removes $daemon_path" \
  f "$work/uninstall.json" "f['vars'].get('daemon_plist') == '$daemon_path' and '$daemon_path' in f['words']"
check "uninstall.sh removes $prefix/$share_row" f "$work/uninstall.json" "'$prefix/$share_row' in f['words']"
grep -n 'launchctl\|daemon_plist' "$uninstall" | sed 's/^/    uninstall.sh:/'

# --- the disable switch ------------------------------------------------------------------------
# The helper derives it from the policy path: dirname(policy) + /wiredcap.boot-disabled.
policy_path=$(sed -n 's/^set(WIREDCAP_POLICY_PATH "\([^"]*\)".*/\1/p' "$src/helper/CMakeLists.txt")
check "helper/CMakeLists.txt sets the policy path (got: '$policy_path')" test -n "$policy_path"
switch=${policy_path%/*}/wiredcap.boot-disabled
echo "note: the disable switch is $switch"
check "the switch is /etc/wiredcap.boot-disabled" test "$switch" = /etc/wiredcap.boot-disabled
for doc in "${switch_mentioned_in[@]}"; do
  check "$doc names the switch $switch" grep -qF "$switch" <(sed 's/\\-/-/g' "$src/$doc")
done
check "the plist's comment names the switch and how to set it (sudo touch $switch)" \
  python3 - "$plist" "$switch" <<'EOF'
import re, sys
text, switch = open(sys.argv[1]).read(), sys.argv[2]
comments = "".join(re.findall(r"<!--(.*?)-->", text, re.S))
sys.exit(0 if switch in comments and f"sudo touch {switch}" in comments else 1)
EOF
check "uninstall.sh --purge removes the switch" f "$work/uninstall.json" "f['vars'].get('boot_switch') == '$switch'"
# The boot state the plist's comment names: the journal's directory + /boot.state (macOS).
journal_path=$(sed -n '/^if(APPLE)/,/^endif/s/^ *set(WIREDCAP_JOURNAL_PATH "\([^"]*\)".*/\1/p' "$src/helper/CMakeLists.txt" | head -n 1)
check "helper/CMakeLists.txt sets the macOS journal path (got: '$journal_path')" test -n "$journal_path"
check "the plist's comment names the boot state ${journal_path%/*}/boot.state" grep -qF "${journal_path%/*}/boot.state" "$plist"
check "the plist's comment names the journal $journal_path" grep -qF "$journal_path" "$plist"

finish
