package pipeline

import (
	"context"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// Sink is the target side of the pipeline: it converts the source's values
// into its own, commits them, and keeps the stream's exactly-once state (the
// checkpoint, the applied records of the window above it, the schema
// history) in the same target transactions as the data. The pipeline calls
// Open first, then the other methods from several goroutines: SaveCheckpoint,
// Sync, DeleteApplied and every Session's ApplyDDL and large-transaction
// commit are serialised by the pipeline (never two at once, never a
// checkpoint older than a saved one).
// ReinsertFolder is a Sink that says, per table, whether compaction may
// fold a DELETE and a re-INSERT of one row into an UPDATE (compact.go). A
// sink without it gets the fold everywhere. The MySQL sink declines it
// where it writes updates one row at a time (MyRocks): there a multi-row
// DELETE and a multi-row INSERT cost the target less than the single-row
// UPDATEs they would become.
type ReinsertFolder interface {
	FoldsReinsert(t *schema.Table) bool
}

// GroupLimiter is a Sink that bounds each group below Config's GroupRows
// and GroupBytes, from the group's first source transaction. The Kafka sink
// keeps a live stream's transactions short in time (an open Kafka
// transaction holds back what every other producer wrote after it on the
// same partitions) and lifts the bound in a backlog.
type GroupLimiter interface {
	GroupLimit(first *model.Txn) (rows int, bytes int64)
}

type Sink interface {
	// Open fences off every session of an earlier run of the stream (a killed
	// run's last commit may still be in flight) and loads the stream's state:
	// its checkpoint (nil when it has none) and the applied records above it.
	// It is called once, before everything else.
	Open(ctx context.Context) (*State, []AppliedRow, error)
	// Session opens a connection for one worker, or for a schema change or a
	// large transaction.
	Session(ctx context.Context) (Session, error)
	// SaveCheckpoint records st and deletes the applied records whose Last
	// positions are covered, in one target transaction; durable waits until
	// that transaction is durable.
	SaveCheckpoint(ctx context.Context, st State, covered []model.Position, durable bool) error
	// DeleteApplied deletes the applied records with these Last positions
	// (records of another stream history, found at Open).
	DeleteApplied(ctx context.Context, lasts []model.Position) error
	// Sync brings the target's own bookkeeping up to the committed rows after
	// a checkpoint (PostgreSQL: identity sequences past replicated ids);
	// final covers every table of the run, not only those changed since the
	// last call.
	Sync(ctx context.Context, final bool) error
	// Cascades reads the target's foreign key actions (cascade.go).
	Cascades(ctx context.Context) (*Cascades, error)
	// TargetName names the target table of a source table, as Cascades does.
	TargetName(id schema.TableID) string
	// Close releases what Open took.
	Close()
}

// Session is one connection of a Sink.
type Session interface {
	// ApplyGroup writes a group of source transactions as one target
	// transaction together with their applied record (the key of every
	// transaction's End, and the run's start). When the target refuses the
	// group's data it may apply them again one source transaction at a time
	// (Group.One); retried says it did.
	ApplyGroup(ctx context.Context, g *Group, runStart model.Position) (retried bool, err error)
	// ApplyDDL runs a schema change (t.DDL), records the new table versions
	// in the schema history and saves st, in one target transaction where
	// the target allows; every applied record is covered by st.
	ApplyDDL(ctx context.Context, t *model.Txn, st State) error
	// BeginLarge starts the target transaction of a source transaction that
	// arrives in fragments.
	BeginLarge(ctx context.Context) (LargeTxn, error)
	// Reset drops what the session cached per table version (after a schema
	// change).
	Reset(ctx context.Context) error
	// Close returns the connection.
	Close()
}

// LargeTxn is a target transaction that receives a large source transaction
// fragment by fragment, so that memory holds one fragment at a time.
type LargeTxn interface {
	Write(ctx context.Context, changes []Change) error
	// Commit saves st with the rows (every applied record is covered by it)
	// and commits.
	Commit(ctx context.Context, st State) error
	Rollback()
}

// Group is what one worker commits as one target transaction.
type Group struct {
	// Txns are the source transactions, in source order.
	Txns []*model.Txn
	// Changes are their row changes after compaction and coalescing, in the
	// order to apply them.
	Changes []Change
	// One returns the changes of Txns[i] alone, uncompacted, in source order.
	One func(i int) []Change
	// Checkpoint, when set, is a low watermark at the group's end: with one
	// worker every source transaction before the group's is committed when
	// it is applied (groups, schema changes and large transactions commit
	// one at a time, in source order). A sink may commit it with the group
	// in place of the applied record (the Kafka sink does, so its state
	// record stays small); one that does must still keep every checkpoint
	// it saves from moving back.
	Checkpoint *State
}

// Change is one row change on its way into a target transaction, in the
// source's values, with what the scheduler computed for it.
type Change struct {
	model.RowChange
	// Txn is the source transaction it came from (the first one, when
	// compaction merged changes of several).
	Txn *model.Txn
	// Ident is the hash of the row-identity key of the before image (updates
	// and deletes) or of the after image (inserts); HasIdent is false when
	// the row has none. Two changes with different Ident change different
	// rows.
	Ident    uint64
	HasIdent bool

	keys []uint64 // conflict keys of this change (a merged change: of both)
	// cascade are the cascade keys it holds or checks (cascade.go): they
	// order it only against foreign key actions, so compaction ignores them
	// and coalescing keeps them.
	cascade []uint64
	dead    bool
}
