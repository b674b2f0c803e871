#!/usr/bin/env bash
# The shell completions load, know every option and subcommand that `wiredcap --help` and each
# subcommand's --help list, and offer the right candidates for partial command lines. (They are
# generated from the program's own definitions: packaging.cli_reference_current checks they are
# current, this how they behave in the real shells.)
#   completions_test.sh bash|zsh|fish WIREDCAP SOURCE_DIR WORK_DIR
# bash: the file is sourced in `bash --norc` and _wiredcap runs on COMP_WORDS/COMP_CWORD;
# zsh:  `zsh -n`, autoload through compinit in `zsh -f`, then real Tab completion in a
#       pseudo-terminal (zsh_complete.zsh);
# fish: `fish -n`, then `complete -C` after sourcing the file.
# shellcheck disable=SC2016  # the single-quoted scripts below are for the other shells to expand
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/packaging/lib.sh
. "$here/lib.sh"
shell=$1 wiredcap=$2 src=$3 work=$4
need "$shell"
dir=$src/packaging/completions
case $shell in
  bash) file=$dir/wiredcap.bash ;;
  zsh) file=$dir/_wiredcap ;;
  fish) file=$dir/wiredcap.fish ;;
  *) echo "unknown shell $shell" >&2; exit 2 ;;
esac
rm -rf "$work"
mkdir -p "$work/files"
: >"$work/files/policy-a.conf"
: >"$work/files/policy-b.conf"

# --- what --help lists ----------------------------------------------------------------------
cli_options() { grep -oE '^  (-[A-Za-z], ?)?--[a-z][a-z-]*' | grep -oE -- '--[a-z][a-z-]*'; }
cli_section() { awk -v s="$1:" '$0 == s { on = 1; next } on && /^$/ { on = 0 } on && /^  [A-Za-z]/ { print $1 }'; }
all_options=() all_commands=()
walk() {
  local help opt sub
  help=$("$wiredcap" "$@" --help) || { fail "wiredcap $* --help failed"; return; }
  while read -r opt; do all_options+=("$opt"); done < <(printf '%s\n' "$help" | cli_options)
  while read -r sub; do
    all_commands+=("$sub")
    walk "$@" "$sub"
  done < <(printf '%s\n' "$help" | cli_section Subcommands)
}
walk
top_commands=$("$wiredcap" --help | cli_section Subcommands | sort | tr '\n' ' ')
global_options=$("$wiredcap" --help | cli_options | sort -u | tr '\n' ' ')
ramp_options=$("$wiredcap" ramp --help | cli_options | sort -u | tr '\n' ' ')
persist_options=$("$wiredcap" persist --help | cli_options | sort -u | tr '\n' ' ')
check "--help lists subcommands" test -n "$top_commands"
check "ramp --help lists options" test -n "$ramp_options"
check "persist --help lists --off, --unconfirmed and --ignore-hang-ceiling" \
  test -n "$(grep -- --off <<<"$persist_options" | grep -- --unconfirmed | grep -- --ignore-hang-ceiling)"

# --- every option and subcommand is in the file ---------------------------------------------
for opt in $(printf '%s\n' "${all_options[@]}" | sort -u); do
  if [ "$shell" = fish ]; then
    check "$(basename "$file") completes $opt" grep -qE -- "-l ${opt#--}( |$)" "$file"
  else
    check "$(basename "$file") completes $opt" grep -qE -- "(^|[^a-z-])$opt([^a-z-]|$)" "$file"
  fi
done
for c in $(printf '%s\n' "${all_commands[@]}" | sort -u); do
  check "$(basename "$file") completes the command $c" grep -qE "(^|[^a-z])$c([^a-z]|$)" "$file"
done

# --- loading ---------------------------------------------------------------------------------
case $shell in
  bash)
    check "bash -n" bash -n "$file"
    if command -v shellcheck >/dev/null; then check "shellcheck" shellcheck --shell=bash "$file"; fi
    check "sourcing it registers _wiredcap for wiredcap" \
      bash --norc --noprofile -c 'source "$1" && complete -p wiredcap | grep -q -- "-F _wiredcap"' _ "$file"
    ;;
  zsh)
    check "zsh -n" zsh -n "$file"
    check "compinit finds it and autoload defines _wiredcap" \
      zsh -f -c 'fpath=("$1" $fpath); autoload -Uz compinit && compinit -u -d "$2/zcompdump" &&
                 [[ ${_comps[wiredcap]} == _wiredcap ]] && autoload +X _wiredcap && whence -w _wiredcap | grep -q function' \
      _ "$dir" "$work"
    ;;
  fish)
    check "fish -n" fish -n "$file"
    ;;
esac

