#!/bin/sh
# bench/run.sh: timbertally's speed and memory, measured side by side.
#
# Builds the binaries, generates a 2 000 000-line Apache combined log with
# the project's own deterministic generator (seed 1), runs every figure
# RUNS times and prints the medians, wall and CPU seconds, with the ratios
# the project's goals are stated in (bench/README.md says what each row is
# and the goals).
#
#   bench/run.sh              # everything, ~5 minutes on 2 cores
#   RUNS=3 bench/run.sh       # fewer runs per figure
#   N=500000 bench/run.sh     # a shorter log (the pipeline goals need 2 000 000)
#   BIG=0 bench/run.sh        # skip the 5 000 000-line memory figure
#   FORMATS=0 bench/run.sh    # skip the configurable formats' figures (FN lines each, 500 000)
#   FREAL=0 bench/run.sh      # the formats' figures on tgsynth's plain lines, not --realistic
#
# Needs: go, python3 (the timer), /usr/bin/time (GNU time), taskset; mawk
# for the awk row (installed with apt-get when possible, else the row is
# skipped).
set -eu

RUNS=${RUNS:-5}
N=${N:-2000000}
BIG=${BIG:-1}
FORMATS=${FORMATS:-1}
FN=${FN:-500000}
BIG_N=${BIG_N:-5000000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=${BENCH_DIR:-${TMPDIR:-/tmp}/timbertally-bench}
BIN=$W/bin
LOG=$W/access.log

die() { echo "bench: $*" >&2; exit 1; }
command -v python3 >/dev/null || die "python3 is missing (the timer); install it (apt-get install -y python3) and run again"
[ -x /usr/bin/time ] || die "GNU time is missing at /usr/bin/time; install it (apt-get install -y time) and run again"
command -v taskset >/dev/null || die "taskset is missing; install util-linux and run again"

mkdir -p "$W" "$BIN"
echo "bench: building into $BIN" >&2
(cd "$ROOT" && go build -o "$BIN/" ./cmd/feed ./cmd/tally ./cmd/tgread ./cmd/tgsynth ./lib/internal/feed/internal/ackconsumer)

# gen FILE N [synth flags]: generate once; the generator is deterministic,
# so an existing file of the same flags is the same bytes.
gen() {
	f=$1 n=$2
	shift 2
	stamp="$f.flags"
	if [ ! -f "$f" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$n $*" ]; then
		echo "bench: generating $f ($n lines)" >&2
		"$BIN/tgsynth" --lines "$n" --seed 1 "$@" --output "$f"
		echo "$n $*" >"$stamp"
	fi
}
gen "$LOG" "$N"

if ! command -v mawk >/dev/null; then
	if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
		echo "bench: installing mawk" >&2
		apt-get install -y mawk >/dev/null 2>&1 || true
	fi
fi

# median [COLUMN]: the median of column COLUMN (default 1) of the lines on stdin.
median() { awk -v c="${1:-1}" '{ print $c }' | sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# The timer: runs its arguments with stdout discarded and prints their
# wall seconds and CPU seconds (user + system of the command and of every
# child it waited for: feed's include its consumer's), to the microsecond
# (GNU time's %e, %U and %S have only 10 ms).
cat >"$W/timer.py" <<'EOF'
import resource, subprocess, sys, time
before = resource.getrusage(resource.RUSAGE_CHILDREN)
t0 = time.perf_counter()
status = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
t1 = time.perf_counter()
after = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
print("%.4f %.4f" % (t1 - t0, cpu))
sys.exit(status)
EOF

# seconds CMD...: "WALL CPU" seconds of one run of CMD (its output discarded).
seconds() {
	python3 "$W/timer.py" "$@" 2>"$W/stderr" || {
		cat "$W/stderr" >&2
		die "failed: $*"
	}
}

# medians NAME FILE: sets T_NAME and C_NAME, the median wall and CPU
# seconds of the runs in FILE.
medians() { eval "T_$1=$(median 1 <"$2") C_$1=$(median 2 <"$2")"; }

# measure NAME CMD...: median wall (T_NAME) and CPU (C_NAME) seconds of RUNS runs of CMD.
measure() {
	name=$1
	shift
	i=0
	: >"$W/runs"
	while [ "$i" -lt "$RUNS" ]; do
		seconds "$@" >>"$W/runs"
		i=$((i + 1))
	done
	medians "$name" "$W/runs"
}

# pipeline B LOG: one feed ... -- tally --run over a freshly provisioned
# tally store (provisioning is outside the time).
pipeline() {
	rm -rf "$W/store" "$W/cursor"
	"$BIN/tally" --provision --doc apache-combined "$W/store" 2>/dev/null
	seconds "$BIN/feed" -q --cursor "$W/cursor" --batch-size "$1" "$2" -- "$BIN/tally" --run "$W/store"
}

# peak_rss LOG: peak RSS in KiB of feed and of tally --run (each process on
# its own) for the pipeline at the default batch size. tally's is exact
# (GNU time around it); feed's is its VmHWM (its own high-water mark),
# sampled every 20 ms until it exits.
peak_rss() {
	rm -rf "$W/store" "$W/cursor"
	"$BIN/tally" --provision --doc apache-combined "$W/store" 2>/dev/null
	"$BIN/feed" -q --cursor "$W/cursor" "$1" -- /usr/bin/time -f '%M' -o "$W/tally.rss" "$BIN/tally" --run "$W/store" &
	pid=$!
	hwm=0
	while kill -0 "$pid" 2>/dev/null; do
		h=$(awk '/^VmHWM:/ { print $2 }' "/proc/$pid/status" 2>/dev/null || true)
		[ -n "$h" ] && hwm=$h
		sleep 0.02
	done
	wait "$pid" || die "the pipeline over $1 failed"
	echo "$hwm $(tail -n 1 "$W/tally.rss")"
}

# A document of the built-in shape, by=LABELS, cap raised past any series count.
bydoc() {
	printf 'format apache-combined\nwindow 10s grace=60s\ncap 1000000\nmetric requests count by=%s\nmetric bytes sum=bytes by=%s\n' "$1" "$1" >"$W/by-$1.tally"
	echo "$W/by-$1.tally"
}

# The awk a user would write: requests and bytes by status per 10 s of the
# line's own time, the same numbers as tally's (checked below). mktime reads
# the line's wall clock as UTC (TZ=UTC); the zone ($5) is then taken off by
# hand; lines of the same second share one mktime.
cat >"$W/status.awk" <<'EOF'
BEGIN {
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
	for (i = 1; i <= 12; i++) mon[m[i]] = i
}
$4 $5 != last {
	last = $4 $5
	t = mktime(substr($4, 9, 4) " " mon[substr($4, 5, 3)] " " substr($4, 2, 2) " " substr($4, 14, 2) " " substr($4, 17, 2) " " substr($4, 20, 2))
	t -= (substr($5, 2, 2) * 3600 + substr($5, 4, 2) * 60) * (substr($5, 1, 1) "1")
	w = t - t % 10
}
{ k = w " " $9; n[k]++; b[k] += $10 }
END { for (k in n) print k, n[k], b[k] }
EOF
# The plain script, as the goal names it: the same, with mktime on every
# line (status.awk's one mktime a second is an optimisation of it).
cat >"$W/plain.awk" <<'EOF'
BEGIN {
	split("Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec", m, " ")
	for (i = 1; i <= 12; i++) mon[m[i]] = i
}
{
	t = mktime(substr($4, 9, 4) " " mon[substr($4, 5, 3)] " " substr($4, 2, 2) " " substr($4, 14, 2) " " substr($4, 17, 2) " " substr($4, 20, 2))
	t -= (substr($5, 2, 2) * 3600 + substr($5, 4, 2) * 60) * (substr($5, 1, 1) "1")
	k = (t - t % 10) " " $9; n[k]++; b[k] += $10
}
END { for (k in n) print k, n[k], b[k] }
EOF
# The shortcut: "[10/Oct/2026:13:55:36" cut to its tens of seconds, zones
# ignored. Faster, and wrong for every line not logged at +0000 (10% of the
# generated ones): shown for scale only.
cat >"$W/shortcut.awk" <<'EOF'
{ k = substr($4, 2, 19) " " $9; n[k]++; b[k] += $10 }
END { for (k in n) print k, n[k], b[k] }
EOF

# same_as_tally: whether status.awk's numbers over LOG are tally's, window
# by window and status by status (tally's windows read back with tgread).
same_as_tally() {
	TZ=UTC mawk -f "$W/status.awk" "$LOG" | sort >"$W/awk.out"
	TZ=UTC mawk -f "$W/plain.awk" "$LOG" | sort | cmp -s - "$W/awk.out" || return 1
	"$BIN/tally" --try --doc apache-combined "$LOG" | "$BIN/tgread" --format tsv - |
		awk -F '\t' 'NR > 1 { split($3, s, "="); k = $1 " " s[2]; if ($2 == "requests") n[k] = $4; else b[k] = $4 }
			END { for (k in n) print k, n[k], b[k] }' |
		TZ=UTC mawk '{ split($1, d, /[-T:Z]/); print mktime(d[1] " " d[2] " " d[3] " " d[4] " " d[5] " " d[6]), $2, $3, $4 }' |
		sort >"$W/tally.out"
	cmp -s "$W/awk.out" "$W/tally.out"
}

entries=$N
echo "bench: $RUNS runs per figure over $entries lines ($(wc -c <"$LOG") bytes), $(nproc) cores" >&2
measure cat cat "$LOG"
measure wc wc -l "$LOG"
if command -v mawk >/dev/null; then
	measure mawk env TZ=UTC mawk -f "$W/status.awk" "$LOG"
	measure plain env TZ=UTC mawk -f "$W/plain.awk" "$LOG"
	measure shortcut mawk -f "$W/shortcut.awk" "$LOG"
	if same_as_tally; then
		AWK_NOTE="the same numbers as tally's (compared)"
	else
		AWK_NOTE="NOT the same numbers as tally's: see $W/awk.out, $W/tally.out"
	fi
else
	echo "bench: mawk is not installed and could not be (apt-get install -y mawk as root); skipping its row" >&2
	T_mawk= T_plain=
fi
# The extractor and the pipelines are measured in interleaved rounds (one
# run of each per round), so that a machine whose speed drifts during the
# run (a shared VM) biases none of the ratios between them.
: >"$W/try.runs" >"$W/p512.runs" >"$W/p4096.runs" >"$W/p65536.runs"
for b in 512 65536; do : >"$W/a$b.runs" >"$W/s$b.runs" >"$W/w$b.runs"; done
i=0
while [ "$i" -lt "$RUNS" ]; do
	seconds taskset -c 0 "$BIN/tally" --try --doc apache-combined "$LOG" >>"$W/try.runs"
	for b in 512 4096 65536; do
		pipeline "$b" "$LOG" >>"$W/p$b.runs"
	done
	# feed alone: ackconsumer -poll polls for each batch as tally does
	# without a window; without it, it sleeps between batches (s: the
	# sleeper's wake-up, once a batch, is then the consumer's cost in feed's
	# figure); -window asks for feed's window, as tally does (w).
	for b in 512 65536; do
		seconds "$BIN/feed" -q --batch-size "$b" "$LOG" -- "$BIN/ackconsumer" -poll >>"$W/a$b.runs"
		seconds "$BIN/feed" -q --batch-size "$b" "$LOG" -- "$BIN/ackconsumer" >>"$W/s$b.runs"
		seconds "$BIN/feed" -q --batch-size "$b" "$LOG" -- "$BIN/ackconsumer" -window >>"$W/w$b.runs"
	done
	i=$((i + 1))
done
for b in 512 65536; do
	medians "a$b" "$W/a$b.runs"
	medians "s$b" "$W/s$b.runs"
	medians "w$b" "$W/w$b.runs"
done
for f in try p512 p4096 p65536; do
	medians "$f" "$W/$f.runs"
done

# Cardinality: by=path over logs of 10, 1 000 and 100 000 distinct paths,
# against by=status over the last of them, in interleaved rounds too (the
# by=path / by=status ratio is a goal).
for p in 10 1000 100000; do
	gen "$W/paths$p.log" "$N" -paths "$p"
	"$BIN/tally" --try --doc "$(bydoc path)" "$W/paths$p.log" | grep -c '^[0-9].* requests' >"$W/series$p" || true
	: >"$W/path$p.runs"
done
: >"$W/status100000.runs"
i=0
while [ "$i" -lt "$RUNS" ]; do
	for p in 10 1000 100000; do
		seconds taskset -c 0 "$BIN/tally" --try --doc "$(bydoc path)" "$W/paths$p.log" >>"$W/path$p.runs"
	done
	seconds taskset -c 0 "$BIN/tally" --try --doc "$(bydoc status)" "$W/paths100000.log" >>"$W/status100000.runs"
	i=$((i + 1))
done
for f in path10 path1000 path100000 status100000; do
	medians "$f" "$W/$f.runs"
done

# The configurable formats: tally --try over FN (500 000) generated lines
# of each, requests and bytes by status as apache-combined counts them, in
# interleaved rounds with the built-in over a combined log of as many
# lines; and, once each, Python and jq computing the same numbers from the
# JSON lines. Their ratios are of CPU seconds: on the shared machine wall
# time varied 3x between runs of one command, CPU time 5%.
if [ "$FORMATS" = 1 ]; then
	# The real world's hard cases in their shares (tgsynth --realistic,
	# one damaged line in a thousand); FREAL=0 for the plain lines the
	# figures before session 9 were taken on.
	real=
	[ "${FREAL:-1}" = 1 ] && real="-realistic -malformed 0.001"
	gen "$W/fcombined.log" "$FN" $real
	gen "$W/timed.log" "$FN" -format apache-timed $real
	gen "$W/nginx.log" "$FN" -format nginx $real
	gen "$W/json.log" "$FN" -format json $real
	gen "$W/logfmt.log" "$FN" -format logfmt $real
	m='window 10s grace=60s
metric requests count by=status'
	printf 'format apache combined\n%s\nmetric bytes sum=bytes by=status\n' "$m" >"$W/lf-combined.tally"
	printf 'format apache "%%h %%l %%u %%t \\"%%r\\" %%>s %%b \\"%%{Referer}i\\" \\"%%{User-Agent}i\\" %%D %%v \\"%%{X-Forwarded-For}i\\""\n%s\nmetric bytes sum=bytes by=status\n' "$m" >"$W/lf-timed.tally"
	printf 'format nginx '"'"'$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" $request_time $upstream_response_time'"'"'\n%s\nmetric bytes sum=body_bytes_sent by=status\n' "$m" >"$W/nginx.tally"
	printf 'format json\ntime ts layout=unix\n%s\nmetric bytes sum=size by=status\n' "$m" >"$W/json.tally"
	printf 'format logfmt\ntime ts layout=rfc3339\n%s\nmetric bytes sum=size by=status\n' "$m" >"$W/logfmt.tally"
	set -- fbuiltin:apache-combined:"$W/fcombined.log" flfcombined:"$W/lf-combined.tally":"$W/fcombined.log" \
		flftimed:"$W/lf-timed.tally":"$W/timed.log" fnginx:"$W/nginx.tally":"$W/nginx.log" \
		fjson:"$W/json.tally":"$W/json.log" flogfmt:"$W/logfmt.tally":"$W/logfmt.log"
	for c in "$@"; do : >"$W/${c%%:*}.runs"; done
	i=0
	while [ "$i" -lt "$RUNS" ]; do
		for c in "$@"; do
			name=${c%%:*} rest=${c#*:}
			seconds taskset -c 0 "$BIN/tally" --try --doc "${rest%%:*}" "${rest#*:}" >>"$W/$name.runs"
		done
		i=$((i + 1))
	done
	for c in "$@"; do
		name=${c%%:*} rest=${c#*:}
		medians "$name" "$W/$name.runs"
		eval "B_$name=$(wc -c <"${rest#*:}")"
	done
	cat >"$W/status.py" <<'EOF'
import json, sys
n, b = {}, {}
for line in open(sys.argv[1], "rb"):
    o = json.loads(line.decode("utf-8", "surrogateescape"))
    k = (int(o["ts"] // 10 * 10), o["status"])
    n[k] = n.get(k, 0) + 1
    b[k] = b.get(k, 0) + o.get("size", 0)
for k in n:
    print(k[0], k[1], n[k], b[k])
EOF
	seconds python3 "$W/status.py" "$W/json.log" >"$W/python.runs"
	medians python "$W/python.runs"
	# jq takes ~300 µs an entry: it reads the first 50 000 lines, and its
	# times are scaled to FN lines.
	T_jq=
	if command -v jq >/dev/null; then
		head -n 50000 "$W/json.log" >"$W/json50k.log"
		seconds jq -rn 'reduce inputs as $l ({}; .["\(($l.ts / 10 | floor) * 10) \($l.status)"] |= {n: (.n + 1), b: (.b + $l.size)}) | to_entries[] | "\(.key) \(.value.n) \(.value.b)"' "$W/json50k.log" |
			awk -v n="$FN" '{ printf "%.4f %.4f\n", $1 * n / 50000, $2 * n / 50000 }' >"$W/jq.runs"
		medians jq "$W/jq.runs"
	fi
fi

set -- $(peak_rss "$LOG")
R_feed=$1 R_tally=$2
if [ "$BIG" = 1 ]; then
	gen "$W/big.log" "$BIG_N"
	set -- $(peak_rss "$W/big.log")
	R_bigfeed=$1 R_bigtally=$2
fi

# The table: figure, median wall and CPU seconds, entries/s (by the wall
# time), and a note with the ratios.
rate() { awk -v n="$1" -v t="$2" 'BEGIN { if (t > 0) printf "%.0f", n / t; else print "-" }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2f", a / b; else print "-" }'; }
# row FIGURE NAME NOTE: a line of the table for the medians T_NAME and C_NAME.
row() {
	eval "t=\$T_$2 c=\$C_$2"
	printf '%-47s %8s %8s %12s   %s\n' "$1" "$t" "$c" "$(rate "$entries" "$t")" "$3"
}

printf '\n%-47s %8s %8s %12s   %s\n' "figure ($entries lines, median of $RUNS)" "seconds" "CPU s" "entries/s" "notes"
row "cat FILE >/dev/null" cat "floor: reading the bytes"
row "wc -l FILE" wc "floor: a bare line count"
if [ -n "$T_mawk" ]; then
	row "mawk, plain (mktime every line)" plain "what a user would write: $AWK_NOTE"
	row "mawk (requests, bytes by status per 10 s)" mawk "the same, one mktime a second"
	row "mawk, zones ignored (wrong numbers)" shortcut "a shortcut, for scale only"
fi
row "tally --try --doc apache-combined (1 core)" try "extractor alone; x plain mawk: $(ratio "$T_plain" "$T_try") (goal >= 5), x mawk: $(ratio "$T_mawk" "$T_try")"
for b in 512 4096 65536; do
	eval "t=\$T_p$b c=\$C_p$b"
	row "feed --batch-size $b -- tally --run" "p$b" "pipeline / extractor: speed $(ratio "$T_try" "$t") (goal >= 0.95), CPU $(ratio "$c" "$C_try") (goal <= 1.3)"
done
echo "    512 vs 65536: $(ratio "$T_p512" "$T_p65536")x the time (goal <= 1.15)"
for b in 512 65536; do
	row "feed --batch-size $b -- ackconsumer -poll" "a$b" "feed alone (goal at 512: >= 5000000 entries/s)"
done
echo "    512 vs 65536: $(ratio "$T_a512" "$T_a65536")x the time (goal <= 1.15)"
for b in 512 65536; do
	row "feed --batch-size $b -- ackconsumer" "s$b" "feed alone, a consumer that sleeps between batches"
done
echo "    512 vs 65536: $(ratio "$T_s512" "$T_s65536")x the time (its wake-up, once a batch)"
for b in 512 65536; do
	row "feed --batch-size $b -- ackconsumer -window" "w$b" "feed alone, a consumer that asks for the window"
done
echo "    512 vs 65536: $(ratio "$T_w512" "$T_w65536")x the time"
for p in 10 1000 100000; do
	row "tally --try by=path, $p paths (1 core)" "path$p" "$(cat "$W/series$p") bucket-series"
done
row "tally --try by=status, 100000 paths (1 core)" status100000 "by=path / by=status: $(ratio "$T_path100000" "$T_status100000") (goal <= 3)"
if [ "$FORMATS" = 1 ]; then
	all=$entries entries=$FN
	echo "  the formats, $FN lines each; ratios of CPU seconds:"
	# per_byte T BYTES: seconds per byte; mbs T BYTES: MB/s.
	per_byte() { awk -v t="$1" -v n="$2" 'BEGIN { print t / n }'; }
	mbs() { awk -v t="$1" -v n="$2" 'BEGIN { printf "%.0f MB/s", n / t / 1e6 }'; }
	pb=$(per_byte "$C_fbuiltin" "$B_fbuiltin")
	row "tally --try --doc apache-combined (1 core)" fbuiltin "$(mbs "$C_fbuiltin" "$B_fbuiltin") of CPU time"
	row "tally --try: format apache combined" flfcombined "built-in's CPU/entry / this: $(ratio "$C_fbuiltin" "$C_flfcombined") (goal >= 0.9)"
	row "tally --try: combined + %D %v XFF" flftimed "per entry $(ratio "$C_fbuiltin" "$C_flftimed") (goal >= 0.8), per byte $(ratio "$pb" "$(per_byte "$C_flftimed" "$B_flftimed")")"
	row "tally --try: nginx + \$request_time, upstream" fnginx "per entry $(ratio "$C_fbuiltin" "$C_fnginx"), per byte $(ratio "$pb" "$(per_byte "$C_fnginx" "$B_fnginx")") (goal >= 0.8)"
	row "tally --try: format json" fjson "$(mbs "$C_fjson" "$B_fjson"): $(ratio "$pb" "$(per_byte "$C_fjson" "$B_fjson")") of the built-in's bytes/s (goal >= 0.5)"
	row "tally --try: format logfmt" flogfmt "$(mbs "$C_flogfmt" "$B_flogfmt"): $(ratio "$pb" "$(per_byte "$C_flogfmt" "$B_flogfmt")") of the built-in's bytes/s (goal >= 0.5)"
	row "python3 json, the same numbers" python "/ format json: $(ratio "$C_python" "$C_fjson") (goal >= 10)"
	[ -n "$T_jq" ] && row "jq, the same numbers (50 000 lines, scaled)" jq "/ format json: $(ratio "$C_jq" "$C_fjson") (goal >= 10)"
	entries=$all
fi
printf '\npeak RSS (KiB)            feed      tally\n'
printf '  %9s lines  %9s  %9s\n' "$N" "$R_feed" "$R_tally"
if [ "$BIG" = 1 ]; then
	printf '  %9s lines  %9s  %9s\n' "$BIG_N" "$R_bigfeed" "$R_bigtally"
	echo "  $BIG_N / $N lines: feed $(ratio "$R_bigfeed" "$R_feed")x, tally $(ratio "$R_bigtally" "$R_tally")x (goal <= 1.2, each < 65536 KiB)"
fi
