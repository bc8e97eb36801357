package checkpoint

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Streams names every stream with a checkpoint in the target, sorted
// (none when sluice never wrote there).
func Streams(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.Query(ctx, `SELECT stream FROM sluice.checkpoint ORDER BY stream`)
	if err != nil {
		if IsUndefined(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("checkpoint: list streams: %w", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		if IsUndefined(err) {
			return nil, nil
		}
		return nil, fmt.Errorf("checkpoint: list streams: %w", err)
	}
	return names, nil
}
