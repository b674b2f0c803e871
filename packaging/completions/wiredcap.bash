# bash completion for wiredcap(1). Installed as share/bash-completion/completions/wiredcap.
# Self-contained: needs no function of the bash-completion package, and runs in bash 3.2
# (macOS's /bin/bash) as well as in bash 5.
# tests/packaging/completions_test.sh checks it against `wiredcap --help`.

# Sets COMPREPLY to compgen's words, one per line (file names may contain spaces). A read loop,
# not mapfile: mapfile is not in bash 3.2.
_wiredcap_reply() {
    local line
    COMPREPLY=()
    while IFS= read -r line; do COMPREPLY+=("$line"); done < <(compgen "$@")
}

_wiredcap() {
    local cur=${COMP_WORDS[COMP_CWORD]}
    local prev=''
    if ((COMP_CWORD > 0)); then prev=${COMP_WORDS[COMP_CWORD - 1]}; fi
    # `--to=1` is split at '=' by COMP_WORDBREAKS: complete the value of the option before it.
    if [[ $cur == = ]]; then
        prev=${COMP_WORDS[COMP_CWORD - 1]}
        cur=
    elif [[ $prev == = ]] && ((COMP_CWORD > 1)); then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    local global_opts="--help --version --json --quiet --helper --policy --journal --sim-state"
    local commands="status watch set reset ramp recover persist policy convert fit metrics help"
    local units="B kB MB GB TB KiB MiB GiB TiB"
    local ramp_opts="--to --for --context --kv-type --kv-type-k --kv-type-v --parallel --batch --ubatch --runtime --flash-attn --no-flash-attn --kv-unified --no-kv-unified --step --timeout --probe --probe-timeout --dry-run --unattended --check --ignore-hang-ceiling --from --yes --linux-root"
    local fit_opts="--context --kv-type --kv-type-k --kv-type-v --parallel --batch --ubatch --runtime --flash-attn --no-flash-attn --kv-unified --no-kv-unified --check"
    local persist_store_opts="--unconfirmed --lower --ignore-hang-ceiling"

    # The command (and policy's subcommand) typed so far; options and their values are skipped.
    # For persist: whether --off, or something that stores a value (SIZE or an option of
    # storing), was typed already; the two exclude each other.
    local i word cmd='' sub='' persist_off='' persist_store=''
    for ((i = 1; i < COMP_CWORD; i++)); do
        word=${COMP_WORDS[i]}
        case $word in
            # fit's --check is a flag; ramp's takes a command.
            --check) [[ $cmd == fit ]] || ((i++)) ;;
            --helper | --policy | --journal | --sim-state | --textfile-dir | --linux-root | --to | --for | --context | --kv-type | --kv-type-k | --kv-type-v | --parallel | --batch | --ubatch | --step | --timeout | --probe | --probe-timeout | --from | --why | --interval | --count)
                ((i++))
                if [[ ${COMP_WORDS[i]} == = ]]; then ((i++)); fi
                ;;
            --off) persist_off=1 ;;
            --unconfirmed | --lower | --ignore-hang-ceiling) persist_store=1 ;;
            -*) ;;
            *)
                if [[ -z $cmd ]]; then
                    cmd=$word
                elif [[ $cmd == policy && -z $sub ]]; then
                    sub=$word
                elif [[ $cmd == persist ]]; then
                    persist_store=1
                fi
                ;;
        esac
    done

    COMPREPLY=()
    case $prev in
        --helper | --policy | --journal | --sim-state | --for)
            compopt -o filenames 2>/dev/null
            _wiredcap_reply -f -- "$cur"
            return 0
            ;;
        --textfile-dir | --linux-root)
            compopt -o dirnames 2>/dev/null
            _wiredcap_reply -d -- "$cur"
            return 0
            ;;
        --to)
            # convert --to takes a unit; ramp --to a size, which has no fixed list.
            if [[ $cmd == convert ]]; then _wiredcap_reply -W "$units" -- "$cur"; fi
            return 0
            ;;
        --probe | --check)
            _wiredcap_reply -c -- "$cur"
            return 0
            ;;
        --kv-type | --kv-type-k | --kv-type-v)
            _wiredcap_reply -W "f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1" -- "$cur"
            return 0
            ;;
        --why)
            _wiredcap_reply -W "macos-update hardware-change other-cause" -- "$cur"
            return 0
            ;;
        --step | --timeout | --probe-timeout | --context | --parallel | --batch | --ubatch | --from | --interval | --count)
            return 0
            ;;
    esac

    local words=''
    case $cmd in
        "") if [[ $cur == -* ]]; then words="$global_opts -h"; else words=$commands; fi ;;
        convert) if [[ $cur == -* ]]; then words="--to $global_opts"; fi ;;
        set) if [[ $cur == -* ]]; then words="--yes --ignore-hang-ceiling --from --dry-run --linux-root $global_opts"; else words=default; fi ;;
        metrics) if [[ $cur == -* ]]; then words="--textfile-dir $global_opts"; fi ;;
        status) if [[ $cur == -* ]]; then words="--field --linux-root $global_opts"; fi ;;
        watch) if [[ $cur == -* ]]; then words="--interval --count $global_opts"; fi ;;
        reset) if [[ $cur == -* ]]; then words="--yes --dry-run --linux-root $global_opts"; fi ;;
        help) if [[ $cur == -* ]]; then words=$global_opts; else words=${commands% help}; fi ;;
        recover) if [[ $cur == -* ]]; then words="--hung --not-hung --forget-hang --why --yes --linux-root $global_opts"; fi ;;
        ramp) if [[ $cur == -* ]]; then words="$ramp_opts $global_opts"; fi ;;
        fit)
            if [[ $cur == -* ]]; then
                words="$fit_opts $global_opts"
            else
                compopt -o filenames 2>/dev/null
                _wiredcap_reply -f -- "$cur"
                return 0
            fi
            ;;
        persist)
            # persist [SIZE] [--unconfirmed [--lower]] [--ignore-hang-ceiling], or persist --off. SIZE has
            # no fixed list (default: the journal's last confirmed value).
            if [[ $cur == -* ]]; then
                if [[ -n $persist_off ]]; then
                    words="--yes --dry-run --linux-root $global_opts"
                elif [[ -n $persist_store ]]; then
                    words="$persist_store_opts --yes --dry-run --linux-root $global_opts"
                else
                    words="--off $persist_store_opts --yes --dry-run --linux-root $global_opts"
                fi
            fi
            ;;
        policy)
            if [[ $cur == -* ]]; then
                words=$global_opts
            elif [[ -z $sub ]]; then
                words=check
            elif [[ $sub == check ]]; then
                compopt -o filenames 2>/dev/null
                _wiredcap_reply -f -- "$cur"
                return 0
            fi
            ;;
        *) if [[ $cur == -* ]]; then words=$global_opts; fi ;;
    esac
    if [[ -n $words ]]; then _wiredcap_reply -W "$words" -- "$cur"; fi
    return 0
}

complete -F _wiredcap wiredcap
