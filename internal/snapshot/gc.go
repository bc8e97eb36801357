package snapshot

import "github.com/sluice-db/sluice/internal/gctune"

// snapshotMemoryLimit is the soft memory limit of a snapshot: its live heap
// is about 30 MB for 8 parallel chunks, so the limit is only a backstop.
const snapshotMemoryLimit = 1 << 30 // 1 GiB

// tuneGC applies the snapshot's collector settings and returns a function
// that restores the previous ones (see package gctune).
func tuneGC() (restore func()) { return gctune.Apply(snapshotMemoryLimit) }
