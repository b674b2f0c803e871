#!/usr/bin/env bash
# The alerting rules shipped with wiredcap (packaging/prometheus/wiredcap.rules.yml), with the
# real promtool: `promtool check rules`, then `promtool test rules` with series that fire each
# alert and series that must not (tests/packaging/prometheus/wiredcap_rules_test.yml). Every
# metric a rule reads is one `wiredcap metrics` documents (docs/fleet.md's table), and the file
# is installed (LAYOUT.md) and removed by uninstall.sh.
#   prometheus_rules_test.sh SOURCE_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need promtool
src=$1
rules=$src/packaging/prometheus/wiredcap.rules.yml
check "promtool check rules" promtool check rules "$rules"
check "promtool test rules: each alert fires on its series, and not on the others" \
  promtool test rules "$here/prometheus/wiredcap_rules_test.yml"
for alert in WiredcapHangRecorded WiredcapBootGuardTripped WiredcapBootActionDisabled WiredcapBootDaemonOff \
  WiredcapCapAboveMemoryLessReserve WiredcapNewHang WiredcapJournalNeedsPerson WiredcapHelperNotSetuid; do
  check "the unit tests expect $alert to fire" grep -q "alertname: $alert" "$here/prometheus/wiredcap_rules_test.yml"
done
for metric in $(grep -oE 'wiredcap_[a-z_]+' "$rules" | sort -u); do
  check "$metric is in docs/fleet.md's table of metrics" grep -qE "^\| .*\`$metric(\{[^}]*\})?\`" "$src/docs/fleet.md"
done
check "LAYOUT.md installs it in share/wiredcap/prometheus" \
  grep -qF '| `share/wiredcap/prometheus/wiredcap.rules.yml` | 0644 |' "$src/packaging/LAYOUT.md"
check "uninstall.sh removes it" grep -qF '"$prefix/share/wiredcap/prometheus/wiredcap.rules.yml"' "$src/packaging/macos/uninstall.sh"
finish
