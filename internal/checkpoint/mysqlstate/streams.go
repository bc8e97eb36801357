package mysqlstate

import (
	"context"
	"fmt"
)

// Streams names every stream with a checkpoint in a MySQL target, sorted
// (none when sluice never wrote there).
func Streams(ctx context.Context, q Querier) ([]string, error) {
	rows, err := q.QueryContext(ctx, `SELECT stream FROM sluice.checkpoint ORDER BY stream`)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: list streams: %w", err)
	}
	defer rows.Close()
	var names []string
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, fmt.Errorf("checkpoint: list streams: %w", err)
		}
		names = append(names, n)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: list streams: %w", err)
	}
	return names, nil
}
