package mysqlstate

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// snapshotTables are the run state of a snapshot into a MySQL target (the
// counterpart of the PostgreSQL target's sluice.snapshot_* tables). A
// chunk's rows and its done row commit in one target transaction, so the
// state never counts a chunk the target does not fully hold. %s is the
// engine, the same as the copied tables' so that one transaction covers both.
var snapshotTables = []string{
	`CREATE TABLE IF NOT EXISTS sluice.snapshot_run (
	stream       VARBINARY(128) NOT NULL PRIMARY KEY,
	status       VARCHAR(16) NOT NULL,          -- copying | complete
	fingerprint  LONGTEXT NOT NULL,             -- options a resumed run must share (JSON)
	tables       LONGTEXT NOT NULL,             -- the source tables (schema.Table, JSON) at the first pass
	pass         INT NOT NULL DEFAULT 0,        -- 1 for the first consistent read, +1 per resume
	position     MEDIUMTEXT NOT NULL,           -- source position of the current pass's consistent read
	method       VARCHAR(32) NOT NULL DEFAULT '',
	lock_held_ms BIGINT NOT NULL DEFAULT 0,
	started_at   DATETIME(6) NOT NULL,
	finished_at  DATETIME(6) NULL
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	`CREATE TABLE IF NOT EXISTS sluice.snapshot_table (
	stream     VARBINARY(128) NOT NULL,
	db_name    VARCHAR(64) NOT NULL,             -- source database
	table_name VARCHAR(64) NOT NULL,
	target_db  VARCHAR(64) NOT NULL,             -- the target database holding the copy
	created    BOOLEAN NOT NULL,                 -- this run created the target table
	planned    BOOLEAN NOT NULL DEFAULT FALSE,   -- every chunk is in snapshot_chunk
	definition LONGTEXT NULL,                    -- the target table's SHOW CREATE TABLE when the run began
	PRIMARY KEY (stream, db_name, table_name)
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	`CREATE TABLE IF NOT EXISTS sluice.snapshot_chunk (
	stream     VARBINARY(128) NOT NULL,
	db_name    VARCHAR(64) NOT NULL,
	table_name VARCHAR(64) NOT NULL,
	chunk      INT NOT NULL,                     -- 1, 2, ... in key order
	lower_key  LONGTEXT NULL,                    -- exclusive, JSON array of base64 values; NULL = from the first row
	upper_key  LONGTEXT NULL,                    -- inclusive; NULL = to the last row
	done       BOOLEAN NOT NULL DEFAULT FALSE,
	` + "`rows`" + `     BIGINT NOT NULL DEFAULT 0,
	bytes      BIGINT NOT NULL DEFAULT 0,
	hash       VARBINARY(16) NULL,               -- 128-bit hash of the rows as read
	pass       INT NOT NULL DEFAULT 0,           -- the pass whose consistent read the rows are as of
	position   MEDIUMTEXT NOT NULL,              -- source position of that consistent read ('' = none)
	copied_at  DATETIME(6) NULL,
	PRIMARY KEY (stream, db_name, table_name, chunk)
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
}

// EnsureSnapshot creates the snapshot state tables (Ensure first creates the
// database and the checkpoint tables). engine as in Ensure.
func EnsureSnapshot(ctx context.Context, q Querier, engine string) error {
	if err := Ensure(ctx, q, engine); err != nil {
		return err
	}
	if engine == "" {
		engine = "InnoDB"
	}
	for _, t := range snapshotTables {
		if _, err := q.ExecContext(ctx, fmt.Sprintf(t, engine)); err != nil {
			return fmt.Errorf("snapshot state: create tables in database sluice: %w", err)
		}
	}
	return nil
}

// SnapshotRun is the row of sluice.snapshot_run; Fingerprint and Tables are
// the caller's JSON, Position its encoded position.
type SnapshotRun struct {
	Status      string
	Fingerprint []byte
	Tables      []byte
	Pass        int
	Position    string
	Method      string
	LockHeldMS  int64
}

// LoadSnapshotRun returns the run of a stream, or nil when it has none.
func LoadSnapshotRun(ctx context.Context, q Querier, stream string) (*SnapshotRun, error) {
	var r SnapshotRun
	var fp, tables string
	err := q.QueryRowContext(ctx, `SELECT status, fingerprint, tables, pass, position, method, lock_held_ms
		FROM sluice.snapshot_run WHERE stream = ?`, stream).Scan(&r.Status, &fp, &tables, &r.Pass, &r.Position, &r.Method, &r.LockHeldMS)
	if errors.Is(err, sql.ErrNoRows) || missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load run of stream %q: %w", stream, err)
	}
	r.Fingerprint, r.Tables = []byte(fp), []byte(tables)
	return &r, nil
}

// InsertSnapshotRun records a new run.
func InsertSnapshotRun(ctx context.Context, q Querier, stream string, fingerprint, tables []byte) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.snapshot_run (stream, status, fingerprint, tables, position, started_at)
		VALUES (?, 'copying', ?, ?, '', UTC_TIMESTAMP(6))`, stream, string(fingerprint), string(tables))
	if err != nil {
		return fmt.Errorf("snapshot state: record run: %w", err)
	}
	return nil
}

