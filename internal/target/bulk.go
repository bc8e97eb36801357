package target

import (
	"context"
	"log/slog"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Snapshotter is an engine `sluice snapshot` copies into through the
// exported bulk contract below: the one snapshot runner (internal/snapshot)
// reads the source at one consistent point, plans the chunks, schedules and
// re-checks them, and keeps the run's state; the engine stores that state
// and the rows, a chunk's rows and its done record in one target
// transaction. (The PostgreSQL and MySQL writers keep their run state in
// tables of their own and implement the richer contract of
// internal/target/bulkrun instead, in their sink packages.)
type Snapshotter interface {
	BulkWriter(o BulkOptions) (BulkWriter, error)
}

// BulkOptions are what a snapshot's writer is opened with.
type BulkOptions struct {
	Stream string
	Log    *slog.Logger
}

// BulkTable is the engine's plan of one source table.
type BulkTable struct {
	Source *schema.Table
	// Name is the target table in the report and messages.
	Name string
	// Cols are the copied columns (indexes into Source.Columns), Selects
	// their MySQL select expressions.
	Cols    []int
	Selects []string
	// RangeSafe: the target orders and compares the key as the source does,
	// so a changed chunk's range can be deleted (false: the table is emptied
	// and copied again).
	RangeSafe bool
	DDL       []string // what --dry-run shows
	Warnings  []string
}

// BulkState are the runner's state records by key ("run", "table/…",
// "chunk/…"); the engine keeps them opaque. A nil value deletes its key.
type BulkState map[string][]byte

// BulkWriter is an engine's side of one snapshot run.
type BulkWriter interface {
	Connect(ctx context.Context) error
	// Lock holds the stream's snapshot lock until Close.
	Lock(ctx context.Context) error
	Close()
	// Replicator names who replicates the stream into the target ("": none).
	Replicator(ctx context.Context) (string, error)
	Plan(t *schema.Table) (BulkTable, error)
	// HasTable and HasRows describe a target table before a new run.
	HasTable(ctx context.Context, t BulkTable) (bool, error)
	HasRows(ctx context.Context, t BulkTable) (bool, error)
	// State is every state record of the stream, as last committed.
	State(ctx context.Context) (BulkState, error)
	// Save commits state records in one target transaction.
	Save(ctx context.Context, s BulkState) error
	// Create creates the tables (empties those in clear) and commits s.
	Create(ctx context.Context, tables, clear []BulkTable, s BulkState) error
	// Copy writes a chunk's rows and then done(rows) in one target
	// transaction; clear empties the table first (a whole-table chunk
	// copied again).
	Copy(ctx context.Context, t BulkTable, rows *ChunkRows, clear bool, done func() BulkState) error
	// Reset empties a table and commits s (its chunks not copied).
	Reset(ctx context.Context, t BulkTable, s BulkState) error
	// Finish records where replication starts (pos, the tables as schema
	// version 1) and commits s, in one target transaction.
	Finish(ctx context.Context, pos model.Position, tables []*schema.Table, s BulkState) error
	// Forget drops the stream's snapshot tables and state (--restart) and
	// returns how many tables it had.
	Forget(ctx context.Context) (int, error)
}
