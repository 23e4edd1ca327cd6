#!/bin/sh
# The quick start: build the six binaries into ./bin, feed the bundled
# sample Apache log (5000 lines, five minutes of traffic) through tally,
# show what the tape says as a table and a chart, and prove it adds up; then
# the same for latency: a sample log with Apache's %D (request time) into a
# histogram, and its p50 and p99 over time.
# Needs only Go; takes a few seconds.
set -eu
cd "$(dirname "$0")"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM

# step prints a headline, then the command as an operator would type it.
step() {
	printf '\n== %s\n$ %s\n' "$1" "$2"
}

step "Build feed, tally, tgread, tgcheck, tgpush, tgsynth and tgserve into ./bin" "go build -o bin/ ./cmd/..."
mkdir -p bin
go build -o bin/ ./cmd/...
PATH=$PWD/bin:$PATH

step "Make a tally store: requests and bytes by status, 10 s buckets" \
	"tally --provision --doc apache-combined web"
tally --provision --doc apache-combined "$work/web"

step "Feed the sample log through it (each entry counted once, by its own time)" \
	"feed -q --cursor web.cursor web=sample/access.log -- tally --run web"
feed -q --cursor "$work/web.cursor" web=sample/access.log -- tally --run "$work/web"

step "What the tape says: requests per status over the five minutes" \
	"tgread --format table --metric requests --step 5m web"
tgread --format table --metric requests --step 5m "$work/web"

step "Requests with status 200 over time (the first of a chart per status)" \
	"tgread --plot --metric requests web | head -11"
tgread --plot --width "${COLUMNS:-80}" --metric requests "$work/web" | head -11

step "Lines that were not entries (no time, not Apache's format)" \
	"tgread --markers web | grep total"
tgread --markers "$work/web" | grep total

step "Prove it adds up: re-derive every bucket from the log and compare" \
	"tgcheck --against web=sample/access.log web"
tgcheck --against web=sample/access.log "$work/web"

step "Latency: a histogram of Apache's %D (microseconds, scaled to seconds)" \
	"tally --provision --doc sample/apache-latency.tally lat && feed -q --cursor lat.cursor web=sample/access-latency.log -- tally --run lat"
tally --provision --doc sample/apache-latency.tally "$work/lat"
feed -q --cursor "$work/lat.cursor" web=sample/access-latency.log -- tally --run "$work/lat"

step "p50 and p99 latency over time, estimated as Prometheus's histogram_quantile does" \
	"tgread --plot --quantile 0.5,0.99 --metric latency lat"
tgread --plot --width "${COLUMNS:-80}" --quantile 0.5,0.99 --metric latency "$work/lat"

step "The same over the five minutes, from the buckets summed first" \
	"tgread --format table --quantile 0.5,0.9,0.99 --step 5m lat"
tgread --format table --quantile 0.5,0.9,0.99 --step 5m "$work/lat"

step "Prove the histogram adds up too: every bucket's count, sum and count re-derived" \
	"tgcheck --against web=sample/access-latency.log lat"
tgcheck --against web=sample/access-latency.log "$work/lat"

printf '\nNext: go test ./... runs every test; docs/ has a page per binary.\n'
