package push

import (
	"os"
	"runtime/debug"
)

// tgpush's heap is bounded by what it reads at once (readBytes of tape,
// its groups and one request's messages: 4-12 MiB live on a
// high-cardinality tape), and nearly everything it allocates is garbage a
// request later. With Go's default (a collection each time the heap
// doubles) it collected ~40 times a second of pushing (85 collections in
// a 2 s push of 1.2 M samples; 39 with these settings), a quarter or more
// of its CPU (bench/README.md, session 11). gcPercent lets the
// heap grow to five times the live data between collections, and
// memoryLimit caps that growth where the peak RSS stays under the 64 MiB
// the backfill may take: the collector runs when either is reached. A
// group far larger than the read bound is sent in parts of the bound
// (follow.go); only --counters and OTLP, which read it whole, can hold
// more live data than the limit, and the collector then runs more, never
// the memory past its data (Go caps the collector at half the CPU).
const (
	gcPercent   = 400
	memoryLimit = 40 << 20
)

// tuneGC sets gcPercent and memoryLimit, unless the operator's GOGC or
// GOMEMLIMIT says otherwise.
func tuneGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
}
