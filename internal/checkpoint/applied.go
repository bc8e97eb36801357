package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// The applied table records, per target transaction of the parallel apply,
// which source transactions it committed. Workers commit out of source order,
// so the checkpoint (a position below which everything is committed) trails
// behind them; the applied rows above it say exactly which later source
// transactions are already in the target. Each row is written in the same
// target transaction as the data it names, and deleted once the checkpoint
// covers it, so the table stays as small as the apply window.
//
// A source transaction is named by the key of its end position
// (model.Position.Key: for a binlog, file and offset after its commit event):
// stable across restarts, since a restarted stream re-reads the same
// transactions, unlike the in-memory sequence numbers.
const appliedDDL = `
CREATE TABLE IF NOT EXISTS sluice.applied (
	stream      text NOT NULL,
	last_key    text NOT NULL,   -- end position key of the last source transaction in the row
	ends        text[] NOT NULL, -- end position keys of every source transaction in the row
	start_key   text NOT NULL DEFAULT '', -- the checkpoint the writing run started from
	recorded_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, last_key)
)`

// InsertAppliedSQL records one target transaction's source transactions; the
// arguments are stream, the last end position's key, the keys of all end
// positions (text[]), and the key of the checkpoint the run started from
// (empty when it started without one).
//
// The start position makes a row verifiable: in one stream history every
// run starts at or after the start of the runs before it, and the checkpoint
// only moves forward, so a row whose start lies beyond the current
// checkpoint belongs to another history (a reset binary log and a new
// snapshot under the same stream name) and must not make apply skip anything.
const InsertAppliedSQL = `INSERT INTO sluice.applied (stream, last_key, ends, start_key) VALUES ($1, $2, $3, $4)`

// EnsureApplied creates the applied table (after Ensure created the schema).
func EnsureApplied(ctx context.Context, q Querier) error {
	if err := EnsureTables(ctx, q, appliedDDL+";"+legacyAppliedSQL); err != nil {
		return fmt.Errorf("checkpoint: create table sluice.applied: %w", err)
	}
	return nil
}

// AppliedRow is one row of the applied table; it lives in pipeline (see State).
type AppliedRow = pipeline.AppliedRow

// LoadApplied returns the applied rows of a stream, positions read back
// with the source's decoder.
func LoadApplied(ctx context.Context, q Querier, stream string, decode model.PositionDecoder) ([]AppliedRow, error) {
	rows, err := q.Query(ctx, `SELECT last_key, ends, start_key FROM sluice.applied WHERE stream = $1`, stream)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load applied transactions of stream %q: %w", stream, err)
	}
	defer rows.Close()
	var out []AppliedRow
	for rows.Next() {
		var ends []string
		var last, start string
		if err := rows.Scan(&last, &ends, &start); err != nil {
			return nil, fmt.Errorf("checkpoint: scan applied: %w", err)
		}
		r, err := DecodeAppliedRow(last, ends, start, decode)
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

// DeleteAppliedRows deletes the applied rows with the given Last positions,
// once a saved checkpoint covers them.
func DeleteAppliedRows(ctx context.Context, q Querier, stream string, lasts []model.Position) error {
	if len(lasts) == 0 {
		return nil
	}
	keys := make([]string, len(lasts))
	for i, p := range lasts {
		keys[i] = p.Key()
	}
	_, err := q.Exec(ctx, `DELETE FROM sluice.applied WHERE stream = $1 AND last_key = ANY($2::text[])`, stream, keys)
	if err != nil {
		return fmt.Errorf("checkpoint: delete %d applied rows of stream %q: %w", len(keys), stream, err)
	}
	return nil
}

// DeleteApplied forgets every applied row of a stream (with the checkpoint,
// when a new snapshot starts the stream over). A missing table is not an error.
func DeleteApplied(ctx context.Context, q Querier, stream string) error {
	_, err := q.Exec(ctx, `DELETE FROM sluice.applied WHERE stream = $1`, stream)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checkpoint: delete applied rows of stream %q: %w", stream, err)
	}
	return nil
}

// DecodeAppliedRow reads one applied record back from its stored keys
// (shared by the state stores of every target engine).
func DecodeAppliedRow(last string, ends []string, start string, decode model.PositionDecoder) (AppliedRow, error) {
	var r AppliedRow
	var err error
	if r.Last, err = decode(last); err != nil || r.Last == nil {
		return r, fmt.Errorf("checkpoint: applied row %q: %v", last, err)
	}
	if r.Start, err = decode(start); err != nil {
		return r, fmt.Errorf("checkpoint: applied row %s: start: %w", r.Last, err)
	}
	for _, e := range ends {
		p, err := decode(e)
		if err != nil || p == nil {
			return r, fmt.Errorf("checkpoint: applied row %s: end %q: %v", r.Last, e, err)
		}
		r.Ends = append(r.Ends, p)
	}
	return r, nil
}
