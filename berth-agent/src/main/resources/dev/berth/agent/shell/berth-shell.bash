# Berth shell integration. The agent writes this file at every shell start (edits are lost) and
# starts bash with --rcfile pointing here; the lines above this comment set:
#   __berth_state_dir   where the captures (state.0, state.1) and the history go
#   __berth_root        the runtime directory: a saved path under the saved root is moved to it
#   __berth_restoring   1 when the state directory came back from an archive
#
# What it does, in order: reads ~/.bashrc as bash would have; restores the newest complete
# capture, if any (variables, environment, functions, aliases, then the working directory, and
# last of all the shell options); installs the capture in PROMPT_COMMAND (so the saved state is
# never older than the last prompt) and on SIGUSR1 (so the agent can ask for a fresh one; a
# WINCH trap makes bash run it at once while readline waits at the prompt).
#
# A capture runs only builtins, never forks, prints nothing and leaves $? alone (bash restores
# it after PROMPT_COMMAND and traps). It writes the
# two slots state.0 and state.1 in turn, each framed by a header and a trailer that carry its
# generation and a random nonce: a capture cut short leaves the other slot complete, and the
# newest complete slot is the state. The file "names" is the capture's scratch space (builtins
# write it, mapfile reads it back: the way to a list without a fork), ended by a "#berth:end" line.
#
# Every file is written over in place (1<>), never truncated (>): ext4 and XFS start writing a
# truncated file's data back to disk when it is closed, which made each prompt wait milliseconds
# for the disk. What an earlier, longer capture left after the end stays there and is never read:
# a slot ends at the trailer of its own header's generation and nonce (which no variable's value
# can hold, being drawn after it was set), the scratch list at its first "#berth:end".

HISTFILE=$__berth_state_dir/history
if [[ -f ~/.bashrc ]]; then
  # shellcheck source=/dev/null
  . ~/.bashrc || :
fi
builtin shopt -s histappend
# The rest runs without the options ~/.bashrc may have set (errexit, nounset, xtrace, verbose):
# they come back at the end, as saved or else as ~/.bashrc left them.
__berth_flags=$-
builtin set +o errexit +o nounset +o xtrace +o verbose

