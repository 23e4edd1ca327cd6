# bash completion for feed, tally, tgread, tgcheck, tgpush, tgsynth and tgserve. Each binary
# completes its own command line: it is given the words before the cursor,
# the word under it (empty or not) and --generate-bash-completion, and
# prints its flags, or the values of the flag before the cursor
# (tgread --format <TAB>). It never runs the command, even after "--".
# Where it prints nothing (a store, a tally store, a tape, a cursor file),
# bash completes file names. Install: source it from ~/.bashrc, or copy
# it to /usr/share/bash-completion/completions/NAME for each binary or to
# /etc/bash_completion.d/timbertally (docs/completion.md).
_timbertally_complete() {
	local cur opts
	COMPREPLY=()
	cur="${COMP_WORDS[COMP_CWORD]}"
	opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	return 0
}
complete -o bashdefault -o default -F _timbertally_complete feed tally tgread tgcheck tgpush tgsynth tgserve
