package postgres

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// The run state lives in the target next to the checkpoint. A chunk's COPY
// and its done row commit in one transaction, so the state never counts a
// chunk the target does not fully hold.
const stateDDL = `
CREATE TABLE IF NOT EXISTS sluice.snapshot_run (
	stream       text PRIMARY KEY,
	status       text NOT NULL,              -- copying | complete
	fingerprint  jsonb NOT NULL,             -- options a resumed run must share
	tables       jsonb NOT NULL,             -- the source tables (schema.Table) at the first pass
	pass         int NOT NULL DEFAULT 0,     -- 1 for the first consistent read, +1 per resume
	position     text NOT NULL DEFAULT '',   -- source position of the current pass's consistent read
	method       text NOT NULL DEFAULT '',
	lock_held_ms bigint NOT NULL DEFAULT 0,
	started_at   timestamptz NOT NULL DEFAULT now(),
	updated_at   timestamptz NOT NULL DEFAULT now(),
	finished_at  timestamptz
);
CREATE TABLE IF NOT EXISTS sluice.snapshot_table (
	stream        text NOT NULL,
	database      text NOT NULL,
	table_name    text NOT NULL,
	target_schema text NOT NULL,
	created       boolean NOT NULL,              -- this run created the target table
	planned       boolean NOT NULL DEFAULT false, -- every chunk is in snapshot_chunk
	indexed       boolean NOT NULL DEFAULT false, -- indexes built, sequences set, analyzed
	PRIMARY KEY (stream, database, table_name)
);
CREATE TABLE IF NOT EXISTS sluice.snapshot_chunk (
	stream      text NOT NULL,
	database    text NOT NULL,
	table_name  text NOT NULL,
	chunk       int NOT NULL,                 -- 1, 2, ... in key order
	lower_key   bytea[],                      -- exclusive; NULL = from the first row
	upper_key   bytea[],                      -- inclusive; NULL = to the last row
	done        boolean NOT NULL DEFAULT false,
	rows        bigint NOT NULL DEFAULT 0,
	bytes       bigint NOT NULL DEFAULT 0,
	hash        bytea,                        -- 128-bit hash (2 × xxHash64) of the rows as read
	changes     jsonb,                        -- values changed by policy in this chunk
	pass        int NOT NULL DEFAULT 0,       -- the pass whose consistent read the rows are as of
	position    text NOT NULL DEFAULT '',     -- source position of that consistent read
	copied_at   timestamptz,
	PRIMARY KEY (stream, database, table_name, chunk)
);`

// ensureState creates the sluice schema (checkpoint.Ensure) and the
// snapshot state tables, serialised like checkpoint.Ensure.
func ensureState(ctx context.Context, q checkpoint.Querier) error {
	if err := checkpoint.Ensure(ctx, q); err != nil {
		return err
	}
	if err := checkpoint.EnsureTables(ctx, q, stateDDL+legacyStateSQL); err != nil {
		return fmt.Errorf("snapshot state: create tables in schema sluice: %w", err)
	}
	return nil
}

// legacyStateSQL converts the state of a snapshot an earlier sluice left
// half-done (see checkpoint/legacy.go), so it resumes after the upgrade.
var legacyStateSQL = checkpoint.LegacyConversion("snapshot_run", "binlog_file", `
ALTER TABLE sluice.snapshot_run ADD COLUMN position text NOT NULL DEFAULT '';
UPDATE sluice.snapshot_run SET position = json_build_object('kind', 'mysql', 'file', binlog_file,
	'pos', binlog_pos, 'gtid_set', gtid_set, 'flavor', flavor)::text WHERE binlog_file <> '' OR gtid_set <> '';
ALTER TABLE sluice.snapshot_run DROP COLUMN binlog_file, DROP COLUMN binlog_pos, DROP COLUMN gtid_set,
	DROP COLUMN flavor`) + checkpoint.LegacyConversion("snapshot_chunk", "binlog_file", `
ALTER TABLE sluice.snapshot_chunk ADD COLUMN position text NOT NULL DEFAULT '';
UPDATE sluice.snapshot_chunk SET position = `+checkpoint.MySQLPositionJSON+` WHERE binlog_file <> '' OR gtid_set <> '';
ALTER TABLE sluice.snapshot_chunk DROP COLUMN binlog_file, DROP COLUMN binlog_pos, DROP COLUMN gtid_set`)

// encodeChunkPosition stores "" for a chunk not copied at any position.
func encodeChunkPosition(p binlogpos.Position) string {
	if p.IsZero() {
		return ""
	}
	return p.Encode()
}

