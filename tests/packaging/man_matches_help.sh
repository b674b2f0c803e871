#!/usr/bin/env bash
# The man pages match the programs' --help:
# - every long option, subcommand and positional of `wiredcap --help` and of each subcommand's
#   --help (recursively: policy -> check) appears in wiredcap(1); every subcommand has its own
#   entry in the COMMANDS section; every option the page names exists in some --help;
# - the exit codes are listed once, at the end of `wiredcap --help`, and each is in EXIT STATUS;
# - every option, command, REASON and OUTCOME of `wiredcap-helper --help` appears in
#   wiredcap-helper(8), each command with its own entry;
# - every --help fits 80 columns (a pipe, no COLUMNS);
# - both pages format without a warning: groff -ww, man -l, and mandoc -T lint (macOS's man is
#   mandoc).
#   man_matches_help.sh WIREDCAP WIREDCAP_HELPER SOURCE_DIR WORK_DIR
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
need groff man mandoc
wiredcap=$1 helper=$2 src=$3 work=$4
man1=$src/packaging/man/wiredcap.1
man8=$src/packaging/man/wiredcap-helper.8
rm -rf "$work"
mkdir -p "$work"

# Plain ASCII, one very long line per paragraph, no hyphenation: words are never split.
render() { groff -man -Tascii -rLL=2000n -P-cbou "$1" 2>/dev/null; }
render "$man1" >"$work/wiredcap.1.txt"
render "$man8" >"$work/wiredcap-helper.8.txt"

# --- formatting -----------------------------------------------------------------------------
for page in "$man1" "$man8"; do
  name=$(basename "$page")
  check "$name: groff -man -ww prints no warning" test -z "$(groff -man -ww -Tutf8 -z "$page" 2>&1)"
  check "$name: man -l formats it without a warning" \
    test -z "$(MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)"
  check "$name: mandoc -T lint finds no warning or error" mandoc -T lint -W warning "$page"
done

# --- helpers ----------------------------------------------------------------------------------
# Long options in the option column of a CLI11 help text (indent 2; a wrapped description
# continues at the description column, and may start with an option it names).
cli_options() { grep -oE '^  (-[A-Za-z], ?)?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*'; }
# Names listed in one section ("Subcommands:", "Positionals:") of a CLI11 help text.
cli_section() { awk -v s="$1:" '$0 == s { on = 1; next } on && /^$/ { on = 0 } on && /^  [A-Za-z]/ { print $1 }'; }
# The text's lines that are entries of one section of a rendered page ("COMMANDS").
page_section() { awk -v s="$1" '$0 == s { on = 1; next } on && /^[A-Z]/ { on = 0 } on'; }
# shellcheck disable=SC2317  # called through check
has_word() { grep -qE -- "(^|[^A-Za-z0-9_-])$2([^A-Za-z0-9_-]|$)" "$1"; }

# --- wiredcap(1) --------------------------------------------------------------------------------
page=$work/wiredcap.1.txt
page_section COMMANDS <"$page" >"$work/wiredcap.commands.txt"
all_help=$work/all-help.txt
: >"$all_help"
# Walks `wiredcap [PATH...] --help` and every subcommand below it.
walk() {
  local help sub
  help=$(COLUMNS= "$wiredcap" "$@" --help) || { fail "wiredcap $* --help failed"; return; }
  printf '%s\n' "$help" >>"$all_help"
  check "wiredcap $* --help fits 80 columns" test -z "$(printf '%s\n' "$help" | awk 'length > 80')"
  while read -r opt; do
    check "wiredcap(1) names option $opt (from wiredcap $* --help)" has_word "$page" "$opt"
  done < <(printf '%s\n' "$help" | cli_options | sort -u)
  while read -r pos; do
    check "wiredcap(1) names argument $pos (from wiredcap $* --help)" has_word "$page" "$pos"
  done < <(printf '%s\n' "$help" | cli_section Positionals)
  while read -r sub; do
    local entry="${*:+$* }$sub"
    check "wiredcap(1) COMMANDS has an entry for '$entry'" grep -qE "^ +$entry( |$)" "$work/wiredcap.commands.txt"
    walk "$@" "$sub"
  done < <(printf '%s\n' "$help" | cli_section Subcommands)
}
walk
check "the help texts were read" test -s "$all_help"
# The SYNOPSIS is current: every command's own option is in it. Left to OPTIONS: the global
# ones (and -h/--version); --linux-root is in the Linux paragraph; ramp --for's model options are
# the SYNOPSIS's "ramp options" (fit's own line lists them).
page_section SYNOPSIS <"$page" >"$work/wiredcap.synopsis.txt"
global=$(COLUMNS= "$wiredcap" --help | cli_options | sort -u)
while read -r opt; do
  case " $(echo $global) --help --linux-root " in *" $opt "*) continue ;; esac
  check "wiredcap(1) SYNOPSIS names option $opt" has_word "$work/wiredcap.synopsis.txt" "$opt"
done < <(cli_options <"$all_help" | sort -u)
# And the other way round: the page names no option the program does not have.
while read -r opt; do
  check "option $opt in wiredcap(1) exists in some --help" has_word "$all_help" "$opt"
done < <(grep -oE -- '--[a-z][a-z-]*' "$page" | sort -u)

# The exit codes: in the top-level help only (once), and every one of them in EXIT STATUS.
codes=$("$wiredcap" --help | awk '/^Exit codes/ { on = 1; next } on' | grep -oE '(^| )[0-9]+ [a-z]' | grep -oE '[0-9]+')
check "wiredcap --help lists the exit codes" test -n "$codes"
page_section "EXIT STATUS" <"$page" >"$work/wiredcap.exit.txt"
for c in $codes; do
  check "wiredcap(1) EXIT STATUS explains exit code $c" grep -qE "^ +$c +[a-z]" "$work/wiredcap.exit.txt"
done
check "the exit codes appear in exactly one help text (the top level)" test "$(grep -c '^Exit codes' "$all_help")" = 1

# --- wiredcap-helper(8) -------------------------------------------------------------------------
page=$work/wiredcap-helper.8.txt
page_section COMMANDS <"$page" >"$work/helper.commands.txt"
help=$("$helper" --help) || fail "wiredcap-helper --help failed"
check "wiredcap-helper --help fits 80 columns" test -z "$(printf '%s\n' "$help" | awk 'length > 80')"
while read -r opt; do
  check "wiredcap-helper(8) names option $opt" has_word "$page" "$opt"
done < <(printf '%s\n' "$help" | grep -oE -- '--[a-z][a-z-]*' | sort -u)
commands=$(printf '%s\n' "$help" | awk '/^Commands:/ { on = 1; next } on && /^$/ { exit } on && /^  [a-z]/ { print $1 }')
check "wiredcap-helper --help lists commands" test -n "$commands"
for c in $commands; do
  check "wiredcap-helper(8) COMMANDS has an entry for '$c'" grep -qE "^ +$c( |$)" "$work/helper.commands.txt"
done
for list in REASON OUTCOME; do
  words=$(printf '%s\n' "$help" | sed -n "s/^ *$list: *//p")
  check "wiredcap-helper --help lists the ${list}s" test -n "$words"
  for w in $words; do
    check "wiredcap-helper(8) names $list $w" has_word "$page" "$w"
  done
done
while read -r opt; do
  check "option $opt in wiredcap-helper(8) exists in wiredcap-helper --help" \
    grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" <(printf '%s\n' "$help")
done < <(grep -v 'log show' "$page" | grep -oE -- '--[a-z][a-z-]*' | sort -u)  # log(1)'s own options aside

finish
