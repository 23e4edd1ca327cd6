#!/bin/sh
# bench/receiver.sh: tgcheck --receiver's memory and time against the size
# of the tape: two stores, one ten times the other, pushed into a real
# VictoriaMetrics (which takes samples of any age), each read back whole;
# the peak RSS of tgcheck should not grow with the tape (windows of
# --query-samples), its time should grow linearly.
#
#   bench/receiver.sh                  # ~3 min on 2 cores
#   N=200000 bench/receiver.sh         # the smaller store's lines (the larger: 10 N)
#
# Starts Debian's victoria-metrics on a free 127.0.0.1 port with a
# temporary data dir, and stops it at the end. Needs: go, victoria-metrics,
# curl, python3, /usr/bin/time.
set -eu

N=${N:-100000}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/tgcheck-receiver-bench.XXXXXX")
BIN=$W/bin
VM_PID=
cleanup() {
	[ -n "$VM_PID" ] && kill "$VM_PID" 2>/dev/null && wait "$VM_PID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT
die() { echo "bench: $*" >&2; exit 1; }
for c in victoria-metrics curl python3 /usr/bin/time; do
	command -v $c >/dev/null || die "$c is missing; apt-get install it and run again"
done

mkdir -p "$BIN"
(cd "$ROOT" && go build -o "$BIN/" ./cmd/feed ./cmd/tally ./cmd/tgpush ./cmd/tgcheck ./cmd/tgsynth)
PATH=$BIN:$PATH

PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
URL=http://127.0.0.1:$PORT
victoria-metrics -storageDataPath="$W/vm" -httpListenAddr=127.0.0.1:$PORT -retentionPeriod=100y \
	-dedup.minScrapeInterval=1ms -search.latencyOffset=0s >"$W/vm.log" 2>&1 &
VM_PID=$!
until curl -sf "$URL/health" >/dev/null; do sleep 0.05; done

cat > "$W/bench.tally" <<'DOC'
format apache-combined
window 10s grace=0s
cap 100000
metric requests count by=status,path
metric bytes sum=bytes by=status,path
DOC
RATE=20
for n in "$N" "$((N * 10))"; do
	START=$(date -u -d "@$(( $(date +%s) - n / RATE - 60 ))" +%Y-%m-%dT%H:%M:%SZ)
	tgsynth -n "$n" -rate $RATE -paths 20 -start "$START" -o "$W/access.log"
	rm -rf "$W/st"
	tally --provision --doc "$W/bench.tally" "$W/st" >/dev/null
	feed -q "$W/access.log" -- tally --run "$W/st"
	tgpush --once -q --label bench=$n --url "$URL/api/v1/write" "$W/st"
	curl -sf "$URL/internal/force_flush" >/dev/null
	/usr/bin/time -f '%M %e' -o "$W/time" tgcheck --receiver "$URL" --label bench=$n "$W/st" >"$W/out" || { cat "$W/out"; die "tgcheck did not hold"; }
	read -r rss secs < "$W/time"
	samples=$(sed -n "s/.*holds every one of the tape's \([0-9]*\) samples.*/\1/p" "$W/out")
	echo "lines $n: $samples samples read back, tgcheck peak RSS ${rss} KiB, ${secs} s"
done
