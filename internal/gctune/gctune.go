// Package gctune sets the garbage collector for sluice's long copy and
// apply loops.
//
// Both the snapshot and the binlog apply allocate many short-lived values
// (one per source value) while their live heap stays small, so with the
// default GOGC=100 the collector ran constantly: a quarter of sluice's CPU
// in the snapshot benchmark, ~15% while catching up a binlog backlog
// (docs/snapshot.md, docs/replication.md). They therefore collect at 400 %
// heap growth, with a soft memory limit that makes the collector work
// harder again should the heap approach it, so memory stays bounded.
package gctune

import (
	"os"
	"runtime/debug"
)

// GCPercent is the heap growth between collections for copy and apply.
const GCPercent = 400

// Apply sets GOGC to GCPercent and the soft memory limit to limit bytes,
// and returns a function that restores the previous settings. A GOGC or
// GOMEMLIMIT set in the environment wins: then nothing changes.
func Apply(limit int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	prevLimit := debug.SetMemoryLimit(limit)
	prevPercent := debug.SetGCPercent(GCPercent)
	return func() {
		debug.SetGCPercent(prevPercent)
		debug.SetMemoryLimit(prevLimit)
	}
}
