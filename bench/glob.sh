#!/bin/sh
# bench/glob.sh: what a glob of many slowly growing files costs feed at the
# live edge: its CPU (utime + stime from /proc, as a share of one core) and
# its resident memory (VmRSS), for a glob of SMALL and of LARGE files, run
# side by side (SMALL, LARGE, SMALL, LARGE, ... RUNS times), so that the
# memory per store is the slope between the two.
#
#   bench/glob.sh                   # 1000 and 100 files, 30 s each, 2 runs
#   LARGE=1000 SMALL=100 SECS=30 RUNS=2 bench/glob.sh
#
# Each file gets one line every SPREAD seconds (default 10: 100 lines/s in
# all for 1000 files), written by a shell loop; the consumer is tally --run
# with the built-in apache-combined document. Needs: go, /proc.
set -eu

LARGE=${LARGE:-1000}
SMALL=${SMALL:-100}
SECS=${SECS:-30}
RUNS=${RUNS:-2}
SPREAD=${SPREAD:-10}
WARM=${WARM:-5}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/timbertally-bench}/glob
BIN=$W/bin
mkdir -p "$W" "$BIN"
(cd "$ROOT" && go build -o "$BIN/" ./cmd/feed ./cmd/tally ./cmd/tgsynth)
[ -f "$W/lines" ] || "$BIN/tgsynth" -n 200000 -seed 3 -o "$W/lines"
tick=$(getconf CLK_TCK)

# cpu PID: utime + stime of PID, in clock ticks.
cpu() { awk '{ print $14 + $15 }' "/proc/$1/stat"; }

# one N: follows N files for WARM + SECS seconds; prints "N cpu% rss_kib".
one() {
	n=$1 d=$W/run$1
	rm -rf "$d" && mkdir -p "$d/logs"
	i=0
	while [ $i -lt "$n" ]; do head -n 3 "$W/lines" > "$d/logs/f$i.log"; i=$((i + 1)); done
	"$BIN/tally" --provision --doc apache-combined "$d/t" 2>/dev/null
	"$BIN/feed" -q --follow --cursor "$d/c" --glob "$d/logs/*.log" -- "$BIN/tally" --run "$d/t" &
	feed=$!
	# The writer: one line to n/SPREAD files a second, round robin, each
	# file opened for the line and closed, as a server's append is.
	awk -v n="$n" -v per=$((n / SPREAD)) -v d="$d/logs" 'NR > 3 {
		f = d "/f" (k % n) ".log"; print >> f; close(f)
		if (++k % per == 0) system("sleep 1")
	}' "$W/lines" &
	writer=$!
	sleep "$WARM"
	c0=$(cpu $feed)
	sleep "$SECS"
	c1=$(cpu $feed)
	rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$feed/status")
	kill $writer 2>/dev/null || true
	kill -INT $feed
	wait $feed 2>/dev/null || true
	awk -v n="$n" -v c=$((c1 - c0)) -v t="$tick" -v s="$SECS" -v r="$rss" 'BEGIN { printf "%d %.2f %d\n", n, 100 * c / t / s, r }'
}

echo "bench: glob of $SMALL and $LARGE files, $SECS s each after $WARM s, $RUNS runs, 1 line per file per $SPREAD s" >&2
out=$W/results
: > "$out"
r=0
while [ $r -lt "$RUNS" ]; do
	one "$SMALL" >> "$out"
	one "$LARGE" >> "$out"
	r=$((r + 1))
done
awk -v small="$SMALL" -v large="$LARGE" '
	{ cpu[$1] = cpu[$1] " " $2; rss[$1] = rss[$1] " " $3; rs[$1] += $3; k[$1]++ }
	END {
		printf "files  feed CPU %% of a core (each run)   VmRSS KiB (each run)\n"
		printf "%5d %s   %s\n", small, cpu[small], rss[small]
		printf "%5d %s   %s\n", large, cpu[large], rss[large]
		printf "memory per store: %.0f bytes (mean VmRSS slope between %d and %d files)\n",
			(rs[large] / k[large] - rs[small] / k[small]) * 1024 / (large - small), small, large
	}' "$out"
