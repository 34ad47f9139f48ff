# cohmod.bash - bash completion for cohmod: commands, their models,
# options, parameter names (and enum choices after NAME=), presets,
# workloads and protocols.
# Every list comes from the binary itself (`cohmod --complete WHAT`, see
# cli/complete.c), so the completion follows the program it completes.
# `make install` puts it in PREFIX/share/bash-completion/completions/.

_cohmod()
{
    local bin=${COMP_WORDS[0]}
    # The word under the cursor and the one before, split at blanks only:
    # COMP_WORDS also splits at = and :, which --set NAME=VALUE contains.
    local line=${COMP_LINE:0:COMP_POINT}
    local cur=${line##*[[:space:]]}
    local before=${line%"$cur"}
    before=${before%"${before##*[![:space:]]}"}
    local prev=${before##*[[:space:]]}
    local -a words
    read -r -a words <<<"$before"
    local ncmd=${#words[@]} cmd=${words[1]:-} sub=${words[2]:-}
    local candidates="" prefix=""

    if ((ncmd <= 1)); then
        candidates="$("$bin" --complete commands 2>/dev/null) --help --version"
    elif [[ $cmd == help ]]; then
        if ((ncmd == 2)); then
            candidates=$("$bin" --complete commands 2>/dev/null)
        elif ((ncmd == 3)); then
            candidates=$("$bin" --complete subcommands "$sub" 2>/dev/null)
        fi
    else
        case $prev in
        --set | --sweep | --grid | --param)
            if [[ $cur == *=* ]]; then
                prefix=${cur%%=*}=
                candidates=$("$bin" --complete choices "${cur%%=*}" 2>/dev/null)
            else
                local p
                for p in $("$bin" --complete params 2>/dev/null); do
                    candidates+="$p= "
                done
                compopt -o nospace 2>/dev/null
            fi
            ;;
        --config)
            candidates=$("$bin" --complete presets 2>/dev/null)
            COMPREPLY=($(compgen -f -- "$cur"))
            ;;
        --workload | --workloads | --coh-workloads)
            [[ $cur == *,* ]] && prefix=${cur%,*},
            candidates=$("$bin" --complete workloads 2>/dev/null)
            ;;
        --protocol)
            candidates="$("$bin" --complete protocols 2>/dev/null) all"
            ;;
        -*)
            # any other option's value: a file
            if "$bin" --complete options "$cmd" 2>/dev/null |
                grep -qx -- "$prev"; then
                COMPREPLY=($(compgen -f -- "$cur"))
                return
            fi
            ;;
        esac
        if [[ -z $candidates && $cur == -* ]]; then
            if [[ $cmd == model && $sub != -* ]]; then
                candidates=$("$bin" --complete options model "$sub" 2>/dev/null)
            else
                candidates=$("$bin" --complete options "$cmd" 2>/dev/null)
            fi
        elif [[ -z $candidates && $ncmd == 2 ]]; then
            candidates=$("$bin" --complete subcommands "$cmd" 2>/dev/null)
        fi
    fi
    if [[ -z $candidates ]]; then
        [[ ${#COMPREPLY[@]} -gt 0 ]] || COMPREPLY=($(compgen -f -- "$cur"))
        return
    fi
    local w
    for w in $(compgen -W "$candidates" -- "${cur#"$prefix"}"); do
        COMPREPLY+=("$prefix$w")
    done
    # Bash replaces only the part of the word after its last = or :, so
    # drop what comes before it from each reply.
    local keep=${cur%"${cur##*[=:]}"}
    if [[ -n $keep ]]; then
        local i
        for i in "${!COMPREPLY[@]}"; do
            COMPREPLY[i]=${COMPREPLY[i]#"$keep"}
        done
    fi
}
complete -F _cohmod cohmod
