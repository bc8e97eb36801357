package snapshot

import (
	"os"
	"runtime/debug"
)

// The copy allocates many short-lived values (one per source value) while
// its live heap stays small (about 30 MB for 8 parallel chunks), so with the
// default GOGC=100 the garbage collector ran constantly: a quarter of
// sluice's CPU in the benchmark (docs/snapshot.md). A snapshot therefore
// collects at 400 % heap growth, with a soft memory limit that makes the
// collector work harder again should the heap ever approach it. A GOGC or
// GOMEMLIMIT set in the environment wins.
const (
	snapshotGCPercent   = 400
	snapshotMemoryLimit = 1 << 30 // 1 GiB
)

// tuneGC applies the snapshot's collector settings and returns a function
// that restores the previous ones.
func tuneGC() (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prevLimit := debug.SetMemoryLimit(snapshotMemoryLimit)
	prevPercent := debug.SetGCPercent(snapshotGCPercent)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}
