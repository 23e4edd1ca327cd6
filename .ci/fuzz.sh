#!/usr/bin/env bash
# Runs every fuzz target of the repository (each `func FuzzXxx(f *testing.F)`
# in a _test.go file) for FUZZTIME (default 5s) each: about a minute for the
# dozen targets. A crasher fails the run; go test saves it under the
# package's testdata/fuzz/ to turn into a regression test.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/go/bin"
fuzztime="${FUZZTIME:-5s}"

grep -rlE --include='*_test.go' '^func Fuzz[A-Za-z0-9_]*\(f \*testing\.F\)' . | sort |
while IFS= read -r file; do
	pkg="./$(dirname "${file#./}")"
	for target in $(sed -nE 's/^func (Fuzz[A-Za-z0-9_]*)\(f \*testing\.F\).*/\1/p' "$file"); do
		echo "fuzz: $pkg $target for $fuzztime"
		go test -run '^$' -fuzz "^${target}\$" -fuzztime "$fuzztime" "$pkg"
	done
done
