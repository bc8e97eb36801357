package pgoutput

import (
	"github.com/sluice-db/sluice/internal/source"
)

// Logical decoding is the source of postgres:// and postgresql:// URLs:
// the way back.
func init() { source.Register(source.Postgres, "postgres", "postgresql") }

var _ source.Stream = (*Stream)(nil)

// ReadPosition is Received as status shows it (source.Stream).
func (s *Stream) ReadPosition() string { return s.Received().String() }
