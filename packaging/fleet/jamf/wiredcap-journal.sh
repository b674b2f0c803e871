#!/bin/sh
# Jamf Pro extension attribute "wiredcap needs attention", data type String: "none", or what
# `wiredcap status` lists first as needing a person (its needs_attention, in its order):
# "hang" (a hang binds), "suspect" (a raised write was in force when the Mac went down, and no
# person has said whether it hung), "open_step" (a ramp step applied and never confirmed or
# reverted), "boot_guard", joined by ", ". A smart group on anything but "none" finds every Mac
# where someone must run `wiredcap recover`. Empty when it cannot be read, the journal included:
# an unread journal is never "none".
# Jamf runs it as root: it runs the package's root-owned copy of wiredcap only after checking
# that nobody else may replace it, and then as nobody (reading needs no privilege; the setuid
# helper reads root's files). WIREDCAP_EA_USER is for the tests' development build only.
PATH=/usr/bin:/bin:/usr/sbin:/sbin
wiredcap=${WIREDCAP:-/usr/local/libexec/wiredcap/wiredcap}
reader=${WIREDCAP_EA_USER:-nobody}
# root-chain:begin
# wiredcap_trusted PATH: succeeds only if PATH is no symbolic link, and it and every directory
# above it (as written, and with its links resolved) are owned by root and writable by nobody
# else: whoever may write any of them could replace what root is about to run or read.
# Otherwise it names the path that failed, and why. (A link may stand for a directory if root
# owns it: only root can change a link in a directory only root may write.)
wiredcap_trusted() (
  _wc_target=$1
  refuse() { printf 'wiredcap: refusing %s: %s (whoever may change it may replace what runs as root)\n' "$_wc_target" "$*" >&2; exit 1; }
  chain() {
    _wc_path=$1
    while :; do
      _wc_line=$(LC_ALL=C ls -ldn "$_wc_path" 2>/dev/null) || refuse "cannot read $_wc_path"
      set -f
      # shellcheck disable=SC2086  # the fields of ls's line, split on purpose
      set -- $_wc_line
      set +f
      [ "$3" = 0 ] || refuse "$_wc_path is owned by uid $3, not root"
      case $1 in
        l*) ;;
        ?????w*|????????w*) refuse "$_wc_path is writable by its group or by others ($1)" ;;
      esac
      [ "$_wc_path" = / ] && return 0
      _wc_path=$(dirname "$_wc_path")
    done
  }
  case $_wc_target in /*) ;; *) refuse "not an absolute path" ;; esac
  [ -L "$_wc_target" ] && refuse "$_wc_target is a symbolic link"
  chain "$_wc_target"
  _wc_dir=$(cd -P "$(dirname "$_wc_target")" 2>/dev/null && pwd -P) || refuse "cannot resolve $(dirname "$_wc_target")"
  chain "$_wc_dir"
)
# root-chain:end
readings() {
  [ -x "$wiredcap" ] || return 1
  if [ "$(id -u)" = 0 ]; then
    wiredcap_trusted "$wiredcap" || return 1
    sudo -n -u "$reader" "$wiredcap" status --json 2>/dev/null
  else
    "$wiredcap" status --json 2>/dev/null
  fi
}
# status --json read without a JSON parser (none ships with macOS): with every escaped
# character blanked no string holds a quote, so splitting on quotes alternates between the JSON
# around strings (odd fields, whose brackets give the depth) and a string's text (even fields).
readings | awk '
  { doc = doc $0 "\n" }
  END {
    gsub(/\\./, "_", doc)
    n = split(doc, f, "\"")
    depth = 0
    for (i = 1; i <= n; i++) {
      if (i % 2) {
        s = f[i]; depth += gsub(/\[/, "", s) + gsub(/\{/, "", s) - gsub(/\]/, "", s) - gsub(/\}/, "", s)
        continue
      }
      if (f[i + 1] !~ /^[ \t\n]*:/) continue  # a value, not a member name
      if (depth == 1) member = f[i]
      if (depth == 1 && member == "needs_attention") listed = 1
      if (depth == 1 && member == "journal") journal = 1
      if (depth == 2 && member == "journal" && f[i] == "why_unknown") unread = 1
      if (depth == 3 && member == "needs_attention" && f[i] == "kind" && f[i + 2] ~ /^[a-z_]+$/ && !(f[i + 2] in seen)) {
        seen[f[i + 2]] = 1
        kinds = kinds (kinds == "" ? "" : ", ") f[i + 2]
      }
    }
    if (listed && journal && !unread) result = (kinds == "" ? "none" : kinds)
    print "<result>" result "</result>"
  }'
