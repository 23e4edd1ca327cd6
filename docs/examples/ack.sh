#!/bin/sh
# The smallest feed consumer (docs/protocol.md): it holds nothing across
# batches, so each batch is durable the moment it is read, and it reports
# offset = the batch's end (taken omitted means taken == offset).
while read -r kind a b c d _; do
	case $kind in
	batch)
		id=${a#id=} end=${c#end=} n=${d#entries=}
		while [ "$n" -gt 0 ] && read -r _; do n=$((n - 1)); done
		printf 'progress id=%s offset=%s\n' "$id" "$end"
		;;
	skip)
		printf 'progress id=%s offset=%s\n' "${a#id=}" "${c#end=}"
		;;
	feed) [ "$a" = v=1 ] || { printf 'ack.sh: protocol %s, want v=1\n' "$a" >&2; exit 1; } ;;
	esac
done
