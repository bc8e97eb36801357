package checkpoint

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// The adds of tables to a running stream (`sluice snapshot --add`,
// target.TableAdder): one record per table in sluice.add_table, written by
// the command (requested) and then by the stream's replicator (copying,
// with the last merged chunk's key bound, in the chunk's transaction;
// done).

// AddLockClass is the first key of the transaction advisory lock that
// serialises two requests of one stream (the second is hashtext(stream)).
const AddLockClass = 7371729

const addDDL = `
CREATE TABLE IF NOT EXISTS sluice.add_table (
	stream       text NOT NULL,
	database     text NOT NULL,
	table_name   text NOT NULL,
	state        text NOT NULL,              -- requested, copying, done
	joined       text NOT NULL DEFAULT '',   -- the source position the table joined at ('' = not yet)
	last_key     text NOT NULL DEFAULT '',   -- the key bound of the last merged chunk ('' = none)
	rows_copied  bigint NOT NULL DEFAULT 0,
	chunks       bigint NOT NULL DEFAULT 0,
	requested_at timestamptz NOT NULL DEFAULT now(),
	updated_at   timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, database, table_name)
);`

// EnsureAdd creates sluice.add_table when missing.
func EnsureAdd(ctx context.Context, q Querier) error {
	if err := EnsureTables(ctx, q, addDDL); err != nil {
		return fmt.Errorf("checkpoint: create table sluice.add_table: %w", err)
	}
	return nil
}

// RequestAdd records the tables as requested in one transaction, or
// refuses with target.ErrAddPending while an add of the stream is not
// done. Requests of one stream are serialised by an advisory lock, so of
// two at once the second sees the first's records.
func RequestAdd(ctx context.Context, db pgx.Tx, stream string, ids []schema.TableID) error {
	if _, err := db.Exec(ctx, "SELECT pg_advisory_xact_lock($1, hashtext($2))", AddLockClass, stream); err != nil {
		return fmt.Errorf("checkpoint: lock the adds of stream %q: %w", stream, err)
	}
	var running []string
	rows, err := db.Query(ctx, `SELECT database || '.' || table_name FROM sluice.add_table
		WHERE stream = $1 AND state <> $2 ORDER BY 1`, stream, string(target.AddDone))
	if err != nil {
		return fmt.Errorf("checkpoint: adds of stream %q: %w", stream, err)
	}
	if running, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		return fmt.Errorf("checkpoint: adds of stream %q: %w", stream, err)
	}
	if len(running) > 0 {
		return fmt.Errorf("%w (tables %v)", target.ErrAddPending, running)
	}
	for _, id := range ids {
		_, err := db.Exec(ctx, `INSERT INTO sluice.add_table (stream, database, table_name, state) VALUES ($1, $2, $3, $4)
			ON CONFLICT (stream, database, table_name) DO UPDATE SET state = EXCLUDED.state, joined = '', last_key = '',
				rows_copied = 0, chunks = 0, requested_at = now(), updated_at = now()`,
			stream, id.Database, id.Name, string(target.AddRequested))
		if err != nil {
			return fmt.Errorf("checkpoint: request add of %s: %w", id, err)
		}
	}
	return nil
}

// LoadAdds is the stream's add records in table order (none when the
// table does not exist).
func LoadAdds(ctx context.Context, q Querier, stream string) ([]target.AddRecord, error) {
	rows, err := q.Query(ctx, `SELECT database, table_name, state, joined, last_key, rows_copied, chunks, requested_at, updated_at
		FROM sluice.add_table WHERE stream = $1 ORDER BY database, table_name`, stream)
	if IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: adds of stream %q: %w", stream, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (target.AddRecord, error) {
		var a target.AddRecord
		var state string
		err := r.Scan(&a.Table.Database, &a.Table.Name, &state, &a.Joined, &a.LastKey, &a.Rows, &a.Chunks, &a.RequestedAt, &a.UpdatedAt)
		a.State = target.AddState(state)
		return a, err
	})
	if IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: adds of stream %q: %w", stream, err)
	}
	return out, nil
}

// SaveAdd records one table's progress; call it in the transaction of the
// chunk it covers.
func SaveAdd(ctx context.Context, q Querier, stream string, a target.AddRecord) error {
	_, err := q.Exec(ctx, `INSERT INTO sluice.add_table (stream, database, table_name, state, joined, last_key, rows_copied, chunks)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
		ON CONFLICT (stream, database, table_name) DO UPDATE SET state = EXCLUDED.state, joined = EXCLUDED.joined,
			last_key = EXCLUDED.last_key, rows_copied = EXCLUDED.rows_copied, chunks = EXCLUDED.chunks, updated_at = now()`,
		stream, a.Table.Database, a.Table.Name, string(a.State), a.Joined, a.LastKey, a.Rows, a.Chunks)
	if err != nil {
		return fmt.Errorf("checkpoint: record add of %s: %w", a.Table, err)
	}
	return nil
}

// ForgetAdds deletes the tables' add records.
func ForgetAdds(ctx context.Context, q Querier, stream string, ids []schema.TableID) error {
	for _, id := range ids {
		_, err := q.Exec(ctx, `DELETE FROM sluice.add_table WHERE stream = $1 AND database = $2 AND table_name = $3`,
			stream, id.Database, id.Name)
		if IsUndefined(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: forget add of %s: %w", id, err)
		}
	}
	return nil
}
