# bash completion for feed, tally, tgread, tgcheck and tgpush: urfave/cli v2's
# autocomplete/bash_autocomplete, bound to the five binaries. Flags come
# from the binary itself (--generate-bash-completion); anything else
# falls back to file names, which is what stores and tally stores are.
# Install: source it from ~/.bashrc, or copy it to
# /etc/bash_completion.d/timbertally (docs/completion.md).
_timbertally_complete() {
	local cur opts
	COMPREPLY=()
	cur="${COMP_WORDS[COMP_CWORD]}"
	if [[ "$cur" == "-"* ]]; then
		opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" "$cur" --generate-bash-completion 2>/dev/null)
	else
		opts=$("${COMP_WORDS[@]:0:$COMP_CWORD}" --generate-bash-completion 2>/dev/null)
	fi
	COMPREPLY=($(compgen -W "$opts" -- "$cur"))
	return 0
}
complete -o bashdefault -o default -F _timbertally_complete feed tally tgread tgcheck tgpush
