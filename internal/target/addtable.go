package target

import (
	"context"
	"errors"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// TableAdder is a Replica whose stream can take tables while it runs
// (`sluice snapshot --add`, docs/design/issue23-plan.md): a request
// record per table in the stream's state, which the running replicator
// picks up, copies in chunks through windows and marks done. The records
// live with the stream's checkpoint, so a restarted replicator keeps the
// tables it was copying and continues from their LastKey.
type TableAdder interface {
	// TargetTableExists reports whether the table the source table id is
	// written to (under the stream's naming n) exists on the target.
	TargetTableExists(ctx context.Context, id schema.TableID, n schema.Naming) (bool, error)
	// RequestAdd records the tables as requested, all or none. It refuses
	// with ErrAddPending while an add of the stream is not done: the
	// second of two concurrent requests is refused, never interleaved.
	RequestAdd(ctx context.Context, stream string, ids []schema.TableID) error
	// LoadAdds is the stream's add records, in table order.
	LoadAdds(ctx context.Context, stream string) ([]AddRecord, error)
	// SaveAdd records one table's copy progress (its state, LastKey and
	// counts).
	SaveAdd(ctx context.Context, stream string, r AddRecord) error
	// ForgetAdds deletes the records of the tables (a cancelled or a
	// finished add that is no longer shown).
	ForgetAdds(ctx context.Context, stream string, ids []schema.TableID) error
}

// AddState is where one table's add is.
type AddState string

const (
	// AddRequested: recorded by the command, not yet taken by the
	// replicator.
	AddRequested AddState = "requested"
	// AddCopying: the table joined the stream at Joined; its chunks are
	// being copied (upsert apply for its changes).
	AddCopying AddState = "copying"
	// AddDone: every chunk merged; the table is an ordinary member of the
	// stream's scope.
	AddDone AddState = "done"
)

// Pending reports whether an add in state s still runs.
func (s AddState) Pending() bool { return s != AddDone }

// AddRecord is one table's add.
type AddRecord struct {
	Table schema.TableID
	State AddState
	// Joined is the source position the table joined the stream at
	// (Position.Encode; "" before it joined).
	Joined string
	// LastKey is the encoded key bound of the last merged chunk ("": none).
	LastKey      string
	Rows, Chunks int64
	RequestedAt  time.Time
	UpdatedAt    time.Time
}

// ErrAddPending is RequestAdd's refusal while an add of the stream runs.
var ErrAddPending = errors.New("an add of this stream is still running")

// ChunkApplier is a Replica that writes a window's merged chunk of a table
// being added (docs/design/issue23-plan.md, step 3): the rows as upserts
// of full images and the add record in one target transaction, so a
// kill -9 continues after the last chunk whose LastKey committed. The
// replicator calls it as a barrier: every transaction handed to apply
// before the window's merge point is committed, none after it is handed on.
type ChunkApplier interface {
	// ChunkSelect is the source select expression of a column, so that a
	// chunk's text values are what ApplyChunk's encoding reads (the
	// engine's snapshot encoding). Key columns must be selected as they
	// are (addtable.Chunker refuses otherwise).
	ChunkSelect(c schema.Column) string
	// ApplyChunk writes c.Rows and saves c.Record.
	ApplyChunk(ctx context.Context, c Chunk) error
}

// Chunk is one merged window of a table being added.
type Chunk struct {
	Stream string
	Table  *schema.Table
	Naming schema.Naming
	Mapper *typemap.Mapper
	// Rows are row images in Table.Columns order, the text protocol's
	// bytes of ChunkSelect's expressions (nil: NULL).
	Rows   [][]any
	Record AddRecord
}
