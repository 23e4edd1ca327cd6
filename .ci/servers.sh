#!/usr/bin/env bash
# Builds the servers that the tests start and Debian does not package, once,
# into a cache folder: Prometheus 3 and Cortex (a distributed Prometheus).
# The tests find them there (testscripts/servers_test.go); a test whose
# server is absent skips naming this script, except under CI=true, where it
# fails. Run it by hand once on a development machine (~7 minutes on 2 cores).
#
#   .ci/servers.sh            # builds what is missing into $TIMBERTALLY_SERVERS
#                             # (default ~/.cache/timbertally/servers)
set -euo pipefail
export PATH="$PATH:/usr/local/go/bin"
dir="${TIMBERTALLY_SERVERS:-${XDG_CACHE_HOME:-$HOME/.cache}/timbertally/servers}"
mkdir -p "$dir"

prometheus_version=v0.316.0 # Prometheus 3.x as a Go module version
cortex_version=v1.21.1

if [ ! -x "$dir/prometheus3" ]; then
	tmp=$(mktemp -d)
	GOBIN="$tmp" go install "github.com/prometheus/prometheus/cmd/prometheus@$prometheus_version"
	mv "$tmp/prometheus" "$dir/prometheus3"
	rm -rf "$tmp"
fi

if [ ! -x "$dir/cortex" ]; then
	# The module cache is read-only; build in a writable copy. The tags are
	# the ones Cortex's own Makefile uses: without slicelabels its ingester
	# panics decoding labels.
	src=$(go mod download -json "github.com/cortexproject/cortex@$cortex_version" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')
	tmp=$(mktemp -d)
	cp -r "$src/." "$tmp/cortex"
	chmod -R u+w "$tmp/cortex"
	(cd "$tmp/cortex" && go build -tags "netgo slicelabels" -o "$dir/cortex" ./cmd/cortex)
	rm -rf "$tmp"
fi
echo "servers in $dir:"
ls -l "$dir"
