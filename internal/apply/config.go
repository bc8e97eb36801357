// Package apply writes the source transactions of the binlog stream into
// PostgreSQL: in parallel where they touch disjoint rows, in source order
// where they conflict, grouped and batched, and exactly once across crashes.
// docs/replication.md ("Parallel apply" and "Exactly once") explains the
// method and why it is correct.
package apply

import (
	"fmt"
	"log/slog"
	"runtime"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Config tunes the applier. Zero values take the documented defaults.
type Config struct {
	// Stream names the replication stream whose checkpoint is used.
	Stream string
	// Workers is the number of parallel apply sessions (default: 2 per CPU,
	// at least 4: a worker spends most of its time waiting on PostgreSQL).
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
	// CopyRows is the shortest run of inserts into one table sent with COPY
	// instead of multi-row INSERT (default 2000; 0 keeps the default, <0
	// disables COPY).
	CopyRows int
	// SyncCommit keeps synchronous_commit on for the apply transactions.
	// Off (the default) is safe: see docs/replication.md.
	SyncCommit bool
	// NoCompact disables folding several changes of one row in a group and
	// reordering a group's changes into runs per table (coalesce.go).
	NoCompact bool
	// FenceTimeout bounds the wait at start for sessions of an earlier run
	// of the stream to end (default 60s); see session.go.
	FenceTimeout time.Duration
	// Writable returns the indexes of the columns sluice writes in the
	// target (generated columns of the target left out). Default:
	// ddl.WritableColumns, the rule the CREATE TABLE was made with.
	Writable func(t *schema.Table) []int
	// Mapper converts the source's values into PostgreSQL values (required).
	Mapper *typemap.Mapper
	// Decode reads the source's positions back from the target's state
	// (required: the source's model.PositionDecoder).
	Decode model.PositionDecoder
	Log    *slog.Logger
}

func (c Config) withDefaults() Config {
	if c.Stream == "" {
		c.Stream = checkpoint.DefaultStream
	}
	if c.Workers <= 0 {
		c.Workers = max(4, 2*runtime.NumCPU())
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
	if c.FenceTimeout <= 0 {
		c.FenceTimeout = 60 * time.Second
	}
	if c.CopyRows == 0 {
		c.CopyRows = 2000
	}
	if c.Writable == nil {
		c.Writable = ddl.WritableColumns
	}
	if c.Log == nil {
		c.Log = slog.New(slog.DiscardHandler)
	}
	return c
}

// PoolConns is the number of connections the applier holds at once: one per
// worker, one for the checkpointer and one for DDL and large transactions.
// The pool passed to New must allow at least this many.
func PoolConns(workers int) int {
	if workers <= 0 {
		workers = Config{}.withDefaults().Workers
	}
	return workers + 2
}

func (c Config) validate(poolMax int32) error {
	if c.Mapper == nil {
		return fmt.Errorf("apply: Config.Mapper is not set (the type mapper)")
	}
	if c.Decode == nil {
		return fmt.Errorf("apply: Config.Decode is not set (the source's position decoder)")
	}
	if int(poolMax) < PoolConns(c.Workers) {
		return fmt.Errorf("apply: the PostgreSQL pool allows %d connections, %d workers need %d (set pool_max_conns)",
			poolMax, c.Workers, PoolConns(c.Workers))
	}
	return nil
}
