#!/bin/sh
# bench/push.sh: tgpush into a real Prometheus: samples pushed a second,
# and the delay from a seal appended to the tape to its sample being
# queryable.
#
#   bench/push.sh                 # ~30 s on 2 cores
#   N=100000 DELAYS=10 bench/push.sh
#
# Starts Debian's prometheus (--web.enable-remote-write-receiver) on a free
# 127.0.0.1 port with a temporary data dir, and stops it at the end.
# Needs: go, prometheus, curl, jq, python3.
set -eu

N=${N:-300000}          # log lines for the throughput figure
DELAYS=${DELAYS:-20}    # seals timed for the delay figure
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/tgpush-bench.XXXXXX")
BIN=$W/bin
PROM_PID=
cleanup() {
	[ -n "$PROM_PID" ] && kill "$PROM_PID" 2>/dev/null && wait "$PROM_PID" 2>/dev/null
	[ -n "${PUSH_PID:-}" ] && kill "$PUSH_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

die() { echo "bench: $*" >&2; exit 1; }
for c in prometheus curl jq python3; do
	command -v $c >/dev/null || die "$c is missing; apt-get install $c and run again"
done

mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/" ./cmd/feed ./cmd/tally ./cmd/tgpush ./cmd/tgsynth)
PATH=$BIN:$PATH

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
printf 'global: {}\n' > "$W/prometheus.yml"
prometheus --config.file="$W/prometheus.yml" --storage.tsdb.path="$W/tsdb" \
	--web.listen-address=127.0.0.1:$PORT --web.enable-remote-write-receiver >"$W/prometheus.log" 2>&1 &
PROM_PID=$!
until curl -sf "$URL/-/ready" >/dev/null; do sleep 0.05; done

now() { python3 -c 'import time; print(time.time())'; }

# Throughput: a store of N lines ending a minute ago (inside the head's
# window), 10 s buckets, requests and bytes by status and path: ~400 series
# a bucket.
cat > "$W/bench.tally" <<'DOC'
format apache-combined
window 10s grace=0s
cap 100000
metric requests count by=status,path
metric bytes sum=bytes by=status,path
DOC
RATE=200
START=$(date -u -d "@$(( $(date +%s) - N / RATE - 60 ))" +%Y-%m-%dT%H:%M:%SZ)
tgsynth -n "$N" -rate $RATE -paths 20 -start "$START" -o "$W/access.log"
tally --provision --doc "$W/bench.tally" "$W/st" >/dev/null
feed -q "$W/access.log" -- tally --run "$W/st"
groups=$(grep -c '^seal ' "$W/st/tape")
t0=$(now)
tgpush -q --once --url "$URL/api/v1/write" "$W/st"
t1=$(now)
samples=$(curl -s "$URL/api/v1/query" --data-urlencode 'query={__name__!=""}[100y]' | jq '[.data.result[].values | length] | add')
python3 - "$t0" "$t1" "$samples" "$groups" <<'PY'
import sys
t0, t1, samples, groups = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
d = t1 - t0
print(f"throughput: {samples} samples in {groups} buckets (a request each) in {d:.2f} s: {samples/d:.0f} samples/s, {groups/d:.0f} buckets/s")
PY

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
def queryable(ms):
    q = urllib.parse.urlencode({"query": 'timbertally_entries{bench="%s"}[100y]' % poll})
    with urllib.request.urlopen(url + "/api/v1/query?" + q) as r:
        res = json.load(r)["data"]["result"]
    return any(round(float(v[0]) * 1000) == ms for s in res for v in s["values"])
random.seed(16)
for i in range(n):
    time.sleep(random.uniform(0, 0.3))
    ts = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(base + 10 * i))
    with open(d + "/tape", "a") as f:
        f.write('%s requests{status="200"} 1\nseal %s width=10s entries=1 at=web:%d\n' % (ts, ts, i + 1))
    t0 = time.time()
    while not queryable((base + 10 * i) * 1000):
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
