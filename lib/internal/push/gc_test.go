package push

import (
	"runtime/debug"
	"testing"
)

func TestTgpushLetsItsHeapGrowFivefoldUnderAFortyMiBLimitUnlessTheOperatorSetsGOGC(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	tuneGC()
	if p := debug.SetGCPercent(100); p != 400 {
		t.Errorf("GC percent %d, want 400", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 40<<20 {
		t.Errorf("memory limit %d, want 40 MiB", l)
	}
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	tuneGC()
	if p := debug.SetGCPercent(100); p != 100 {
		t.Errorf("with GOGC set, tgpush changed the GC percent to %d", p)
	}
	if l := debug.SetMemoryLimit(-1); l != 1<<30 {
		t.Errorf("with GOMEMLIMIT set, tgpush changed the limit to %d", l)
	}
}
