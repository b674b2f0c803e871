#!/bin/sh
# Jamf Pro extension attribute "wiredcap boot guard", data type String: none, armed, trying,
# healthy, tripped or failed (a smart group on tripped|failed finds every Mac whose boot guard
# stopped a stored value); empty when it cannot be read.
wiredcap=${WIREDCAP:-/usr/local/bin/wiredcap}
[ -x "$wiredcap" ] || { echo "<result></result>"; exit 0; }
"$wiredcap" metrics 2>/dev/null | awk '
  $1 ~ /^wiredcap_boot_guard_state\{/ && $2 == 1 { split($1, part, "\""); guard = part[2] }
  END { print "<result>" guard "</result>" }'
