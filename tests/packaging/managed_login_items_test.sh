#!/usr/bin/env bash
# The managed login items profile (packaging/fleet/mdm), read as a property list the way an MDM
# and macOS read it: a Configuration profile, System scope, one com.apple.servicemanagement
# payload whose only rule is the boot LaunchDaemon's label, as in its plist; UUIDs well-formed
# and distinct; installed by cmake (LAYOUT.md lists it) and removed by uninstall.sh.
#   managed_login_items_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
src=$1
profile=$src/packaging/fleet/mdm/org.wiredcap.boot.managed-login-items.mobileconfig
check "the profile is a property list with one managed login items rule: Label org.wiredcap.boot" \
  python3 - "$profile" "$src/packaging/macos/org.wiredcap.boot.plist" <<'PY'
import plistlib, sys, uuid
p = plistlib.load(open(sys.argv[1], "rb"))
label = plistlib.load(open(sys.argv[2], "rb"))["Label"]
assert p["PayloadType"] == "Configuration" and p["PayloadScope"] == "System", p
assert p["PayloadVersion"] == 1 and p["PayloadIdentifier"] and p["PayloadDisplayName"]
[payload] = p["PayloadContent"]
assert payload["PayloadType"] == "com.apple.servicemanagement", payload
assert payload["PayloadVersion"] == 1 and payload["PayloadIdentifier"].startswith(p["PayloadIdentifier"] + ".")
assert payload["Rules"] == [{"Comment": payload["Rules"][0]["Comment"], "RuleType": "Label", "RuleValue": label}], payload["Rules"]
uuids = [p["PayloadUUID"], payload["PayloadUUID"]]
assert len({str(uuid.UUID(u)) for u in uuids}) == 2 and all(u == u.upper() for u in uuids), uuids
PY
check "LAYOUT.md installs it in share/wiredcap" \
  grep -qF '| `share/wiredcap/org.wiredcap.boot.managed-login-items.mobileconfig` | 0644 |' "$src/packaging/LAYOUT.md"
check "uninstall.sh removes it" \
  grep -qF '"$prefix/share/wiredcap/org.wiredcap.boot.managed-login-items.mobileconfig"' "$src/packaging/macos/uninstall.sh"
check "docs/fleet.md says where it is and what it does" \
  grep -qF '/usr/local/share/wiredcap/org.wiredcap.boot.managed-login-items.mobileconfig' "$src/docs/fleet.md"
if command -v plutil >/dev/null; then check "plutil -lint accepts it" plutil -lint "$profile"; fi
finish
