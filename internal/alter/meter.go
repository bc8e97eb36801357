package alter

import (
	"context"
	"database/sql"
	"time"
)

// point is a place in the binlog's order, marked at a known time.
type point struct {
	id int64     // the marker row's id
	at time.Time // when its commit returned
}

// rateMeter counts the table's row changes committed between two points:
// the writes the application got done, whatever the binlog reader's lag.
// Counting what the reader delivers in a window of wall-clock time instead
// measures the reader: it read nothing at all in the first seconds of 3 of
// 6 runs under sysbench (starting, or catching up), and bursts while it
// catches up.
type rateMeter interface {
	// mark commits a marker now.
	mark(ctx context.Context) (point, error)
	// before waits, at most timeout (errAwaitTimeout), until the binlog
	// reader has read p, and returns the count of the table's row changes
	// before it in the binlog.
	before(ctx context.Context, p point, timeout time.Duration) (int64, error)
}

// markerMeter is the rateMeter of a run: marker rows in
// sluice.alter_marker, whose place among the table's changes the tracker
// records as it reads them.
type markerMeter struct {
	db     *sql.DB
	dbName string
	table  string
	tr     *tracker
}

func (m *markerMeter) mark(ctx context.Context) (point, error) {
	id, err := writeMarker(ctx, m.db, m.dbName, m.table)
	return point{id: id, at: time.Now()}, err
}

func (m *markerMeter) before(ctx context.Context, p point, timeout time.Duration) (int64, error) {
	return m.tr.seqAt(ctx, p.id, timeout)
}
