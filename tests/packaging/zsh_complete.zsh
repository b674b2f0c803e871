#!/usr/bin/env zsh
# Prints, one per line, the candidates zsh's completion system offers at the end of a command
# line, as if Tab were pressed in an interactive zsh whose fpath starts with FPATH_DIR.
#   zsh_complete.zsh FPATH_DIR WORK_DIR 'wiredcap ra'
# An interactive `zsh -f -i` runs in a pseudo-terminal (zsh/zpty); compadd is wrapped to print
# what it is asked to add (after matching), and completion exits the shell when it is done.
zmodload zsh/zpty || exit 2
fdir=$1 work=$2 cmdline=$3
mkdir -p $work || exit 2
cat >$work/init.zsh <<INIT
PROMPT='' RPROMPT=''
fpath=(${(q)fdir} \$fpath)
autoload -Uz compinit && compinit -u -d ${(q)work}/zcompdump
bindkey '^I' complete-word
zstyle ':completion:*' insert-tab false
compadd() {
  if [[ \${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "\$@"; return; fi
  local -a __hits
  builtin compadd -A __hits "\$@"
  (( \$#__hits )) && print -r -l -- "ZC-HIT:"\${^__hits}
  return 0
}
_zc_done() { print -r -- "ZC-DONE"; exit }
comppostfuncs=( _zc_done )
print -r -- "ZC-READY"
INIT
zpty z env TERM=dumb zsh -f -i || exit 2
zpty -w z "source ${(q)work}/init.zsh"
local line ready=0
while zpty -r z line; do
  if [[ $line == ZC-READY* ]]; then ready=1; break; fi
done
(( ready )) || { print -u2 "zsh_complete: the inner zsh did not start"; exit 2 }
zpty -w -n z "$cmdline"$'\t'
while zpty -r z line; do
  line=${line//$'\r'/}; line=${line%$'\n'}
  [[ $line == *ZC-DONE* ]] && break
  [[ $line == *ZC-HIT:* ]] && print -r -- ${line##*ZC-HIT:}
done
zpty -d z
