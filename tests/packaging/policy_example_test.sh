#!/usr/bin/env bash
# packaging/wiredcap.conf.example, the template of /etc/wiredcap.conf, is a valid policy:
# - `wiredcap policy check FILE` accepts it, without a warning, on a simulated 192 GB Mac
#   (wiredcap-sim profile m2ultra-192), also with its commented-out `group` line enabled;
# - installed as the policy file (root-owned, 0644) it passes the installed-file check too;
# - on a 64 GB Mac it does not fit (max above RAM minus reserve): the reason the pkg's
#   postinstall installs it only where `wiredcap policy check` accepts it.
#   policy_example_test.sh WIREDCAP WIREDCAP_SIM SOURCE_DIR WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
wiredcap=$1 sim=$2 src=$3 work=$4
example=$src/packaging/wiredcap.conf.example
rm -rf "$work"
mkdir -p "$work/etc" "$work/journal"
chmod 755 "$work" "$work/etc"

# wc PROFILE ARGS...: wiredcap on a fresh simulated Mac of PROFILE; output in $work/out.
wc() {
  local profile=$1
  shift
  "$sim" --state "$work/sim-$profile" init --profile "$profile" >/dev/null || return 99
  "$wiredcap" --sim-state "$work/sim-$profile" --policy "$work/etc/wiredcap.conf" \
    --journal "$work/journal/journal.jsonl" "$@" >"$work/out" 2>&1
}
show() { sed 's/^/    | /' "$work/out"; }

for key in min max reserve max_step; do
  check "the template sets $key" grep -qE "^$key +=" "$example"
done
check "the template documents group (commented out: no group by default)" grep -qE "^#group +=" "$example"

wc m2ultra-192 policy check "$example"
rc=$?
show
check "policy check accepts it on a 192 GB Mac" test "$rc" = 0
check "it says valid" grep -q "valid" "$work/out"
check "no warning (whole GiB, no GB x 1000 slip)" test -z "$(grep -i warning "$work/out")"

sed 's/^#group /group /' "$example" >"$work/with-group.conf"
wc m2ultra-192 policy check "$work/with-group.conf"
rc=$?
show
check "with its group line enabled it is still valid" test "$rc" = 0
check "and names the group admin" grep -q "admin" "$work/out"

install -m 0644 "$example" "$work/etc/wiredcap.conf"
if [ "$(id -u)" = 0 ]; then
  wc m2ultra-192 policy check
  rc=$?
  show
  check "installed as the policy file (root, 0644), it passes the installed-file checks" test "$rc" = 0
else
  echo "note: not root, so the installed-file check (owner root) is not run"
fi

wc m1max-64 policy check "$example"
rc=$?
show
check "on a 64 GB Mac it is refused as not fitting (exit 11)" test "$rc" = 11

finish
