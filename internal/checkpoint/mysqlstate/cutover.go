package mysqlstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// LoadCutover reads a recorded cut-over of stream from the MySQL source's
// sluice.cutover (nil: none).
func LoadCutover(ctx context.Context, db *sql.DB, stream string) (*checkpoint.Boundary, error) {
	var b checkpoint.Boundary
	var enc, at string
	err := db.QueryRowContext(ctx, `SELECT source_position, lsn, DATE_FORMAT(cut_at, '%Y-%m-%dT%H:%i:%s.%fZ'), reverse_stream
		FROM sluice.cutover WHERE stream = ?`, stream).Scan(&enc, &b.LSN, &at, &b.ReverseStream)
	if errors.Is(err, sql.ErrNoRows) || missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("source: read sluice.cutover: %w", err)
	}
	if b.At, err = time.Parse(time.RFC3339Nano, at); err != nil {
		return nil, err
	}
	p, err := binlogpos.Decode(enc)
	if err != nil {
		return nil, err
	}
	b.SourcePosition, err = binlogpos.From(p)
	return &b, err
}