// StartSnapshotPass records the consistent read a pass copies from.
func StartSnapshotPass(ctx context.Context, q Querier, stream string, pass int, position, method string, lockMS int64) error {
	_, err := q.ExecContext(ctx, `UPDATE sluice.snapshot_run SET pass = ?, position = ?, method = ?, lock_held_ms = ?
		WHERE stream = ?`, pass, position, method, lockMS, stream)
	if err != nil {
		return fmt.Errorf("snapshot state: record pass %d: %w", pass, err)
	}
	return nil
}

// CompleteSnapshotRun marks the run finished.
func CompleteSnapshotRun(ctx context.Context, q Querier, stream string) error {
	_, err := q.ExecContext(ctx, `UPDATE sluice.snapshot_run SET status = 'complete', finished_at = UTC_TIMESTAMP(6)
		WHERE stream = ?`, stream)
	if err != nil {
		return fmt.Errorf("snapshot state: complete run: %w", err)
	}
	return nil
}

// DeleteSnapshotRun forgets a stream's run, tables and chunks.
func DeleteSnapshotRun(ctx context.Context, q Querier, stream string) error {
	for _, t := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run"} {
		if _, err := q.ExecContext(ctx, "DELETE FROM sluice."+t+" WHERE stream = ?", stream); err != nil && !missing(err) {
			return fmt.Errorf("snapshot state: delete %s: %w", t, err)
		}
	}
	return nil
}

// SnapshotTable is a row of sluice.snapshot_table.
type SnapshotTable struct {
	Database, Name string // source table
	TargetDatabase string
	Created        bool
	Planned        bool
	// Definition is the caller's text of the target table's definition as
	// the run began, to tell on resume that nobody changed it.
	Definition string
}

// InsertSnapshotTable records a table of a new run.
func InsertSnapshotTable(ctx context.Context, q Querier, stream string, t SnapshotTable) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.snapshot_table (stream, db_name, table_name, target_db, created, definition)
		VALUES (?, ?, ?, ?, ?, ?)`, stream, t.Database, t.Name, t.TargetDatabase, t.Created, t.Definition)
	if err != nil {
		return fmt.Errorf("snapshot state: record table %s.%s: %w", t.Database, t.Name, err)
	}
	return nil
}

// LoadSnapshotTables returns the tables of a stream's run.
func LoadSnapshotTables(ctx context.Context, q Querier, stream string) ([]SnapshotTable, error) {
	rows, err := q.QueryContext(ctx, `SELECT db_name, table_name, target_db, created, planned, COALESCE(definition, '')
		FROM sluice.snapshot_table WHERE stream = ?`, stream)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load tables: %w", err)
	}
	defer rows.Close()
	var out []SnapshotTable
	for rows.Next() {
		var t SnapshotTable
		if err := rows.Scan(&t.Database, &t.Name, &t.TargetDatabase, &t.Created, &t.Planned, &t.Definition); err != nil {
			return nil, fmt.Errorf("snapshot state: load tables: %w", err)
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("snapshot state: load tables: %w", err)
	}
	return out, nil
}

// SetSnapshotTablePlanned marks every chunk of a table as recorded.
func SetSnapshotTablePlanned(ctx context.Context, q Querier, stream, db, table string) error {
	_, err := q.ExecContext(ctx, `UPDATE sluice.snapshot_table SET planned = TRUE WHERE stream = ? AND db_name = ? AND table_name = ?`,
		stream, db, table)
	if err != nil {
		return fmt.Errorf("snapshot state: mark %s.%s planned: %w", db, table, err)
	}
	return nil
}

// SnapshotChunk is a row of sluice.snapshot_chunk. Lo and Hi are key bounds
// (nil: open), one value per key column.
type SnapshotChunk struct {
	Seq      int
	Lo, Hi   [][]byte
	Done     bool
	Rows     int64
	Bytes    int64
	Hash     []byte
	Pass     int
	Position string
}

func boundText(b [][]byte) (any, error) {
	if b == nil {
		return nil, nil
	}
	j, err := json.Marshal(b) // each value base64: keys are bytes in any charset
	if err != nil {
		return nil, err
	}
	return string(j), nil
}

func parseBound(s sql.NullString) ([][]byte, error) {
	if !s.Valid {
		return nil, nil
	}
	var b [][]byte
	if err := json.Unmarshal([]byte(s.String), &b); err != nil {
		return nil, err
	}
	if b == nil {
		b = [][]byte{}
	}
	return b, nil
}

// InsertSnapshotChunk records a planned chunk; recording it again is a no-op
// (a resumed plan may).
func InsertSnapshotChunk(ctx context.Context, q Querier, stream, db, table string, c SnapshotChunk) error {
	lo, err := boundText(c.Lo)
	if err != nil {
		return err
	}
	hi, err := boundText(c.Hi)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT IGNORE INTO sluice.snapshot_chunk (stream, db_name, table_name, chunk, lower_key, upper_key, position)
		VALUES (?, ?, ?, ?, ?, ?, '')`, stream, db, table, c.Seq, lo, hi)
	if err != nil {
		return fmt.Errorf("snapshot state: record chunk %d of %s.%s: %w", c.Seq, db, table, err)
	}
	return nil
}