# --- candidates for partial command lines ------------------------------------------------------
# Prints the candidates for LINE (the cursor at its end), sorted, one line, space-separated.
candidates() {
  local line=$1
  case $shell in
    bash)
      # Words as bash would split them; a trailing space starts an empty word.
      bash --norc --noprofile -c '
        source "$1"; shift
        read -ra COMP_WORDS <<<"$1"
        [[ $1 == *" " ]] && COMP_WORDS+=("")
        COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE=$1; COMP_POINT=${#1}
        _wiredcap
        printf "%s\n" "${COMPREPLY[@]}"' _ "$file" "$line"
      ;;
    zsh)
      timeout 30 zsh -f "$here/zsh_complete.zsh" "$dir" "$work/zsh" "$line"
      ;;
    fish)
      HOME=$work/fish-home XDG_CONFIG_HOME=$work/fish-home fish --no-config \
        -c 'source $argv[1]; complete -C $argv[2]' "$file" "$line" | cut -f1
      ;;
  esac | sed '/^$/d' | sort -u | tr '\n' ' '
}
# expect LINE EXACT-SET
expect() {
  local got
  got=$(candidates "$1")
  local want
  want=$(tr ' ' '\n' <<<"$2" | sed '/^$/d' | sort -u | tr '\n' ' ')
  if [ "$got" = "$want" ]; then
    echo "ok: '$1' -> $got"
    checks=$((checks + 1))
  else
    checks=$((checks + 1))
    fail "'$1' -> [$got], expected [$want]"
  fi
}
# expect_includes LINE WORDS: every word is among the candidates
expect_includes() {
  local got w missing=()
  got=" $(candidates "$1")"
  for w in $2; do [[ $got == *" $w "* ]] || missing+=("$w"); done
  checks=$((checks + 1))
  if [ ${#missing[@]} -eq 0 ]; then echo "ok: '$1' offers $2"; else fail "'$1' does not offer ${missing[*]} (got:$got)"; fi
}

expect 'wiredcap ' "$top_commands"
expect 'wiredcap ra' ramp
expect 'wiredcap re' 'reset recover'
expect 'wiredcap --json re' 'reset recover'
expect "wiredcap --helper $work/files/x ra" ramp
expect 'wiredcap policy ' check
expect 'wiredcap set ' default
expect 'wiredcap convert 232GiB --to G' 'GB GiB'
expect 'wiredcap convert 232GiB --to Mi' 'MiB'
expect 'wiredcap ramp --ig' '--ignore-hang-ceiling'
expect 'wiredcap ramp --to 176GiB --probe' '--probe --probe-timeout'
expect 'wiredcap ramp --dr' '--dry-run'
# persist [SIZE] [--unconfirmed] [--ignore-hang-ceiling], or persist --off alone.
expect 'wiredcap pe' persist
expect 'wiredcap --json pe' persist
expect 'wiredcap persist --o' '--off'
expect 'wiredcap persist --un' '--unconfirmed'
expect 'wiredcap persist --ig' '--ignore-hang-ceiling'
expect 'wiredcap persist 96GiB --un' '--unconfirmed'
expect "wiredcap --journal $work/files/x persist --o" '--off'
# --off excludes the options of storing a value, and they (and SIZE) exclude --off; completion
# still works there (so an empty answer below is an exclusion, not a broken completion).
expect 'wiredcap persist --off --js' '--json'
expect 'wiredcap persist 96GiB --js' '--json'
expect 'wiredcap persist --off --un' ''
expect 'wiredcap persist --off --ig' ''
expect 'wiredcap persist --unconfirmed --o' ''
expect 'wiredcap persist --ignore-hang-ceiling --o' ''
expect 'wiredcap persist 96GiB --o' ''
# Values the program itself accepts (generated from its lists), and exclusions CLI11 declares.
expect 'wiredcap recover --why ' 'macos-update hardware-change other-cause'
expect 'wiredcap ramp --kv-type q8' 'q8_0'
expect 'wiredcap fit --runtime ll' 'llama.cpp llama-server'
expect 'wiredcap help ' "${top_commands/help /}"
expect 'wiredcap ramp --to 176GiB --fo' ''
expect 'wiredcap ramp --for m.gguf --t' '--timeout'
expect 'wiredcap recover --hung --n' ''
expect 'wiredcap fit --ch' '--check'
if [ "$shell" = zsh ]; then
  # zsh's _files adds the names with the directory as a prefix of the line, not of the match.
  expect "wiredcap policy check $work/files/policy-" "policy-a.conf policy-b.conf"
else
  expect "wiredcap policy check $work/files/policy-" "$work/files/policy-a.conf $work/files/policy-b.conf"
fi
if [ "$shell" != zsh ]; then
  # zsh shows -h/--help as one group, which the zpty capture does not see; the option list
  # itself is checked against the file above.
  expect_includes 'wiredcap ramp --' "$ramp_options $global_options"
  expect_includes 'wiredcap persist --' "$persist_options $global_options"
  expect_includes 'wiredcap --' "$global_options"
else
  expect_includes 'wiredcap ramp --' "${ramp_options/--help /}"
  expect_includes 'wiredcap persist --' "${persist_options/--help /}"
fi

finish
