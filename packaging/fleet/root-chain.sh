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
