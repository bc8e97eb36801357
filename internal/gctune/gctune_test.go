package gctune

import (
	"runtime/debug"
	"testing"
)

// TestApplyNests: tunings that overlap and end out of order (two shards'
// snapshots inside a stream's apply loop) keep the largest limit in effect
// and leave the settings from before the first once the last ends; the
// old code left the second snapshot's limit behind.
func TestApplyNests(t *testing.T) {
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	const before = int64(3 << 30)
	prevLimit := debug.SetMemoryLimit(before)
	prevPercent := debug.SetGCPercent(100)
	defer func() { debug.SetMemoryLimit(prevLimit); debug.SetGCPercent(prevPercent) }()
	limit := func() int64 { return debug.SetMemoryLimit(-1) }
	percent := func() int { p := debug.SetGCPercent(-1); debug.SetGCPercent(p); return p }

	stream := Apply(512 << 20)
	if limit() != 512<<20 || percent() != GCPercent {
		t.Fatalf("stream tuned: limit %d percent %d", limit(), percent())
	}
	a := Apply(1 << 30)
	b := Apply(1 << 30)
	if limit() != 1<<30 {
		t.Fatalf("two snapshots: limit %d, want %d", limit(), 1<<30)
	}
	a()
	a() // a second call changes nothing
	if limit() != 1<<30 {
		t.Fatalf("one snapshot left: limit %d, want %d", limit(), 1<<30)
	}
	b()
	if limit() != 512<<20 || percent() != GCPercent {
		t.Fatalf("snapshots ended: limit %d percent %d, want the stream's %d and %d", limit(), percent(), 512<<20, GCPercent)
	}
	stream()
	if limit() != before || percent() != 100 {
		t.Fatalf("all ended: limit %d percent %d, want %d and 100", limit(), percent(), before)
	}
}
