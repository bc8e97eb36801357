package target

import (
	"context"

	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// StatusReader is an engine whose state store `sluice status` reads.
type StatusReader interface {
	// ReadStatus reads the stream's state from the target; a stream with
	// no checkpoint has a nil StreamState.Checkpoint, not an error.
	ReadStatus(ctx context.Context, stream string) (*StreamState, error)
}

// StreamState is what status reads from the target's sluice state.
type StreamState struct {
	Checkpoint *pipeline.State // nil: the stream has none
	// Replicator names the sluice replicating the stream now ("" when none).
	Replicator string
	// Values a policy changed (PostgreSQL targets only: a MySQL target
	// receives the source's values unchanged).
	SnapshotPolicy, ReplicatePolicy []typemap.ChangeCount
	Naming                          *schema.NamingOptions
	ColumnOrder                     []string // PostgreSQL targets: from the schema history
}

// StreamLister is an engine that names the streams recorded in its state
// store (sluice status --serve shows them all).
type StreamLister interface {
	ListStreams(ctx context.Context) ([]string, error)
}
