#!/bin/sh
# bench/push.sh: tgpush into real receivers (VictoriaMetrics and
# Prometheus): samples pushed a second, peak RSS and CPU seconds of tgpush
# and of the receiver for the same samples, on a high-cardinality tape
# (by=path over PATHS paths) and on the built-in document's; then the delay
# from a seal appended to the tape to its sample being queryable.
#
#   bench/push.sh                       # ~1-2 minutes on 2 cores
#   SECS=1800 RATE=1000 bench/push.sh   # half an hour of log at 1 000 lines/s
#   RECEIVERS=vm DELAYS=0 bench/push.sh # VictoriaMetrics only, no delay figure
#   BASE=main DELAYS=0 bench/push.sh    # also BASE's tgpush, side by side (rows "base")
#   FLOOR=0 bench/push.sh               # without the floor rows
#
# The floor rows (pushfloor) post the very request bodies tgpush sent
# (captured once per store) with Go's HTTP client, as tgpush sends them (a
# group's requests two at a time, the groups one after another), and do
# nothing else: what sending those samples costs at the least, the part of
# tgpush's CPU no reading, encoding or cursor can remove, and the
# receiver's pace when fed as fast as that order allows.
#
# Each receiver is started on a free 127.0.0.1 port with a temporary data
# dir (VictoriaMetrics with -dedup.minScrapeInterval=1ms, Prometheus with
# --web.enable-remote-write-receiver) and stopped at the end. The samples
# counted are the receiver's own (a count_over_time over everything),
# checked against what the tape holds; the CPU of the receiver is its
# user + system time from tgpush's start until every sample is queryable;
# tgpush's are from wait4 (CPU and peak RSS).
# Needs: go, victoria-metrics and/or prometheus, curl, jq, python3.
set -eu

SECS=${SECS:-3600}      # seconds of log
RATE=${RATE:-1000}      # log lines a second
PATHS=${PATHS:-2000}    # distinct paths of the high-cardinality tape
DELAYS=${DELAYS:-20}    # seals timed for the delay figure (0: none)
RECEIVERS=${RECEIVERS:-vm prometheus}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/tgpush-bench.XXXXXX")
BIN=$W/bin
RPID=
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
	[ -n "${PUSH_PID:-}" ] && kill "$PUSH_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

die() { echo "bench: $*" >&2; exit 1; }
for c in curl jq python3; do
	command -v $c >/dev/null || die "$c is missing; apt-get install $c and run again"
done

mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/" ./cmd/feed ./cmd/tally ./cmd/tgpush ./cmd/tgsynth ./bench/pushfloor)
PATH=$BIN:$PATH
# BASE: a commit whose tgpush is measured beside this tree's, on the same
# stores and receivers, in the same run.
TGPUSHES=tgpush
if [ -n "${BASE:-}" ]; then
	mkdir -p "$W/base"
	git -C "$ROOT" archive "$BASE" | tar -x -C "$W/base"
	(cd "$W/base" && go build -o "$BIN/tgpush.base" ./cmd/tgpush)
	TGPUSHES="tgpush.base tgpush"
fi
[ "${FLOOR:-1}" = 0 ] || TGPUSHES="$TGPUSHES floor"

freeport() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

# The stores: SECS of a RATE lines/s log ending a minute ago (inside
# Prometheus's head window), 10 s buckets; one by path (PATHS paths: the
# high-cardinality tape), one with the built-in document.
N=$((SECS * RATE))
START=$(date -u -d "@$(( $(date +%s) - SECS - 60 ))" +%Y-%m-%dT%H:%M:%SZ)
echo "bench: $N lines over $SECS s, $PATHS paths" >&2
tgsynth -n "$N" -rate "$RATE" -paths "$PATHS" -start "$START" -o "$W/access.log"
cat > "$W/bypath.tally" <<'DOC'
format apache-combined
window 10s grace=0s
cap 1000000
metric requests count by=path
metric bytes sum=bytes by=path
DOC
tally --provision --doc "$W/bypath.tally" "$W/bypath" >/dev/null
tally --provision --doc apache-combined "$W/builtin" >/dev/null
feed -q --cursor "$W/c1" "$W/access.log" -- tally --run "$W/bypath"
feed -q --cursor "$W/c2" "$W/access.log" -- tally --run "$W/builtin"
for s in bypath builtin; do
	seals=$(grep -c '^seal ' "$W/$s/tape") series=$(grep -vc '^seal \|^!\|^end \|^#' "$W/$s/tape")
	echo "bench: $s tape: $(wc -c <"$W/$s/tape") bytes, $seals groups, $series series lines" >&2
	# The samples tgpush sends: a series line's, and a sealed group's
	# timbertally_entries and timbertally_late_entries; a tape with markers
	# has more (by reason), so only a clean one is checked exactly.
	if grep -q '^!' "$W/$s/tape"; then echo "" >"$W/$s.expect"; else echo $((series + 2 * seals)) >"$W/$s.expect"; fi
