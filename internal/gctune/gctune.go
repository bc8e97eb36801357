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
	"sync"
)

// GCPercent is the heap growth between collections for copy and apply.
const GCPercent = 400

// The collector's settings are the process's, while the loops that tune
// them can run at once and end in any order (`stream` runs each shard's
// snapshot inside its own apply loop). So the tunings in effect are
// counted here: the limit is the largest of them, and the settings from
// before the first come back when the last one ends. This is the one
// piece of package state, because what it guards is process state too.
var tuned struct {
	sync.Mutex
	limits      map[*int64]struct{} // the active tunings' limits
	prevLimit   int64
	prevPercent int
}

// Apply sets GOGC to GCPercent and the soft memory limit to limit bytes (the
// largest limit of the tunings in effect), and returns a function that ends
// this tuning: the last one to end restores the previous settings. A GOGC
// or GOMEMLIMIT set in the environment wins: then nothing changes.
func Apply(limit int64) (restore func()) {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	tuned.Lock()
	defer tuned.Unlock()
	if len(tuned.limits) == 0 {
		tuned.limits = map[*int64]struct{}{}
		tuned.prevLimit = debug.SetMemoryLimit(-1)
		tuned.prevPercent = debug.SetGCPercent(GCPercent)
	}
	mine := &limit
	tuned.limits[mine] = struct{}{}
	debug.SetMemoryLimit(largestLimit())
	var once sync.Once
	return func() {
		once.Do(func() {
			tuned.Lock()
			defer tuned.Unlock()
			delete(tuned.limits, mine)
			if len(tuned.limits) > 0 {
				debug.SetMemoryLimit(largestLimit())
				return
			}
			debug.SetGCPercent(tuned.prevPercent)
			debug.SetMemoryLimit(tuned.prevLimit)
		})
	}
}

// largestLimit is the largest limit of the tunings in effect (tuned held).
func largestLimit() int64 {
	var max int64
	for l := range tuned.limits {
		if *l > max {
			max = *l
		}
	}
	return max
}
