package binlog

import (
	"github.com/sluice-db/sluice/internal/source"
)

// The row binlog is the source of mysql:// and mariadb:// URLs.
func init() { source.Register(source.MySQL, "mysql", "mariadb") }

var _ source.Stream = (*Stream)(nil)

// ReadPosition is Position as status shows it (source.Stream).
func (s *Stream) ReadPosition() string { return s.Position().String() }
