#!/bin/sh
# bench/bigbucket.sh: tgpush's peak RSS and CPU on buckets larger than its
# read (issue 29: "a group larger than the bound is streamed"). A log of
# MINUTES minutes with PATHS distinct paths each, a by=path document of
# one-minute buckets: each bucket's group is PATHS series lines (400 000:
# ~20 MB of tape, ten times tgpush's 2 MiB read). Pushed into a fresh
# VictoriaMetrics (-dedup.minScrapeInterval=1ms) on a free 127.0.0.1 port,
# by this tree's tgpush and, with BASE=REV, by REV's too, each into its
# own fresh receiver; GNU time gives peak RSS and CPU.
#
#   bench/bigbucket.sh                     # ~1 minute on 2 cores
#   BASE=40e87e9 bench/bigbucket.sh        # and REV's tgpush, side by side
# Needs: go, victoria-metrics, python3, curl, GNU time (/usr/bin/time).
set -eu

PATHS=${PATHS:-400000}
MINUTES=${MINUTES:-2}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
W=$(mktemp -d "${TMPDIR:-/tmp}/bigbucket.XXXXXX")
RPID=
cleanup() {
	[ -n "$RPID" ] && kill "$RPID" 2>/dev/null && wait "$RPID" 2>/dev/null
	rm -rf "$W"
}
trap cleanup EXIT

mkdir -p "$W/bin"
(cd "$ROOT" && GOBIN=$W/bin go install ./cmd/feed ./cmd/tally ./cmd/tgpush)
if [ -n "${BASE:-}" ]; then
	git -C "$ROOT" worktree add -q --detach "$W/base" "$BASE"
	(cd "$W/base" && go build -o "$W/bin/tgpush.base" ./cmd/tgpush)
	git -C "$ROOT" worktree remove --force "$W/base"
fi
PATH=$W/bin:$PATH

python3 - "$W/access.log" "$PATHS" "$MINUTES" <<'PY'
import sys
path, paths, minutes = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
with open(path, "w") as f:
    for m in range(minutes):
        for p in range(paths):
            f.write('10.0.%d.%d - - [01/Dec/2026:11:%02d:%02d +0000] "GET /m%d/p%07d HTTP/1.1" 200 %d "-" "curl/8"\n'
                    % (p % 200, p % 250, m, p % 60, m, p, 100 + p % 900))
PY
printf 'format apache-combined\nwindow 1m\ncap %d\nmetric requests count by=path\n' "$PATHS" >"$W/doc"
tally --provision --doc "$W/doc" "$W/st" >/dev/null
feed -q "$W/access.log" -- tally --run "$W/st"
echo "tape: $(wc -c <"$W/st/tape") bytes, $MINUTES groups of $PATHS series"

port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
printf '%-12s %10s %10s %14s\n' tgpush "wall s" "CPU s" "peak RSS MiB"
for b in tgpush ${BASE:+tgpush.base}; do
	P=$(port)
	rm -rf "$W/vm"
	victoria-metrics -storageDataPath="$W/vm" -httpListenAddr=127.0.0.1:$P -dedup.minScrapeInterval=1ms \
		-retentionPeriod=100y >"$W/vm.log" 2>&1 &
	RPID=$!
	until curl -sf "http://127.0.0.1:$P/health" >/dev/null; do sleep 0.1; done
	/usr/bin/time -f '%e %U %S %M' -o "$W/time" "$b" --once -q --cursor "$W/$b.cursor" \
		--url "http://127.0.0.1:$P/api/v1/write" "$W/st"
	read -r wall user sys rss <"$W/time"
	printf '%-12s %10s %10.2f %14.1f\n' "$b" "$wall" "$(echo "$user + $sys" | bc)" "$(echo "$rss / 1024" | bc -l)"
	kill "$RPID"; wait "$RPID" 2>/dev/null || true; RPID=
done
