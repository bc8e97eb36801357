package pipeline

import (
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

// The state types live here, not in a target's state store, so that the
// neutral pipeline names no engine (issue 28); checkpoint keeps aliases.

// DefaultStream is the stream name used when --stream is not given.
const DefaultStream = "default"

// State is the applied position of one stream.
type State struct {
	Position      model.Position // nil only in a State that was never saved
	SchemaVersion int64
	// SourceTime is the source commit time of the last applied transaction.
	SourceTime time.Time
	UpdatedAt  time.Time
}

// AppliedRow is one row of the applied table.
type AppliedRow struct {
	Last  model.Position   // the row's key: its newest end position
	Ends  []model.Position // every source transaction it covers
	Start model.Position   // the checkpoint the run that wrote it started from (nil: none)
}
