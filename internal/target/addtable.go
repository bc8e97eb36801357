package target

import (
	"context"
	"errors"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
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