// MarkSnapshotChunkDone records a copied chunk; call it in the transaction
// that wrote the chunk's rows.
func MarkSnapshotChunkDone(ctx context.Context, q Querier, stream, db, table string, c SnapshotChunk) error {
	lo, err := boundText(c.Lo)
	if err != nil {
		return err
	}
	hi, err := boundText(c.Hi)
	if err != nil {
		return err
	}
	_, err = q.ExecContext(ctx, `INSERT INTO sluice.snapshot_chunk (stream, db_name, table_name, chunk, lower_key, upper_key,
			done, `+"`rows`"+`, bytes, hash, pass, position, copied_at)
		VALUES (?, ?, ?, ?, ?, ?, TRUE, ?, ?, ?, ?, ?, UTC_TIMESTAMP(6))
		ON DUPLICATE KEY UPDATE done = TRUE, `+"`rows`"+` = VALUES(`+"`rows`"+`), bytes = VALUES(bytes), hash = VALUES(hash),
			pass = VALUES(pass), position = VALUES(position), copied_at = VALUES(copied_at)`,
		stream, db, table, c.Seq, lo, hi, c.Rows, c.Bytes, c.Hash, c.Pass, c.Position)
	if err != nil {
		return fmt.Errorf("snapshot state: record chunk %d of %s.%s done: %w", c.Seq, db, table, err)
	}
	return nil
}

// KeepSnapshotChunk moves a copied chunk that did not change to a later pass.
func KeepSnapshotChunk(ctx context.Context, q Querier, stream, db, table string, seq, pass int, position string) error {
	_, err := q.ExecContext(ctx, `UPDATE sluice.snapshot_chunk SET pass = ?, position = ?
		WHERE stream = ? AND db_name = ? AND table_name = ? AND chunk = ?`, pass, position, stream, db, table, seq)
	if err != nil {
		return fmt.Errorf("snapshot state: keep chunk %d of %s.%s: %w", seq, db, table, err)
	}
	return nil
}

// LoadSnapshotChunks returns a table's chunks in key order.
func LoadSnapshotChunks(ctx context.Context, q Querier, stream, db, table string) ([]SnapshotChunk, error) {
	rows, err := q.QueryContext(ctx, `SELECT chunk, lower_key, upper_key, done, `+"`rows`"+`, bytes, hash, pass, position
		FROM sluice.snapshot_chunk WHERE stream = ? AND db_name = ? AND table_name = ? ORDER BY chunk`, stream, db, table)
	if err != nil {
		return nil, fmt.Errorf("snapshot state: load chunks of %s.%s: %w", db, table, err)
	}
	defer rows.Close()
	var out []SnapshotChunk
	for rows.Next() {
		var c SnapshotChunk
		var lo, hi sql.NullString
		if err := rows.Scan(&c.Seq, &lo, &hi, &c.Done, &c.Rows, &c.Bytes, &c.Hash, &c.Pass, &c.Position); err != nil {
			return nil, fmt.Errorf("snapshot state: load chunks of %s.%s: %w", db, table, err)
		}
		if c.Lo, err = parseBound(lo); err == nil {
			c.Hi, err = parseBound(hi)
		}
		if err != nil {
			return nil, fmt.Errorf("snapshot state: chunk %d of %s.%s: bad bound: %w", c.Seq, db, table, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("snapshot state: load chunks of %s.%s: %w", db, table, err)
	}
	return out, nil
}

// SnapshotLockName is the GET_LOCK name a snapshot of a stream holds on the
// target (at most 64 characters, as GET_LOCK allows). MySQL compares lock
// names without case (MariaDB does not): a name with upper-case letters is
// hashed, so that streams S and s lock apart everywhere.
func SnapshotLockName(stream string) string {
	n := "sluice snapshot " + stream
	if len(n) > 64 || strings.ToLower(stream) != stream {
		sum := sha256.Sum256([]byte(stream))
		n = "sluice snapshot " + hex.EncodeToString(sum[:20])
	}
	return n
}