func loadRun(ctx context.Context, q checkpoint.Querier, stream string) (*bulkrun.RunState, error) {
	var r bulkrun.RunState
	var fp, tables []byte
	var pos string
	err := q.QueryRow(ctx, `SELECT status, fingerprint, tables, pass, position,
		method, lock_held_ms, started_at FROM sluice.snapshot_run WHERE stream = $1`, stream).Scan(
		&r.Status, &fp, &tables, &r.Pass, &pos, &r.Method, &r.LockHeldMS, &r.StartedAt)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load run of stream %q: %w", stream, err)
	}
	if err := r.Decode(stream, pos, fp, tables); err != nil {
		return nil, err
	}
	return &r, nil
}

func insertRun(ctx context.Context, q checkpoint.Querier, stream string, fp bulkrun.Fingerprint, tables []*schema.Table) error {
	fpj, err := json.Marshal(fp)
	if err != nil {
		return err
	}
	tj, err := json.Marshal(tables)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO sluice.snapshot_run (stream, status, fingerprint, tables) VALUES ($1, 'copying', $2, $3)`,
		stream, string(fpj), string(tj))
	if err != nil {
		return fmt.Errorf("snapshot state: record run: %w", err)
	}
	return nil
}

// startPass records the consistent read a pass copies from.
func startPass(ctx context.Context, q checkpoint.Querier, stream string, pass int, pos binlogpos.Position, method string, lockMS int64) error {
	_, err := q.Exec(ctx, `UPDATE sluice.snapshot_run SET pass = $2, position = $3,
		method = $4, lock_held_ms = $5, updated_at = now() WHERE stream = $1`,
		stream, pass, pos.Encode(), method, lockMS)
	if err != nil {
		return fmt.Errorf("snapshot state: record pass %d at %s: %w", pass, pos, err)
	}
	return nil
}

func completeRun(ctx context.Context, q checkpoint.Querier, stream string) error {
	_, err := q.Exec(ctx, `UPDATE sluice.snapshot_run SET status = 'complete', finished_at = now(), updated_at = now()
		WHERE stream = $1`, stream)
	if err != nil {
		return fmt.Errorf("snapshot state: complete run: %w", err)
	}
	return nil
}

// DeleteSnapshotRun deletes a stream's snapshot state: its run, tables and
// chunks (--restart, and the re-copy's own sub-stream in internal/snapshot).
func DeleteSnapshotRun(ctx context.Context, q checkpoint.Querier, stream string) error {
	for _, t := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run"} {
		if _, err := q.Exec(ctx, "DELETE FROM sluice."+t+" WHERE stream = $1", stream); err != nil {
			return fmt.Errorf("snapshot state: delete %s: %w", t, err)
		}
	}
	return nil
}

func insertTable(ctx context.Context, q checkpoint.Querier, stream string, ts bulkrun.TableState) error {
	_, err := q.Exec(ctx, `INSERT INTO sluice.snapshot_table (stream, database, table_name, target_schema, created)
		VALUES ($1, $2, $3, $4, $5)`, stream, ts.ID.Database, ts.ID.Name, ts.TargetSchema, ts.Created)
	if err != nil {
		return fmt.Errorf("snapshot state: record table %s: %w", ts.ID, err)
	}
	return nil
}

func loadTableStates(ctx context.Context, q checkpoint.Querier, stream string) (map[schema.TableID]*bulkrun.TableState, error) {
	rows, err := q.Query(ctx, `SELECT database, table_name, target_schema, created, planned, indexed
		FROM sluice.snapshot_table WHERE stream = $1`, stream)
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load tables: %w", err)
	}
	defer rows.Close()
	out := map[schema.TableID]*bulkrun.TableState{}
	for rows.Next() {
		ts := &bulkrun.TableState{}
		if err := rows.Scan(&ts.ID.Database, &ts.ID.Name, &ts.TargetSchema, &ts.Created, &ts.Planned, &ts.Indexed); err != nil {
			return nil, fmt.Errorf("snapshot state: load tables: %w", err)
		}
		out[ts.ID] = ts
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("snapshot state: load tables: %w", err)
	}
	return out, nil
}

func setTableFlag(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID, flag string, v bool) error {
	_, err := q.Exec(ctx, "UPDATE sluice.snapshot_table SET "+flag+" = $4 WHERE stream = $1 AND database = $2 AND table_name = $3",
		stream, id.Database, id.Name, v)
	if err != nil {
		return fmt.Errorf("snapshot state: mark %s %s: %w", id, flag, err)
	}
	return nil
}

func boundArg(b mysnap.Bound) any {
	if b == nil {
		return nil
	}
	return [][]byte(b)
}

// insertChunk records a planned chunk (idempotent: a resumed plan may
// record a chunk again).
func insertChunk(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID, c mysnap.Chunk) error {
	_, err := q.Exec(ctx, `INSERT INTO sluice.snapshot_chunk (stream, database, table_name, chunk, lower_key, upper_key)
		VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING`,
		stream, id.Database, id.Name, c.Seq, boundArg(c.Lo), boundArg(c.Hi))
	if err != nil {
		return fmt.Errorf("snapshot state: record %s: %w", c, err)
	}
	return nil
}

func loadChunks(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID) ([]bulkrun.ChunkState, error) {
	rows, err := q.Query(ctx, `SELECT chunk, lower_key, upper_key, done, rows, bytes, hash, changes, pass,
		position FROM sluice.snapshot_chunk
		WHERE stream = $1 AND database = $2 AND table_name = $3 ORDER BY chunk`, stream, id.Database, id.Name)
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load chunks of %s: %w", id, err)
	}
	defer rows.Close()
	var out []bulkrun.ChunkState
	for rows.Next() {
		var c bulkrun.ChunkState
		var lo, hi [][]byte
		var changes []byte
		var pos string
		if err := rows.Scan(&c.Seq, &lo, &hi, &c.Done, &c.Rows, &c.Bytes, &c.Hash, &changes, &c.Pass, &pos); err != nil {
			return nil, fmt.Errorf("snapshot state: load chunks of %s: %w", id, err)
		}
		c.Lo, c.Hi = lo, hi
		var err error
		if c.Position, err = binlogpos.Parse(pos); err != nil {
			return nil, fmt.Errorf("snapshot state: chunk %d of %s: %w", c.Seq, id, err)
		}
		if len(changes) > 0 {
			if err := json.Unmarshal(changes, &c.Changes); err != nil {
				return nil, fmt.Errorf("snapshot state: chunk %d of %s: %w", c.Seq, id, err)
			}
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("snapshot state: load chunks of %s: %w", id, err)
	}
	return out, nil
}

// markChunkDone records a copied chunk; it runs in the COPY's transaction.
func markChunkDone(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID, c mysnap.Chunk, st bulkrun.ChunkState) error {
	changes, err := json.Marshal(st.Changes)
	if err != nil {
		return err
	}
	_, err = q.Exec(ctx, `INSERT INTO sluice.snapshot_chunk (stream, database, table_name, chunk, lower_key, upper_key,
			done, rows, bytes, hash, changes, pass, position, copied_at)
		VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $10, $11, $12, now())
		ON CONFLICT (stream, database, table_name, chunk) DO UPDATE SET done = true, rows = EXCLUDED.rows,
			bytes = EXCLUDED.bytes, hash = EXCLUDED.hash, changes = EXCLUDED.changes, pass = EXCLUDED.pass,
			position = EXCLUDED.position, copied_at = now()`,
		stream, id.Database, id.Name, c.Seq, boundArg(c.Lo), boundArg(c.Hi), st.Rows, st.Bytes, st.Hash, string(changes),
		st.Pass, encodeChunkPosition(st.Position))
	if err != nil {
		return fmt.Errorf("snapshot state: record %s done: %w", c, err)
	}
	return nil
}

// keepChunk moves a chunk that did not change to a later pass.
func keepChunk(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID, seq, pass int, pos binlogpos.Position) error {
	_, err := q.Exec(ctx, `UPDATE sluice.snapshot_chunk SET pass = $5, position = $6
		WHERE stream = $1 AND database = $2 AND table_name = $3 AND chunk = $4`,
		stream, id.Database, id.Name, seq, pass, encodeChunkPosition(pos))
	if err != nil {
		return fmt.Errorf("snapshot state: keep chunk %d of %s: %w", seq, id, err)
	}
	return nil
}

// resetChunks marks every chunk of a table as not copied (the table was truncated).
func resetChunks(ctx context.Context, q checkpoint.Querier, stream string, id schema.TableID) error {
	_, err := q.Exec(ctx, `UPDATE sluice.snapshot_chunk SET done = false, rows = 0, bytes = 0, hash = NULL, changes = NULL,
		pass = 0 WHERE stream = $1 AND database = $2 AND table_name = $3`, stream, id.Database, id.Name)
	if err != nil {
		return fmt.Errorf("snapshot state: reset chunks of %s: %w", id, err)
	}
	return nil
}
