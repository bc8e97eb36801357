package target

import (
	"context"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// EventWriter is an optional facet of a BulkWriter whose target is a log
// of events (Kafka): what it wrote cannot be taken back, so a resumed run
// neither deletes nor re-copies a chunk an earlier pass copied. Instead
// the engine brings those rows up to the new pass's consistent point
// itself, by writing the source's changes of them in between (the
// catch-up), and the runner keeps every copied chunk as of the new pass.
// The runner (internal/snapshot, writer_engine.go) asserts it on the
// writer and then calls BeginPass and CopyEvents in place of Save and Copy
// for those steps.
type EventWriter interface {
	// Chunked says whether table t may be copied in several key-range
	// chunks: only one whose key the engine compares with a copied bound
	// the way the source orders it (its catch-up splits the table's changes
	// there). Any other table is copied as one chunk.
	Chunked(t BulkTable) bool
	// BeginPass is called as a pass starts at its consistent point pos,
	// before any chunk is read: the first pass records where the snapshot
	// starts (tables as schema version 1); a later one first brings the
	// rows earlier passes copied up to pos. Then it commits s, the run's
	// records with the chunks copied so far as of this pass.
	BeginPass(ctx context.Context, pos model.Position, tables []*schema.Table, s BulkState) error
	// CopyEvents is Copy for such a target: the chunk's rows as events and
	// then done(rows), in one target transaction, told the chunk's key
	// range and whether the snapshot's last row is among its rows.
	CopyEvents(ctx context.Context, t BulkTable, rows *ChunkRows, c EventChunk, done func() BulkState) error
}

// EventChunk is what an EventWriter is told of a chunk it copies.
type EventChunk struct {
	// Lo and Hi bound the chunk's keys, (Lo, Hi]; nil is open (a table
	// copied as one chunk has both nil).
	Lo, Hi consistent.Bound
	// Last: no row of the snapshot follows this chunk's rows (its last row
	// is the snapshot's last, when it has any).
	Last bool
}
