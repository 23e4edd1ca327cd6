#!/bin/sh
# The quick start: build the four binaries into ./bin, feed the bundled
# sample Apache log through tally, print what the tape says, and prove it
# adds up. Needs only Go.
set -eu
cd "$(dirname "$0")"
mkdir -p bin
go build -o bin/ ./cmd/...
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT INT TERM
echo "\$ tally --provision --doc apache-combined web"
bin/tally --provision --doc apache-combined "$work/web"
echo "\$ feed --cursor web.cursor sample/access.log -- tally --run web"
bin/feed -q --cursor "$work/web.cursor" web=sample/access.log -- bin/tally --run "$work/web"
echo "\$ tgread --format table --metric requests --step 1m web"
bin/tgread --format table --metric requests --step 1m "$work/web"
echo "\$ tgread --markers web"
bin/tgread --markers "$work/web"
echo "\$ tgcheck --against web=sample/access.log web"
bin/tgcheck --against web=sample/access.log "$work/web"
