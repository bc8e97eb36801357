package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// Boundary is a recorded cut-over's switch point (sluice.cutover, written
// by internal/cutover on the target and on the source).
type Boundary struct {
	SourcePosition binlogpos.Position `json:"source_position"`
	LSN            string             `json:"lsn"`
	At             time.Time          `json:"at"`
	// ReverseStream is the way back's stream, as read back from a record
	// (the report names it as reverse_stream).
	ReverseStream string `json:"-"`
}

// LoadCutover reads a recorded cut-over of stream from the PostgreSQL
// target's sluice.cutover (nil: none).
func LoadCutover(ctx context.Context, q Querier, stream string) (*Boundary, error) {
	var b Boundary
	var enc string
	err := q.QueryRow(ctx, `SELECT source_position, lsn::text, cut_at, reverse_stream FROM sluice.cutover WHERE stream = $1`, stream).
		Scan(&enc, &b.LSN, &b.At, &b.ReverseStream)
	if errors.Is(err, pgx.ErrNoRows) || IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("target: read sluice.cutover: %w", err)
	}
	p, err := binlogpos.Decode(enc)
	if err != nil {
		return nil, err
	}
	b.SourcePosition, err = binlogpos.From(p)
	return &b, err
}
