package checkpoint

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// A re-copy (`sluice snapshot --include T --recopy`) copies tables of a
// replicated stream again, at a source position P of its own, and hands
// them to the stream's replicator through sluice.recopy:
//
//   - requested: a re-copy wants the stream's replicator out of the way.
//     A running replicator drains (everything it read is committed) and
//     waits; a starting one waits. The re-copy holds the session advisory
//     lock (RecopyLockClass, hashtext(stream)) while it works, so a
//     replicator that finds the lock free knows the re-copy died and
//     continues without it.
//   - position P: the table's rows on the target are the source's at P.
//     The replicator skips the table's changes at or before P and applies
//     the later ones. Written in the same transaction as the rows.
//
// docs/replication.md ("Re-copying a table") has the argument.

// RecopyLockClass is the first key of the advisory lock a running re-copy
// of a stream holds (the second is hashtext(stream)).
const RecopyLockClass = 7371728

const recopyDDL = `
CREATE TABLE IF NOT EXISTS sluice.recopy (
	stream     text NOT NULL,
	database   text NOT NULL,
	table_name text NOT NULL,
	requested  boolean NOT NULL DEFAULT false, -- a re-copy waits for the replicator
	position   text NOT NULL DEFAULT '',       -- the source position the copied rows match ('' = none yet)
	updated_at timestamptz NOT NULL DEFAULT now(),
	PRIMARY KEY (stream, database, table_name)
);`

// EnsureRecopy creates sluice.recopy when missing.
func EnsureRecopy(ctx context.Context, q Querier) error {
	if err := EnsureTables(ctx, q, recopyDDL); err != nil {
		return fmt.Errorf("checkpoint: create table sluice.recopy: %w", err)
	}
	return nil
}

// RequestRecopy marks the tables as wanted by a re-copy.
func RequestRecopy(ctx context.Context, q Querier, stream string, ids []schema.TableID) error {
	for _, id := range ids {
		_, err := q.Exec(ctx, `INSERT INTO sluice.recopy (stream, database, table_name, requested) VALUES ($1, $2, $3, true)
			ON CONFLICT (stream, database, table_name) DO UPDATE SET requested = true, updated_at = now()`,
			stream, id.Database, id.Name)
		if err != nil {
			return fmt.Errorf("checkpoint: request re-copy of %s: %w", id, err)
		}
	}
	return nil
}

// RecopyRequested reports whether a re-copy of the stream waits for the
// replicator, and whether that re-copy is still alive (holds its lock).
func RecopyRequested(ctx context.Context, q Querier, stream string) (requested, alive bool, err error) {
	err = q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM sluice.recopy WHERE stream = $1 AND requested),
		EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND classid = $2 AND objid = hashtext($1)::oid
			AND objsubid = 2 AND granted AND pid <> pg_backend_pid())`, stream, RecopyLockClass).Scan(&requested, &alive)
	if IsUndefined(err) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("checkpoint: re-copy requests of stream %q: %w", stream, err)
	}
	return requested, alive, nil
}

// DropRecopyRequests forgets requests of the stream (a re-copy that died
// before it copied anything, or one that gives up).
func DropRecopyRequests(ctx context.Context, q Querier, stream string) error {
	for _, stmt := range []string{`DELETE FROM sluice.recopy WHERE stream = $1 AND requested AND position = ''`,
		`UPDATE sluice.recopy SET requested = false, updated_at = now() WHERE stream = $1 AND requested`} {
		_, err := q.Exec(ctx, stmt, stream)
		if IsUndefined(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("checkpoint: drop re-copy requests of stream %q: %w", stream, err)
		}
	}
	return nil
}

// MarkRecopied records that the table's target rows are the source's at pos.
func MarkRecopied(ctx context.Context, q Querier, stream string, id schema.TableID, pos model.Position) error {
	_, err := q.Exec(ctx, `INSERT INTO sluice.recopy (stream, database, table_name, requested, position) VALUES ($1, $2, $3, false, $4)
		ON CONFLICT (stream, database, table_name) DO UPDATE SET requested = false, position = EXCLUDED.position, updated_at = now()`,
		stream, id.Database, id.Name, pos.Encode())
	if err != nil {
		return fmt.Errorf("checkpoint: record re-copy of %s: %w", id, err)
	}
	return nil
}

// LoadRecopied returns the re-copied tables of the stream with the
// position their rows match.
func LoadRecopied(ctx context.Context, q Querier, stream string, decode model.PositionDecoder) (map[schema.TableID]model.Position, error) {
	rows, err := q.Query(ctx, `SELECT database, table_name, position FROM sluice.recopy WHERE stream = $1 AND position <> ''`, stream)
	if IsUndefined(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: re-copied tables of stream %q: %w", stream, err)
	}
	defer rows.Close()
	out := map[schema.TableID]model.Position{}
	for rows.Next() {
		var id schema.TableID
		var enc string
		if err := rows.Scan(&id.Database, &id.Name, &enc); err != nil {
			return nil, fmt.Errorf("checkpoint: re-copied tables: %w", err)
		}
		p, err := decode(enc)
		if err != nil || p == nil {
			return nil, fmt.Errorf("checkpoint: re-copy of %s: position %q: %v", id, enc, err)
		}
		out[id] = p
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("checkpoint: re-copied tables: %w", err)
	}
	return out, nil
}

// ForgetRecopied deletes re-copy records of the stream (the replicator's
// checkpoint passed their positions: nothing left to skip).
func ForgetRecopied(ctx context.Context, q Querier, stream string, ids []schema.TableID) error {
	for _, id := range ids {
		_, err := q.Exec(ctx, `DELETE FROM sluice.recopy WHERE stream = $1 AND database = $2 AND table_name = $3 AND NOT requested`,
			stream, id.Database, id.Name)
		if err != nil && !IsUndefined(err) {
			return fmt.Errorf("checkpoint: forget re-copy of %s: %w", id, err)
		}
	}
	return nil
}

// DeleteRecopy deletes every re-copy record of the stream (snapshot --restart).
// It runs inside other transactions, so it looks before it deletes.
func DeleteRecopy(ctx context.Context, q Querier, stream string) error {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT to_regclass('sluice.recopy') IS NOT NULL`).Scan(&exists); err != nil || !exists {
		return err
	}
	_, err := q.Exec(ctx, `DELETE FROM sluice.recopy WHERE stream = $1`, stream)
	if err != nil {
		return fmt.Errorf("checkpoint: delete re-copy records of stream %q: %w", stream, err)
	}
	return nil
}
