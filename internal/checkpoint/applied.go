package checkpoint

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/sluice-db/sluice/internal/model"
)

// The applied table records, per target transaction of the parallel apply,
// which source transactions it committed. Workers commit out of source order,
// so the checkpoint (a position below which everything is committed) trails
// behind them; the applied rows above it say exactly which later source
// transactions are already in the target. Each row is written in the same
// target transaction as the data it names, and deleted once the checkpoint
// covers it, so the table stays as small as the apply window.
//
// A source transaction is named by its end position (binlog file and offset
// after its commit event): stable across restarts, since a restarted stream
// re-reads the same files, unlike the in-memory sequence numbers.
const appliedDDL = `
CREATE TABLE IF NOT EXISTS sluice.applied (
	stream      text NOT NULL,
	binlog_file text NOT NULL,   -- end position of the last source transaction in the row
	binlog_pos  bigint NOT NULL,
	files       text[] NOT NULL, -- end positions of every source transaction in the row
	positions   bigint[] NOT NULL,
	start_file  text NOT NULL DEFAULT '', -- the checkpoint the writing run started from
	start_pos   bigint NOT NULL DEFAULT 0,
	recorded_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, binlog_file, binlog_pos)
)`

// appliedUpgrade adds the columns a table created by an earlier version lacks.
const appliedUpgrade = `
ALTER TABLE sluice.applied ADD COLUMN IF NOT EXISTS start_file text NOT NULL DEFAULT '';
ALTER TABLE sluice.applied ADD COLUMN IF NOT EXISTS start_pos bigint NOT NULL DEFAULT 0`

// InsertAppliedSQL records one target transaction's source transactions; the
// arguments are stream, the last end position's file and offset, the files
// and offsets of all end positions (text[] and bigint[]), and the file and
// offset of the checkpoint the run started from.
//
// The start position makes a row verifiable: in one binlog history every
// run starts at or after the start of the runs before it, and the checkpoint
// only moves forward, so a row whose start lies beyond the current
// checkpoint belongs to another history (a reset binary log and a new
// snapshot under the same stream name) and must not make apply skip anything.
const InsertAppliedSQL = `INSERT INTO sluice.applied (stream, binlog_file, binlog_pos, files, positions, start_file, start_pos)
	VALUES ($1, $2, $3, $4, $5, $6, $7)`

// EnsureApplied creates the applied table (after Ensure created the schema).
func EnsureApplied(ctx context.Context, q Querier) error {
	if _, err := q.Exec(ctx, `SELECT pg_advisory_lock(7371726)`); err != nil {
		return fmt.Errorf("checkpoint: lock for applied table creation: %w", err)
	}
	_, err := q.Exec(ctx, appliedDDL)
	if err == nil {
		// ALTER TABLE locks the table even when there is nothing to add:
		// only run it when a column is missing.
		var missing bool
		err = q.QueryRow(ctx, `SELECT NOT EXISTS (SELECT 1 FROM information_schema.columns
			WHERE table_schema = 'sluice' AND table_name = 'applied' AND column_name = 'start_pos')`).Scan(&missing)
		if err == nil && missing {
			_, err = q.Exec(ctx, appliedUpgrade)
		}
	}
	_, uerr := q.Exec(ctx, `SELECT pg_advisory_unlock(7371726)`)
	if err != nil {
		return fmt.Errorf("checkpoint: create table sluice.applied: %w", err)
	}
	if uerr != nil {
		return fmt.Errorf("checkpoint: unlock: %w", uerr)
	}
	return nil
}

// AppliedRow is one row of the applied table.
type AppliedRow struct {
	Last  model.Position   // the row's key: its newest end position
	Ends  []model.Position // every source transaction it covers
	Start model.Position   // the checkpoint the run that wrote it started from
}

// LoadApplied returns the applied rows of a stream.
func LoadApplied(ctx context.Context, q Querier, stream string) ([]AppliedRow, error) {
	rows, err := q.Query(ctx, `SELECT binlog_file, binlog_pos, files, positions, start_file, start_pos FROM sluice.applied
		WHERE stream = $1 ORDER BY binlog_file, binlog_pos`, stream)
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load applied transactions of stream %q: %w", stream, err)
	}
	defer rows.Close()
	var out []AppliedRow
	for rows.Next() {
		var r AppliedRow
		var pos, startPos int64
		var files []string
		var positions []int64
		if err := rows.Scan(&r.Last.File, &pos, &files, &positions, &r.Start.File, &startPos); err != nil {
			return nil, fmt.Errorf("checkpoint: scan applied: %w", err)
		}
		r.Start.Pos = uint32(startPos)
		if len(files) != len(positions) {
			return nil, fmt.Errorf("checkpoint: applied row %s:%d has %d files but %d positions",
				r.Last.File, pos, len(files), len(positions))
		}
		r.Last.Pos = uint32(pos)
		for i := range files {
			r.Ends = append(r.Ends, model.Position{File: files[i], Pos: uint32(positions[i])})
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: load applied transactions of stream %q: %w", stream, err)
	}
	return out, nil
}

// DeleteAppliedRows deletes the applied rows with the given keys (their Last
// positions), once a saved checkpoint covers them.
func DeleteAppliedRows(ctx context.Context, q Querier, stream string, keys []model.Position) error {
	if len(keys) == 0 {
		return nil
	}
	files := make([]string, len(keys))
	poss := make([]int64, len(keys))
	for i, k := range keys {
		files[i], poss[i] = k.File, int64(k.Pos)
	}
	_, err := q.Exec(ctx, `DELETE FROM sluice.applied a USING unnest($2::text[], $3::bigint[]) AS k(f, p)
		WHERE a.stream = $1 AND a.binlog_file = k.f AND a.binlog_pos = k.p`, stream, files, poss)
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
