# bash completion for memtopo.  The option names come from `memtopo --help`,
# the presets from `memtopo --list-presets` and the probes from the --help
# probe list, so this file never goes stale when an option or a probe is
# added.
_memtopo()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local prog=${COMP_WORDS[0]}
    COMPREPLY=()
    case $prev in
        -s|--sim)
            COMPREPLY=($(compgen -W "$("$prog" --list-presets 2>/dev/null)" -- "$cur")
                       $(compgen -f -X '!*.spec' -- "$cur") $(compgen -d -- "$cur"))
            return;;
        --replay|--record|--raw|--plot|--sim-per-rank)
            COMPREPLY=($(compgen -d -- "$cur")); return;;
        -j|--json|--csv|--html|--fleet)
            COMPREPLY=($(compgen -f -- "$cur")); return;;
        -o|--only)
            # Comma-separated probe names: complete the last one.
            local probes done=${cur%"${cur##*,}"}
            probes=$("$prog" --help 2>/dev/null | sed -n '/^What to measure/,/^ *-/s/^  \([a-z0-9_]*\) .*/\1/p')
            COMPREPLY=($(compgen -P "$done" -W "$probes" -- "${cur##*,}"))
            return;;
        -d|--device|--seed|--carveout)
            return;;
    esac
    if [[ ${COMP_WORDS[1]} == compare && $COMP_CWORD -gt 1 ]]; then
        # memtopo compare: saved reports or directories of them.
        [[ $cur == -* ]] && COMPREPLY=($(compgen -W "--json --help" -- "$cur")) && return
        COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur"))
        return
    fi
    if [[ ${COMP_WORDS[1]} == model && $COMP_CWORD -gt 1 ]]; then
        # memtopo model: options, then files (kernel profiles, .kd, reports).
        case $prev in
            --scheduler) COMPREPLY=($(compgen -W "gto rr" -- "$cur")); return;;
            -k|--kernel|--clock|-w|--what-if) return;;
        esac
        [[ $cur == -* ]] && COMPREPLY=($(compgen -W "$("$prog" model --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur")) && return
        COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    if [[ $COMP_CWORD == 1 && $cur != -* ]]; then
        COMPREPLY=($(compgen -W "compare model" -- "$cur"))
        return
    fi
    if [[ $cur == -* ]]; then
        COMPREPLY=($(compgen -W "$("$prog" --help 2>/dev/null | grep -o -- '--[a-z][a-z-]*' | sort -u)" -- "$cur"))
    fi
}
complete -F _memtopo memtopo memtopo-mpi