__berth_generation=0
__berth_saved_cwd=
__berth_saved_root=
__berth_options=
__berth_notice=
__berth_best=
__berth_best_generation=-1
__berth_best_end=0
for __berth_slot in 0 1; do
  __berth_lines=()
  if [[ -f $__berth_state_dir/state.$__berth_slot ]]; then
    builtin mapfile -t __berth_lines <"$__berth_state_dir/state.$__berth_slot" 2>/dev/null
  fi
  __berth_end=0
  # Format 2 ends at its own trailer, anywhere; format 1 (written before in-place captures) is
  # truncated at every write, so its trailer is its last line.
  if [[ ${#__berth_lines[@]} -ge 2 &&
    ${__berth_lines[0]} =~ ^'# berth-shell-state 2 '([0-9]+)' '[0-9.,]+' '([0-9]+)$ ]]; then
    __berth_text="# end ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
    for ((__berth_split = 1; __berth_split < ${#__berth_lines[@]}; __berth_split++)); do
      if [[ ${__berth_lines[__berth_split]} == "$__berth_text" ]]; then
        __berth_end=$((__berth_split + 1))
        break
      fi
    done
  elif [[ ${#__berth_lines[@]} -ge 2 &&
    ${__berth_lines[0]} =~ ^'# berth-shell-state 1 '([0-9]+)' ' &&
    ${__berth_lines[-1]} == "# end ${BASH_REMATCH[1]}" ]]; then
    __berth_end=${#__berth_lines[@]}
  fi
  if ((__berth_end > 0 && BASH_REMATCH[1] > __berth_best_generation)); then
    __berth_best_generation=${BASH_REMATCH[1]}
    __berth_best=$__berth_slot
    __berth_best_end=$__berth_end
  fi
done
if [[ -n $__berth_best ]]; then
  builtin mapfile -t -n "$__berth_best_end" __berth_lines <"$__berth_state_dir/state.$__berth_best"
  __berth_split=${#__berth_lines[@]}
  for __berth_slot in "${!__berth_lines[@]}"; do
    if [[ ${__berth_lines[__berth_slot]} == '#berth:options' ]]; then
      __berth_split=$__berth_slot
      break
    fi
  done
  builtin printf -v __berth_text '%s\n' "${__berth_lines[@]:0:__berth_split}"
  builtin printf -v __berth_options '%s\n' "${__berth_lines[@]:__berth_split}"
  # The runtime directory moves with every restore: saved paths under it follow it.
  if [[ ${__berth_lines[1]} =~ ^__berth_saved_root= ]]; then
    builtin eval "${__berth_lines[1]}"
  fi
  if [[ -n $__berth_saved_root && $__berth_saved_root != "$__berth_root" ]]; then
    for __berth_slot in / '"' "'" : ' ' $'\n'; do
      __berth_text=${__berth_text//"$__berth_saved_root$__berth_slot"/"$__berth_root$__berth_slot"}
      __berth_options=${__berth_options//"$__berth_saved_root$__berth_slot"/"$__berth_root$__berth_slot"}
    done
  fi
  # Functions were saved with their aliases expanded: expanding again would change them.
  builtin shopt -q expand_aliases && __berth_expand=-s || __berth_expand=-u
  builtin shopt -u expand_aliases
  builtin eval "$__berth_text" 2>/dev/null || :
  builtin shopt "$__berth_expand" expand_aliases
  __berth_generation=$__berth_best_generation
  __berth_notice='session restored; running processes were not preserved'
elif [[ -e $__berth_state_dir/state.0 || -e $__berth_state_dir/state.1 ]]; then
  __berth_notice='the saved shell state could not be read; this is a fresh shell'
elif [[ $__berth_restoring == 1 ]]; then
  __berth_notice='no saved shell state was found; this is a fresh shell'
fi

# Our functions are parsed without the user's aliases.
builtin shopt -q expand_aliases && __berth_expand=-s || __berth_expand=-u
builtin shopt -u expand_aliases

# What the last capture saved, and the lists of names it was worked out from.
__berth_variables=()
__berth_functions=()
__berth_exported=()
__berth_seen_variables=
__berth_seen_functions=

# Writes the shell's state into the next slot. Skipped inside a subshell or a function (a signal
# that arrived while one ran): the next prompt captures the state as the user sees it. Returns 0
# whatever happened, so that errexit never ends the shell at a prompt; bash itself gives $? back
# after PROMPT_COMMAND and after a trap.
__berth_capture() {
  local -
  local __berth_flags=$-
  builtin set +o errexit +o nounset +o xtrace +o verbose
  if [[ $BASHPID != "$$" || ${#FUNCNAME[@]} -gt 1 ]]; then
    return 0
  fi
  builtin history -a
  local __berth_scratch=$__berth_state_dir/names
  local __berth_name __berth_line __berth_seen
  local -a __berth_all=()
  # Which variables and functions to save is worked out again only when their list changed since
  # the last capture (most command lines define none): sorting a hundred names through the
  # pattern below cost milliseconds of bash at every prompt.
  { builtin compgen -v && builtin printf '#berth:end\n'; } 1<>"$__berth_scratch" &&
    builtin mapfile -t __berth_all <"$__berth_scratch"
  builtin printf -v __berth_seen '%s\n' "${__berth_all[@]}"
  if [[ $__berth_seen != "$__berth_seen_variables" ]]; then
    __berth_variables=()
    for __berth_name in "${__berth_all[@]}"; do
      case $__berth_name in
        '#berth:end') break ;;
        __berth_* | BASH | BASHOPTS | BASHPID | BASH_ALIASES | BASH_ARG* | BASH_CMDS) ;;
        BASH_COMMAND | BASH_EXECUTION_STRING | BASH_LINENO | BASH_MONOSECONDS | BASH_REMATCH) ;;
        BASH_SOURCE | BASH_SUBSHELL | BASH_TRAPSIG | BASH_VERSINFO | BASH_VERSION) ;;
        BASH_XTRACEFD | BERTH_* | COLUMNS | COMP_* | COPROC* | DIRSTACK | EPOCHREALTIME) ;;
        EPOCHSECONDS | EUID | FUNCNAME | GROUPS | HISTCMD | HOME | HOSTNAME | HOSTTYPE) ;;
        LINENO | LINES | MACHTYPE | OPTIND | OSTYPE | PIPESTATUS | PPID | PWD | RANDOM) ;;
        READLINE_* | SECONDS | SHELL | SHELLOPTS | SHLVL | SRANDOM | TERM | UID | _) ;;
        *) __berth_variables+=("$__berth_name") ;;
      esac
    done
    __berth_seen_variables=$__berth_seen
  fi
  __berth_all=()
  { builtin declare -F && builtin printf '#berth:end\n'; } 1<>"$__berth_scratch" &&
    builtin mapfile -t __berth_all <"$__berth_scratch"
  builtin printf -v __berth_seen '%s\n' "${__berth_all[@]}"
  if [[ $__berth_seen != "$__berth_seen_functions" ]]; then
    __berth_functions=()
    __berth_exported=()
    for __berth_line in "${__berth_all[@]}"; do
      [[ $__berth_line == '#berth:end' ]] && break
      __berth_name=${__berth_line##* }
      case $__berth_name in
        __berth_*) ;;
        *)
          __berth_functions+=("$__berth_name")
          if [[ $__berth_line == 'declare -fx '* ]]; then
            __berth_exported+=("$__berth_name")
          fi
          ;;
      esac
    done
    __berth_seen_functions=$__berth_seen
  fi
  ((__berth_generation += 1))
  # SRANDOM (bash 5.1 and later) draws without moving $RANDOM, which a user may have seeded.
  # Digits only and bounded, whatever a user's own SRANDOM (bash 5.0, or after unset) holds.
  local __berth_nonce=${SRANDOM-}${EPOCHREALTIME//[.,]/}
  __berth_nonce=${__berth_nonce//[!0-9]/}
  ((${#__berth_nonce} <= 30)) || __berth_nonce=${__berth_nonce:${#__berth_nonce}-30}
  __berth_nonce=${__berth_nonce:-0}
  {
    builtin printf '# berth-shell-state 2 %s %s %s\n' "$__berth_generation" "$EPOCHREALTIME" \
      "$__berth_nonce"
    builtin printf '__berth_saved_root=%q\n' "$__berth_root"
    builtin printf '__berth_saved_cwd=%q\n' "$PWD"
    if ((${#__berth_variables[@]})); then
      builtin declare -p "${__berth_variables[@]}"
    fi
    if ((${#__berth_functions[@]})); then
      builtin declare -f "${__berth_functions[@]}"
    fi
    for __berth_name in "${__berth_exported[@]}"; do
      builtin printf 'builtin export -f %q\n' "$__berth_name"
    done
    builtin printf 'builtin unalias -a\n'
    builtin alias -p
    builtin printf '#berth:options\n'
    builtin shopt -p
    builtin set +o
    case $__berth_flags in *e*) builtin printf 'set -o errexit\n' ;; esac
    case $__berth_flags in *u*) builtin printf 'set -o nounset\n' ;; esac
    case $__berth_flags in *v*) builtin printf 'set -o verbose\n' ;; esac
    case $__berth_flags in *x*) builtin printf 'set -o xtrace\n' ;; esac
    builtin umask -p
    builtin printf '# end %s %s\n' "$__berth_generation" "$__berth_nonce"
  } 1<>"$__berth_state_dir/state.$((__berth_generation % 2))"
  return 0
} 2>/dev/null

# PROMPT_COMMAND runs the capture last, after whatever the user's own entries change. An array
# (bash 5.1 and later) keeps it there when the user later prepends or appends to the first entry.
__berth_hook() {
  local -a __berth_kept=()
  local __berth_entry
  if [[ -v PROMPT_COMMAND && ${PROMPT_COMMAND@a} == *a* ]]; then
    for __berth_entry in "${PROMPT_COMMAND[@]}"; do
      [[ $__berth_entry == __berth_capture ]] || __berth_kept+=("$__berth_entry")
    done
    PROMPT_COMMAND=("${__berth_kept[@]}" __berth_capture)
  elif ((BASH_VERSINFO[0] > 5 || (BASH_VERSINFO[0] == 5 && BASH_VERSINFO[1] >= 1))); then
    if [[ -n ${PROMPT_COMMAND-} ]]; then
      PROMPT_COMMAND=("$PROMPT_COMMAND" __berth_capture)
    else
      PROMPT_COMMAND=(__berth_capture)
    fi
  elif [[ ${PROMPT_COMMAND-} != *__berth_capture* ]]; then
    PROMPT_COMMAND=${PROMPT_COMMAND:+$PROMPT_COMMAND$'\n'}__berth_capture
  fi
}

builtin shopt "$__berth_expand" expand_aliases
__berth_hook
builtin trap __berth_capture USR1
if [[ -z $(builtin trap -p WINCH) ]]; then
  builtin trap : WINCH
fi

if [[ -n $__berth_saved_cwd ]]; then
  __berth_text=${OLDPWD-}
  if builtin cd -- "$__berth_saved_cwd" 2>/dev/null; then
    OLDPWD=$__berth_text
  else
    __berth_notice+="; $__berth_saved_cwd no longer exists, starting in $HOME"
  fi
fi
if [[ -n $__berth_notice ]]; then
  builtin printf '[berth] %s\n' "$__berth_notice" >&2
fi
builtin unset __berth_text __berth_lines __berth_split __berth_slot __berth_best
builtin unset __berth_best_end __berth_end __berth_best_generation __berth_notice __berth_saved_cwd __berth_saved_root
builtin unset __berth_restoring __berth_expand
if [[ -n $__berth_options ]]; then
  # History is off while bash reads its startup files and comes on after them; turned on here,
  # the options' own lines would land in it.
  __berth_options=${__berth_options//$'\n'"set -o history"$'\n'/$'\n'}
  builtin eval "$__berth_options" 2>/dev/null || :
else
  case $__berth_flags in *e*) builtin set -o errexit ;; esac
  case $__berth_flags in *u*) builtin set -o nounset ;; esac
  case $__berth_flags in *v*) builtin set -o verbose ;; esac
  case $__berth_flags in *x*) builtin set -o xtrace ;; esac
fi
builtin unset __berth_options __berth_flags
