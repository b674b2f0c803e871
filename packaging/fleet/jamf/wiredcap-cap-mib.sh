#!/bin/sh
# Jamf Pro extension attribute "GPU wired cap (MiB)", data type Integer: iogpu.wired_limit_mb
# as wiredcap reads it from the kernel (0: the OS default); empty when it cannot be read.
wiredcap=${WIREDCAP:-/usr/local/bin/wiredcap}
[ -x "$wiredcap" ] || { echo "<result></result>"; exit 0; }
"$wiredcap" metrics 2>/dev/null | awk '
  $1 == "wiredcap_knob_bytes" { knob = sprintf("%d", $2 / 1048576) }
  END { print "<result>" knob "</result>" }'
