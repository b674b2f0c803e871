# fish completion for wiredcap(1). Installed as share/fish/vendor_completions.d/wiredcap.fish.
# tests/packaging/completions_test.sh checks it against `wiredcap --help`.

set -l commands status watch set reset ramp recover persist policy convert fit metrics help
set -l no_command "not __fish_seen_subcommand_from $commands"

# No file names unless an option or argument asks for one.
complete -c wiredcap -f

# Global options: accepted before or after the command.
complete -c wiredcap -s h -l help -d 'Print usage and exit codes, and exit'
complete -c wiredcap -s V -l version -d 'Print the version and exit'
complete -c wiredcap -s q -l quiet -d 'No narration from set, reset, persist, ramp, recover'
complete -c wiredcap -l json -d 'Print one JSON object on stdout'
complete -c wiredcap -l helper -r -F -d 'The wiredcap-helper to run'
complete -c wiredcap -l policy -r -F -d 'Policy file (development and tests only)'
complete -c wiredcap -l journal -r -F -d 'Journal (development and tests only)'
complete -c wiredcap -l sim-state -r -F -d 'Simulated Mac state file (development and tests only)'

# Commands.
complete -c wiredcap -n $no_command -a status -d 'Every ceiling that can bind, each with its source'
complete -c wiredcap -n $no_command -a set -d 'Set the cap to SIZE (or default)'
complete -c wiredcap -n $no_command -a reset -d 'Back to the OS default, now and at boot; always permitted'
complete -c wiredcap -n $no_command -a ramp -d 'Raise the cap step by step, each step confirmed'
complete -c wiredcap -n $no_command -a recover -d 'After a hang: which write hung, the last good value'
complete -c wiredcap -n $no_command -a persist -d 'Store a confirmed value for boot (or --off to forget it)'
complete -c wiredcap -n $no_command -a policy -d 'The permitted band (policy check)'
complete -c wiredcap -n $no_command -a convert -d 'Print a size exactly in other units'
complete -c wiredcap -n $no_command -a fit -d 'How much memory a model needs, and whether it fits'
complete -c wiredcap -n $no_command -a metrics -d 'The status readings for Prometheus'
complete -c wiredcap -n $no_command -a watch -d 'The picture of memory, redrawn while a model loads'
complete -c wiredcap -n $no_command -a help -d "Print the usage, or a command's"
complete -c wiredcap -n '__fish_seen_subcommand_from help' -a 'status watch set reset ramp recover persist policy convert fit metrics'
complete -c wiredcap -n '__fish_seen_subcommand_from status' -l field -x -d 'Print only this member of status --json, bare'
complete -c wiredcap -n '__fish_seen_subcommand_from reset persist ramp' -s y -l yes -d 'Accepted for scripts; nothing is asked'

# watch [--interval DURATION] [--count N]
complete -c wiredcap -n '__fish_seen_subcommand_from watch' -l interval -x -d 'Time between samples (default 2s)'
complete -c wiredcap -n '__fish_seen_subcommand_from watch' -l count -x -d 'Stop after N samples'

# metrics [--textfile-dir DIR]
complete -c wiredcap -n '__fish_seen_subcommand_from metrics' -l textfile-dir -x -a '(__fish_complete_directories)' -d 'Write DIR/wiredcap.prom atomically'

# fit MODEL [--context N] [--kv-type TYPE] [--kv-type-k TYPE] [--kv-type-v TYPE] [--parallel N]
#   [--batch N] [--ubatch N] [--runtime NAME] [--flash-attn] [--kv-unified] [--check]
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -F
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l context -x -d 'Tokens of context per sequence (default: the runtime'\''s)'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l kv-type -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'K and V cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l kv-type-k -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'K cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l kv-type-v -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'V cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l parallel -x -d 'Sequences, each with its own context'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l batch -x -d 'Tokens of a logical batch (llama.cpp -b)'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l ubatch -x -d 'Tokens of a micro-batch (llama.cpp -ub)'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l flash-attn -d 'The runtime uses flash attention'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l no-flash-attn -d 'The runtime does not use flash attention'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l kv-unified -d 'One KV cache the sequences share'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l no-kv-unified -d 'A KV cache for each sequence'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l runtime -x -a 'llama.cpp llama-server ollama lm-studio mlx' -d 'The runtime that will load the model'
complete -c wiredcap -n '__fish_seen_subcommand_from fit' -l check -d 'Exit by the verdict: 0 fits now, 17 after a raise, 3 not, 1 unknown'

# convert SIZE [--to UNIT]
complete -c wiredcap -n '__fish_seen_subcommand_from convert' -l to -x -a 'B kB MB GB TB KiB MiB GiB TiB' -d 'Print only this unit'