done

# The floor's bodies: each store pushed once by this tree's tgpush into
# pushfloor capture, which keeps every request's body.
if [ "${FLOOR:-1}" != 0 ]; then
	for s in bypath builtin; do
		mkdir "$W/bodies.$s"
		PORT=$(freeport)
		pushfloor capture "127.0.0.1:$PORT" "$W/bodies.$s" & RPID=$!
		until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do sleep 0.05; done
		rm -rf "$W/bodies.$s"/*
		tgpush -q --once --cursor "$W/capture.$s" --url "http://127.0.0.1:$PORT/api/v1/write" "$W/$s"
		kill "$RPID"; wait "$RPID" 2>/dev/null || true; RPID=
		echo "bench: $s: tgpush sent $(ls "$W/bodies.$s" | wc -l) requests, $(du -sk "$W/bodies.$s" | cut -f1) KiB" >&2
	done
fi

start_vm() {
	PORT=$(freeport) URL=http://127.0.0.1:$PORT
	victoria-metrics -storageDataPath="$W/vm" -httpListenAddr=127.0.0.1:$PORT -dedup.minScrapeInterval=1ms \
		-search.latencyOffset=0s -search.disableCache >"$W/vm.log" 2>&1 &
	RPID=$!
	until curl -sf "$URL/health" >/dev/null; do sleep 0.05; done
}
start_prometheus() {
	PORT=$(freeport) URL=http://127.0.0.1:$PORT
	printf 'global: {}\n' > "$W/prometheus.yml"
	prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
		--web.listen-address=127.0.0.1:$PORT --web.enable-remote-write-receiver >"$W/prometheus.log" 2>&1 &
	RPID=$!
	until curl -sf "$URL/-/ready" >/dev/null; do sleep 0.05; done
}
stop_receiver() { kill "$RPID"; wait "$RPID" 2>/dev/null || true; RPID=; rm -rf "$W/vm" "$W/tsdb"; }

# push RECEIVER STORE: tgpush --once the store into the receiver, in a
# python3 that times it, reads tgpush's CPU and peak RSS from wait4 and the
# receiver's CPU from /proc before and after every sample is queryable.
push() {
	python3 - "$1" "$2" "$W/$2" "$URL" "$RPID" "$3" "$((SECS + 3600))" "$(cat "$W/$2.expect")" <<'PY'
import json, os, subprocess, sys, time, urllib.parse, urllib.request
recv, name, store, url, rpid, exe, window, expect = sys.argv[1:9]
tick = os.sysconf("SC_CLK_TCK")
def rcpu():
    f = open(f"/proc/{rpid}/stat").read().rsplit(")", 1)[1].split()
    return (int(f[11]) + int(f[12])) / tick
def rhwm():
    for l in open(f"/proc/{rpid}/status"):
        if l.startswith("VmHWM:"):
            return int(l.split()[1]) / 1024
def count():
    if recv == "vm":
        urllib.request.urlopen(url + "/internal/force_flush").read()
    # name by name: count_over_time drops the name, and Prometheus
    # refuses a vector of two series then alike
    with urllib.request.urlopen(url + "/api/v1/label/__name__/values") as r:
        names = json.load(r)["data"]
    n = 0
    for name in names:
        # over the whole log and more (a [3h] window saw 4.1 M of a ten
        # hours' 13.9 M samples)
        q = urllib.parse.urlencode({"query": 'sum(count_over_time({__name__="%s"}[%ss]))' % (name, window)})
        with urllib.request.urlopen(url + "/api/v1/query?" + q) as r:
            res = json.load(r)["data"]["result"]
        n += int(float(res[0]["value"][1])) if res else 0
    return n
c0, t0 = rcpu(), time.time()
cmd = [exe, "-q", "--once", "--cursor", store + "/cursor." + recv + exe, "--url", url + "/api/v1/write", store]
if exe == "floor":
    cmd = ["pushfloor", "replay", url + "/api/v1/write", os.path.dirname(store) + "/bodies." + name]
p = subprocess.Popen(cmd)
_, st, ru = os.wait4(p.pid, 0)
t1 = time.time()
if st != 0:
    sys.exit(f"bench: tgpush failed ({st})")
c1 = rcpu()
# every sample queryable: the count stops growing (polled, 60 s at most)
n, last, deadline = count(), -1, time.time() + 60
while n != last and time.time() < deadline:
    time.sleep(0.5)
    last, n = n, count()
c2 = rcpu()
if expect and n != int(expect):
    sys.exit(f"bench: {recv} holds {n} samples of {name}, the tape {expect}: not a figure (a push or a count went wrong)")
pc = ru.ru_utime + ru.ru_stime
d = t1 - t0
print(f"{exe:11s} {recv:10s} {name:8s} {n:9d} samples in {d:6.2f} s: {n / d:9.0f} samples/s; "
      f"sender {pc:5.2f} CPU s, peak RSS {ru.ru_maxrss / 1024:6.1f} MiB; "
      f"receiver {c1 - c0:5.2f} CPU s during the push ({c2 - c0:5.2f} until stored), peak RSS {rhwm():6.0f} MiB; "
      f"sender/receiver CPU {pc / max(c2 - c0, 1e-9):.2f}")
PY
}

for r in $RECEIVERS; do
	case $r in
	vm) command -v victoria-metrics >/dev/null || { echo "bench: victoria-metrics is missing (apt-get install victoria-metrics); skipped" >&2; continue; } ;;
	prometheus) command -v prometheus >/dev/null || { echo "bench: prometheus is missing (apt-get install prometheus); skipped" >&2; continue; } ;;
	esac
	for s in bypath builtin; do
		for x in $TGPUSHES; do
			start_$r
			push "$r" "$s" "$x"
			stop_receiver
		done
	done
done

[ "$DELAYS" -gt 0 ] || exit 0
command -v prometheus >/dev/null || die "prometheus is missing for the delay figure; DELAYS=0 skips it"
start_prometheus

# Delay: tgpush following a store at its default --poll 250ms and at
# --poll 20ms; the script appends a bucket's group (a series line and its
# seal, in one write, as tally does) at a random moment 0-300 ms after the
# last was queryable, and times it from the append to its
# timbertally_entries sample answering a query.
delay() {
	poll=$1 dir=$W/live$1
	tally --provision --doc apache-combined "$dir" >/dev/null
	tgpush -q --poll "$poll" --url "$URL/api/v1/write" --label bench="$poll" "$dir" &
	PUSH_PID=$!
	python3 - "$dir" "$URL" "$poll" "$DELAYS" > "$W/delays$poll" <<'PY'
import json, random, sys, time, urllib.parse, urllib.request
d, url, poll, n = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
base = (int(time.time()) - 3600) // 10 * 10
def queryable(k):
    # k samples of the bench's timbertally_entries answer (wherever in its
    # bucket tgpush stamps them)
    q = urllib.parse.urlencode({"query": 'timbertally_entries{bench="%s"}[100y]' % poll})
    with urllib.request.urlopen(url + "/api/v1/query?" + q) as r:
        res = json.load(r)["data"]["result"]
    return sum(len(s["values"]) for s in res) >= k
random.seed(16)
for i in range(n):
    time.sleep(random.uniform(0, 0.3))
    ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(base + 10 * i))
    with open(d + "/tape", "a") as f:
        f.write('%s requests{status="200"} 1\nseal %s width=10s entries=1 at=web:%d\n' % (ts, ts, i + 1))
    t0 = time.time()
    while not queryable(i + 1):
        time.sleep(0.001)
    print(t0, time.time())
PY
	kill "$PUSH_PID"; wait "$PUSH_PID" 2>/dev/null || true
	PUSH_PID=
	python3 - "$poll" "$W/delays$poll" <<'PY'
import statistics, sys
d = sorted((float(b) - float(a)) * 1000 for a, b in (l.split() for l in open(sys.argv[2])))
print(f"seal to queryable, --poll {sys.argv[1]}: median {statistics.median(d):.0f} ms, min {d[0]:.0f}, max {d[-1]:.0f} over {len(d)} seals")
PY
}
delay 250ms
delay 20ms
