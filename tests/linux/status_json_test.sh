#!/usr/bin/env bash
# `wiredcap status --json` on Linux: every simulated profile's answer is one object that the
# published schema (docs/schema/linux-status-1.json) accepts, each size's figures agree (pages x
# page size = bytes, MiB and GiB cut from them), an unknown reading is null with why_unknown,
# and the hang ceiling is the shared journal's.
# usage: status_json_test.sh WIREDCAP SYSTEM SIM SCHEMA_DIR VALIDATOR
set -euo pipefail
wiredcap=$1 system=$2 sim=$3 schemas=$4 validator=$5
# shellcheck source-path=SCRIPTDIR source=lib.sh
. "$(dirname "$0")/lib.sh"
scratch json
answer() { "$wiredcap" --journal "$(journal)" status --linux-root "$root" --json; }
# Notes that the Python expression EXPR must hold for the answer `a` (a dict) in FILE; all notes
# are checked at the end in one Python (check_all): one interpreter, not one per check, so the
# test stays quick on a loaded machine (each start-up took over a second at load 8).
checks=$base/checks.tsv
: >"$checks"
check() { printf '%s\t%s\n' "$1" "$2" >>"$checks"; }
check_all() {
  python3 - "$checks" <<'PY' || fail "the checks above do not hold"
import json, sys
def agree(v):  # an amount's figures, one from the other
    return v["pages"] * v["page_size"] + v["part_page_bytes"] == v["bytes"] and v["mib"] == v["bytes"] >> 20 \
        and int(v["gib"] * 100) == v["bytes"] * 100 >> 30
failed = 0
for row in open(sys.argv[1]):
    path, expr = row.rstrip("\n").split("\t", 1)
    a = json.load(open(path))
    if not eval(expr):
        print(f"FAIL: {expr} does not hold for {path}", file=sys.stderr)
        failed += 1
print(f"{sum(1 for _ in open(sys.argv[1]))} checks, {failed} failed")
sys.exit(1 if failed else 0)
PY
}
for profile in strix-128 strix-64 phoenix-32 amdttm-128 strix-128-sdboot gttsize-64 fedora-128; do
  root=$base/$profile; "$sim" init --root "$root" --profile "$profile"
  answer >"$base/$profile.json"
  check "$base/$profile.json" 'all(agree(a[k]["value"]) for k in ("pages_limit", "gpu_cap", "mem_total")) and agree(a["band"]["high"])'
  check "$base/$profile.json" 'a["page_size"]["value"]["bytes"] == 4096 and a["simulated"] and a["hang_ceiling"]["value"] is None'
done
check "$base/amdttm-128.json" 'a["ttm_module"]["value"] == "amdttm" and a["ignored_parameters"] == ["ttm.pages_limit=20971520"]'
check "$base/gttsize-64.json" 'a["gttsize_conflict"]["value"] == "amdgpu.gttsize=57344" and not a["gpu_cap_matches_pages_limit"]'
check "$base/strix-128-sdboot.json" 'a["boot_loader"]["name"] == "systemd-boot" and a["boot_loader"]["one_shot"]'

# Unknown is an answer: no GTT file, null with why.
root=$base/strix-128; rm "$root"/sys/class/drm/card*/device/mem_info_gtt_total
answer >"$base/unknown.json"
check "$base/unknown.json" 'a["gpu_cap"]["value"] is None and a["gpu_cap"]["why_unknown"] and not a["gpu_cap_matches_pages_limit"]'

# Every phase of the story validates, on every boot loader: scheduled, booted (and healthy),
# default.
for profile in strix-64 strix-128-sdboot fedora-128; do
  root=$base/phases-$profile; "$sim" init --root "$root" --profile "$profile" >/dev/null
  sys trial 50GiB >/dev/null 2>&1 || sys trial 90GiB >/dev/null
  answer >"$base/$profile-scheduled.json"
  "$sim" reboot --root "$root" >/dev/null && sys after-boot >/dev/null
  answer >"$base/$profile-booted.json"
  "$sim" advance --root "$root" 700 >/dev/null && sys after-boot >/dev/null
  answer >"$base/$profile-healthy.json"
  sys confirm >/dev/null
  answer >"$base/$profile-default.json"
  check "$base/$profile-scheduled.json" 'a["trial"]["phase"] == "scheduled" and agree(a["trial"]["value"])'
  check "$base/$profile-booted.json" 'a["trial"]["phase"] == "booted" and not a["trial"]["healthy"]'
  check "$base/$profile-healthy.json" 'a["trial"]["phase"] == "booted" and a["trial"]["healthy"]'
  check "$base/$profile-default.json" 'a["trial"]["phase"] == "default" and a["boot_loader"]["default_entry"]["value"]'
done

# A trial that hangs: the journal's hang ceiling, in pages.
root=$base/strix-64
"$sim" hang-above --root "$root" 10485760
sys trial 44GiB >/dev/null && "$sim" reboot --root "$root" >/dev/null && "$sim" reboot --root "$root" >/dev/null
sys after-boot >/dev/null 2>&1 || true
answer >"$base/hung.json"
check "$base/hung.json" 'a["hang_ceiling"]["value"]["pages"] == 11534336 and agree(a["hang_ceiling"]["value"]) and a["trial"]["phase"] == "none"'

# A trial state that cannot be read: unknown with why, in the JSON and in the text alike.
echo garbage >"$root/var/lib/wiredcap/ttm-state"
answer >"$base/state-unknown.json"
check "$base/state-unknown.json" 'a["trial"]["phase"] is None and "not key=value" in a["trial"]["why_unknown"]'
"$wiredcap" --journal "$(journal)" status --linux-root "$root" | grep -A1 "^  trial" | grep -q "not key=value" ||
  fail "status does not say why the trial state is unreadable: $(status)"
# Every answer against the published schema, then every check noted above.
python3 "$validator" "$schemas" "$base"/*.json >/dev/null || fail "an answer the schema rejects"
check_all
echo "status --json on Linux: ok"