# set SIZE [--yes]
complete -c wiredcap -n '__fish_seen_subcommand_from status set reset recover ramp persist' -l linux-root -x -a '(__fish_complete_directories)' -d 'Linux AMD APU: read TTM and amdgpu under DIR'
complete -c wiredcap -n '__fish_seen_subcommand_from set' -s y -l yes -d 'Do not ask before raising the cap'
complete -c wiredcap -n '__fish_seen_subcommand_from recover' -l hung -d 'Answer for every suspect: the machine hung'
complete -c wiredcap -n '__fish_seen_subcommand_from recover' -l not-hung -d 'Answer for every suspect: it did not hang'
complete -c wiredcap -n '__fish_seen_subcommand_from recover' -l forget-hang -d 'Clear the hang ceiling (journaled)'
complete -c wiredcap -n '__fish_seen_subcommand_from recover' -l why -x -a 'macos-update hardware-change other-cause' -d 'Why it is forgotten'
complete -c wiredcap -n '__fish_seen_subcommand_from recover' -s y -l yes -d 'Forget the hang ceiling without asking'
complete -c wiredcap -n '__fish_seen_subcommand_from set' -l ignore-hang-ceiling -d 'Allow a value at or above one that hung before'
complete -c wiredcap -n '__fish_seen_subcommand_from set' -l from -x -d 'The GPU cap now, when Metal cannot be read'
complete -c wiredcap -n '__fish_seen_subcommand_from set reset persist' -l dry-run -d 'Every check of the real run, then nothing is written'
complete -c wiredcap -n '__fish_seen_subcommand_from set; and not __fish_seen_subcommand_from default' -a default -d 'The OS default (same as reset)'

# policy check [FILE]
complete -c wiredcap -n '__fish_seen_subcommand_from policy; and not __fish_seen_subcommand_from check' -a check -d 'Validate a policy file as the helper would'
complete -c wiredcap -n '__fish_seen_subcommand_from policy; and __fish_seen_subcommand_from check' -F

# ramp --to SIZE ...
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l to -x -d 'Target size, with its unit (e.g. 176GiB)'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l for -r -F -d 'The value wiredcap fit recommends for a model'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l context -x -d 'With --for: tokens of context per sequence'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l kv-type -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'With --for: K and V cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l kv-type-k -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'With --for: K cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l kv-type-v -x -a 'f32 f16 bf16 q8_0 q4_0 q4_1 iq4_nl q5_0 q5_1' -d 'With --for: V cache type'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l parallel -x -d 'With --for: sequences, each with its own context'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l batch -x -d 'With --for: tokens of a logical batch'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l ubatch -x -d 'With --for: tokens of a micro-batch'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l flash-attn -d 'With --for: the runtime uses flash attention'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l no-flash-attn -d 'With --for: the runtime does not use flash attention'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l kv-unified -d 'With --for: one KV cache the sequences share'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l no-kv-unified -d 'With --for: a KV cache for each sequence'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l runtime -x -a 'llama.cpp llama-server ollama lm-studio mlx' -d 'With --for: the runtime that will load the model'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l step -x -d 'Size of each raise (default: max_step)'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l timeout -x -d 'Time to confirm each step (e.g. 60s)'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l probe -x -a '(__fish_complete_command)' -d 'Command run as you after each step'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l probe-timeout -x -d 'Time limit for --probe and --check'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l dry-run -d 'Print the plan and change nothing'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l unattended -d 'No person: --check decides each step'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l check -x -a '(__fish_complete_command)' -d 'With --unattended: exit 0 keeps the step'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l ignore-hang-ceiling -d 'Allow steps at or above a value that hung before'
complete -c wiredcap -n '__fish_seen_subcommand_from ramp' -l from -x -d 'The GPU cap now, when Metal cannot be read'

# persist [SIZE] [--unconfirmed [--lower]] [--ignore-hang-ceiling], or persist --off alone.
# Succeeds when the line after `persist` already stores a value: a SIZE or an option of storing
# (the values of the global options that take one are skipped).
function __wiredcap_persist_storing
    set -l after_persist 0
    set -l skip 0
    for t in (commandline -opc)[2..-1]
        if test $skip = 1
            set skip 0
            continue
        end
        switch $t
            case --helper --policy --journal --sim-state
                set skip 1
            case --unconfirmed --lower --ignore-hang-ceiling
                test $after_persist = 1; and return 0
            case '-*'
            case persist
                if test $after_persist = 1
                    return 0
                end
                set after_persist 1
            case '*'
                test $after_persist = 1; and return 0
        end
    end
    return 1
end
complete -c wiredcap -n '__fish_seen_subcommand_from persist; and not __wiredcap_persist_storing; and not __fish_seen_argument -l off' -l off -d 'Forget the stored value: boots keep the OS default'
complete -c wiredcap -n '__fish_seen_subcommand_from persist; and not __fish_seen_argument -l off' -l unconfirmed -d 'Store SIZE although no ramp confirmed it (journaled)'
complete -c wiredcap -n '__fish_seen_subcommand_from persist; and not __fish_seen_argument -l off' -l lower -d 'With --unconfirmed: store SIZE below the effective cap (lowers it at every boot)'
complete -c wiredcap -n '__fish_seen_subcommand_from persist; and not __fish_seen_argument -l off' -l ignore-hang-ceiling -d 'Allow a value at or above one that hung before'
