#!/usr/bin/env bash
# The example metrics LaunchDaemon, packaging/macos/org.wiredcap.metrics.plist, validated as the
# boot plist is (launchd_plist_test.sh; `plutil -lint` only where plutil exists): an XML property
# list whose Label is its file name's stem; ProgramArguments the installed wiredcap (/usr/local,
# the macOS package's prefix) with `metrics --textfile-dir DIR`; every minute (StartInterval 60)
# and at load; not as root (wiredcap needs no privilege for this); no KeepAlive; no other key.
# Its command line runs: the same arguments, with this build's programs and a simulated Mac,
# write DIR/wiredcap.prom. LAYOUT.md and cmake/Install.cmake install it under share/wiredcap.
#   metrics_plist_test.sh WIREDCAP HELPER SIM SOURCE_DIR WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need python3
wiredcap=$1 helper=$2 sim=$3 src=$4 work=$5
rm -rf "$work" && mkdir -p "$work/etc" && chmod 755 "$work" "$work/etc"
label=org.wiredcap.metrics
plist=$src/packaging/macos/$label.plist

if ! python3 - "$plist" "$work/plist.json" >"$work/parse.log" 2>&1 <<'PY'
import json, plistlib, sys
with open(sys.argv[1], "rb") as f:
    data = plistlib.load(f, fmt=plistlib.FMT_XML)
json.dump(data, open(sys.argv[2], "w"))
PY
then
  cat "$work/parse.log" >&2
  fail "$plist does not parse as an XML property list (plistlib)"
  finish
fi
p() { python3 -c 'import json,sys; p=json.load(open(sys.argv[1])); sys.exit(0 if ('"$1"') else 1)' "$work/plist.json"; }
check "Label is $label (the file name's stem)" p "p.get('Label') == '$label'"
check "ProgramArguments: /usr/local/libexec/wiredcap/wiredcap metrics --textfile-dir DIR (the root-owned copy: bin/ may be a user's; an absolute DIR)" \
  p "p.get('ProgramArguments', [])[:3] == ['/usr/local/libexec/wiredcap/wiredcap', 'metrics', '--textfile-dir'] and len(p['ProgramArguments']) == 4 and p['ProgramArguments'][3].startswith('/')"
check "the macOS package's prefix is /usr/local (build-pkg.sh)" grep -qx "prefix=/usr/local" "$src/packaging/macos/build-pkg.sh"
check "every minute: StartInterval the integer 60" p "type(p.get('StartInterval')) is int and p['StartInterval'] == 60"
check "RunAtLoad is the boolean true" p "p.get('RunAtLoad') is True"
check "not as root: UserName is nobody" p "p.get('UserName') == 'nobody'"
check "no keys beyond Label ProgramArguments RunAtLoad StartInterval UserName" \
  p "set(p) <= {'Label', 'ProgramArguments', 'RunAtLoad', 'StartInterval', 'UserName'}"
if command -v plutil >/dev/null; then check "plutil -lint accepts it" plutil -lint "$plist"; fi
check "LAYOUT.md lists share/wiredcap/$label.plist, 0644" grep -qF "| \`share/wiredcap/$label.plist\` | 0644 |" "$src/packaging/LAYOUT.md"
check "cmake/Install.cmake installs it to share/wiredcap" \
  grep -qxE "install\(FILES \\\$\{_wiredcap_pkg\}/macos/$label\.plist DESTINATION share/wiredcap( .*)?" "$src/cmake/Install.cmake"

# Its command line, run: the arguments after the program, this build's wiredcap, a simulated Mac.
mapfile -t args < <(python3 -c 'import json,sys; print("\n".join(json.load(open(sys.argv[1]))["ProgramArguments"][1:]))' "$work/plist.json")
dir=$work/textfile
args[2]=$dir
mkdir -p "$dir"
"$sim" --state "$work/sim-state" init >/dev/null || fail "cannot init the simulator"
if "$wiredcap" --helper "$helper" --policy "$work/etc/wiredcap.conf" --journal "$work/journal/journal.jsonl" \
     --sim-state "$work/sim-state" "${args[@]}" >"$work/out" 2>&1; then
  check "it wrote $dir/wiredcap.prom with wiredcap_up 1" grep -qx 'wiredcap_up 1' "$dir/wiredcap.prom"
else
  fail "wiredcap ${args[*]} failed: $(cat "$work/out")"
fi
finish
