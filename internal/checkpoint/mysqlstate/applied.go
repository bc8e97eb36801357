package mysqlstate

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
)

// The applied records of the parallel apply, as in PostgreSQL
// (checkpoint/applied.go explains them); ends is a JSON array of position
// keys.

// InsertApplied records one target transaction's source transactions: the
// last end position's key, the keys of all end positions, and the key of the
// checkpoint the run started from ("" when it started without one). Call it
// inside the transaction that writes their rows.
func InsertApplied(ctx context.Context, q Querier, stream, lastKey string, endKeys []string, startKey string) error {
	ends, err := json.Marshal(endKeys)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO sluice.applied (stream, last_key, ends, start_key, recorded_at) VALUES (?, ?, ?, ?, ?)`,
		stream, lastKey, string(ends), startKey, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("checkpoint: record applied transactions up to %s: %w", lastKey, err)
	}
	return nil
}

// LoadApplied returns the applied records of a stream, positions read back
// with the source's decoder.
func LoadApplied(ctx context.Context, q Querier, stream string, decode model.PositionDecoder) ([]checkpoint.AppliedRow, error) {
	rows, err := q.QueryContext(ctx, `SELECT last_key, ends, start_key FROM sluice.applied WHERE stream = ?`, stream)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load applied transactions of stream %q: %w", stream, err)
	}
	defer rows.Close()
	var out []checkpoint.AppliedRow
	for rows.Next() {
		var last, endsJSON, start string
		if err := rows.Scan(&last, &endsJSON, &start); err != nil {
			return nil, fmt.Errorf("checkpoint: scan applied: %w", err)
		}
		var ends []string
		if err := json.Unmarshal([]byte(endsJSON), &ends); err != nil {
			return nil, fmt.Errorf("checkpoint: applied row %q: ends: %w", last, err)
		}
		r, err := checkpoint.DecodeAppliedRow(last, ends, start, decode)
		if err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: load applied transactions of stream %q: %w", stream, err)
	}
	return out, nil
}

// DeleteAppliedRows deletes the applied records with the given Last
// positions, once a saved checkpoint covers them.
func DeleteAppliedRows(ctx context.Context, q Querier, stream string, lasts []model.Position) error {
	for len(lasts) > 0 {
		n := min(len(lasts), 500)
		args := make([]any, 0, n+1)
		args = append(args, stream)
		for _, p := range lasts[:n] {
			args = append(args, p.Key())
		}
		q1 := `DELETE FROM sluice.applied WHERE stream = ? AND last_key IN (?` + strings.Repeat(",?", n-1) + `)`
		if _, err := q.ExecContext(ctx, q1, args...); err != nil {
			return fmt.Errorf("checkpoint: delete %d applied rows of stream %q: %w", n, stream, err)
		}
		lasts = lasts[n:]
	}
	return nil
}
