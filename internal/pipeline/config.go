// Package pipeline applies a stream of source transactions to a sink,
// whatever the source and the target: in parallel where they touch disjoint
// rows, in source order where they conflict (a causality scheduler over
// conflict keys), grouped, compacted and coalesced into runs, and exactly
// once across crashes (a low watermark checkpoint plus applied records that
// the sink commits with the data). docs/replication.md ("Parallel apply" and
// "Exactly once") explains the method and why it is correct; a Sink
// (sink.go) is all a target has to provide.
package pipeline

import (
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"log/slog"
	"runtime"
	"time"
)

// Config tunes the applier. Zero values take the documented defaults.
type Config struct {
	// Stream names the replication stream whose checkpoint is used.
	Stream string
	// Workers is the number of parallel sessions (default: 2 per CPU, at
	// least 4: a worker spends most of its time waiting on the target).
	Workers int
	// GroupRows and GroupBytes bound one target transaction when a worker
	// folds several queued source transactions into it (defaults 5000 rows,
	// 16 MiB). A single larger source transaction is still applied whole.
	GroupRows  int
	GroupBytes int64
	// QueueTxns bounds each worker's queue of source transactions (default 512).
	QueueTxns int
	// MaxInflightBytes bounds the decoded size of all dispatched, uncommitted
	// transactions (default 256 MiB; one transaction is always admitted).
	MaxInflightBytes int64
	// CheckpointInterval is how often the low watermark is saved (default 1s).
	CheckpointInterval time.Duration
	// NoCompact disables folding several changes of one row in a group and
	// reordering a group's changes into runs per table (coalesce.go).
	NoCompact bool
	// Rows, when set, rewrites each transaction's row changes before
	// anything else sees them: the one point where a stream's row filters
	// and column masks apply (internal/rowpolicy), whatever the sink.
	Rows RowTransform
	Log  *slog.Logger
}

// RowTransform rewrites a transaction's row changes (filtering, masking);
// an error stops the stream.
type RowTransform interface {
	Changes([]model.RowChange) ([]model.RowChange, error)
}

func (c Config) withDefaults() Config {
	if c.Stream == "" {
		c.Stream = DefaultStream
	}
	if c.Workers <= 0 {
		c.Workers = DefaultWorkers()
	}
	if c.GroupRows <= 0 {
		c.GroupRows = 5000
	}
	if c.GroupBytes <= 0 {
		c.GroupBytes = 16 << 20
	}
	if c.QueueTxns <= 0 {
		c.QueueTxns = 512
	}
	if c.MaxInflightBytes <= 0 {
		c.MaxInflightBytes = 256 << 20
	}
	if c.CheckpointInterval <= 0 {
		c.CheckpointInterval = time.Second
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// DefaultWorkers is the number of workers when none is configured.
func DefaultWorkers() int { return max(4, 2*runtime.NumCPU()) }

// PoolConns is the number of target sessions a run holds at once: one per
// worker, one for schema changes and large transactions, and the one a sink
// keeps from Open to Close for its checkpoints.
func PoolConns(workers int) int {
	if workers <= 0 {
		workers = DefaultWorkers()
	}
	return workers + 2
}

func (c Config) validate() error {
	if c.Workers < 1 {
		return fmt.Errorf("apply: %d workers", c.Workers)
	}
	return nil
}
