// Package mysqlstate keeps sluice's state in a MySQL/MariaDB target, in the
// database `sluice` (the counterpart of the PostgreSQL target's schema
// sluice, package checkpoint): the checkpoint per stream, the applied records
// of the parallel apply's window, and the schema history. Each is written in
// the same target transaction as the rows it covers, so its tables use a
// transactional engine (the target's, InnoDB by default).
package mysqlstate

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// dateTime is how a DATETIME(6) reads as text (always in UTC here).
const dateTime = "2006-01-02 15:04:05.999999"

// Database is the target database that holds sluice's own tables.
const Database = "sluice"

// Querier is what *sql.DB, *sql.Conn and *sql.Tx offer.
type Querier interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// tables are sluice's state tables; %s is the engine. Positions are the
// source's own text (model.Position.Encode/Key), as in PostgreSQL.
var tables = []string{
	`CREATE TABLE IF NOT EXISTS sluice.checkpoint (
	stream         VARBINARY(128) NOT NULL PRIMARY KEY,
	position       MEDIUMTEXT NOT NULL,
	schema_version BIGINT NOT NULL DEFAULT 0,
	source_time    DATETIME(6) NULL,
	updated_at     DATETIME(6) NOT NULL
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	`CREATE TABLE IF NOT EXISTS sluice.schema_history (
	stream      VARBINARY(128) NOT NULL,
	version     BIGINT NOT NULL,
	db_name     VARCHAR(64) NOT NULL,
	table_name  VARCHAR(64) NOT NULL,
	definition  LONGTEXT NULL,
	ddl         LONGTEXT NOT NULL,
	position    MEDIUMTEXT NOT NULL,
	recorded_at DATETIME(6) NOT NULL,
	PRIMARY KEY (stream, version, db_name, table_name)
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	`CREATE TABLE IF NOT EXISTS sluice.applied (
	stream      VARBINARY(128) NOT NULL,
	last_key    VARBINARY(255) NOT NULL,
	ends        LONGTEXT NOT NULL,
	start_key   VARBINARY(255) NOT NULL DEFAULT '',
	recorded_at DATETIME(6) NOT NULL,
	PRIMARY KEY (stream, last_key)
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`,
	targetTable,
	ownerTable,
}

// MaxStream is the longest stream name (bytes) the state tables hold: their
// keys are binary and short enough for every engine's index limit (MyRocks:
// 767 bytes per key).
const MaxStream = 128

// CheckStream refuses a stream name the state tables cannot hold (the
// target's sessions run without STRICT, where a longer name would be cut
// short silently and two streams could share their state).
func CheckStream(stream string) error {
	if len(stream) > MaxStream {
		return fmt.Errorf("--stream %q is %d bytes long; a MySQL target keeps at most %d", stream, len(stream), MaxStream)
	}
	return nil
}

// allTables are the templates of every state table (tests create them on
// each engine).
func allTables() []string {
	return append(append(append([]string{}, tables...), snapshotTables...), pendingTable, addTable)
}

// Ensure creates the sluice database and its tables when missing. engine is
// the storage engine of the tables ("" = InnoDB); it must be transactional.
func Ensure(ctx context.Context, q Querier, engine string) error {
	if engine == "" {
		engine = "InnoDB"
	}
	if strings.ContainsAny(engine, "`'\"; ") {
		return fmt.Errorf("state: invalid engine name %q", engine)
	}
	if _, err := q.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS sluice CHARACTER SET utf8mb4"); err != nil {
		return fmt.Errorf("state: create database sluice on the target: %w (the target user needs CREATE on `sluice`.*)", err)
	}
	for _, t := range tables {
		if _, err := q.ExecContext(ctx, fmt.Sprintf(t, engine)); err != nil {
			return fmt.Errorf("state: create sluice's tables on the target: %w", err)
		}
	}
	return nil
}

// Denied reports a server's refusal of sluice's state to this user (no
// SELECT on the table or the database).
func Denied(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1142 || me.Number == 1143 || me.Number == 1044)
}

// missing reports errors that mean "nothing was ever recorded": an unknown
// database or table.
func missing(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1049 || me.Number == 1146)
}

// Load returns the state of a stream, or nil when it has none.
func Load(ctx context.Context, q Querier, stream string, decode model.PositionDecoder) (*checkpoint.State, error) {
	var st checkpoint.State
	var src sql.NullString
	var pos, updated string
	// Times are read as text: sluice's connections leave time parsing off.
	err := q.QueryRowContext(ctx, `SELECT position, schema_version, source_time, updated_at
		FROM sluice.checkpoint WHERE stream = ?`, stream).Scan(&pos, &st.SchemaVersion, &src, &updated)
	if errors.Is(err, sql.ErrNoRows) || missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("checkpoint: load stream %q: %w", stream, err)
	}
	if st.Position, err = decode(pos); err != nil {
		return nil, fmt.Errorf("checkpoint: stream %q: %w", stream, err)
	}
	if src.Valid {
		st.SourceTime, _ = time.Parse(dateTime, src.String)
	}
	st.UpdatedAt, _ = time.Parse(dateTime, updated)
	return &st, nil
}

// Save records the state of a stream. Call it inside the transaction that
// applies the data the position covers.
func Save(ctx context.Context, q Querier, stream string, st checkpoint.State) error {
	if st.Position == nil {
		return fmt.Errorf("checkpoint: save stream %q: no position (a bug)", stream)
	}
	var src any
	if !st.SourceTime.IsZero() {
		src = st.SourceTime.UTC()
	}
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.checkpoint (stream, position, schema_version, source_time, updated_at)
		VALUES (?, ?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE position = VALUES(position), schema_version = VALUES(schema_version),
			source_time = VALUES(source_time), updated_at = VALUES(updated_at)`,
		stream, st.Position.Encode(), st.SchemaVersion, src, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("checkpoint: save stream %q at %s: %w", stream, st.Position, err)
	}
	return nil
}

// Delete forgets a stream's checkpoint, schema history and applied records
// (a new snapshot of the stream).
func Delete(ctx context.Context, q Querier, stream string) error {
	for _, t := range []string{"checkpoint", "schema_history", "applied", "ddl_pending", "stream_target", "stream_owner", "add_table"} {
		if _, err := q.ExecContext(ctx, "DELETE FROM sluice."+t+" WHERE stream = ?", stream); err != nil && !missing(err) {
			return fmt.Errorf("checkpoint: delete stream %q from sluice.%s: %w", stream, t, err)
		}
	}
	return nil
}

// SaveSchema records the table versions created by one schema change (or the
// initial schema, version 1, written by the snapshot). A dropped table is
// stored with a NULL definition so that LoadSchema stops returning it.
func SaveSchema(ctx context.Context, q Querier, stream string, version int64, pos model.Position,
	ddlText string, tables []*schema.Table, dropped []schema.TableID) error {
	const ins = `INSERT INTO sluice.schema_history
		(stream, version, db_name, table_name, definition, ddl, position, recorded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE definition = VALUES(definition), ddl = VALUES(ddl),
			position = VALUES(position), recorded_at = VALUES(recorded_at)`
	var at string
	if pos != nil {
		at = pos.Encode()
	}
	now := time.Now().UTC()
	for _, id := range dropped {
		if _, err := q.ExecContext(ctx, ins, stream, version, id.Database, id.Name, nil, ddlText, at, now); err != nil {
			return fmt.Errorf("schema history: record drop of %s (version %d): %w", id, version, err)
		}
	}
	for _, t := range tables {
		def, err := json.Marshal(t)
		if err != nil {
			return fmt.Errorf("schema history: encode %s: %w", t.TableID, err)
		}
		if _, err := q.ExecContext(ctx, ins, stream, version, t.Database, t.Name, string(def), ddlText, at, now); err != nil {
			return fmt.Errorf("schema history: record %s (version %d): %w", t.TableID, version, err)
		}
	}
	return nil
}

// LoadSchema returns every table as of a schema version: for each table its
// newest definition with version <= the given one, minus dropped tables.
func LoadSchema(ctx context.Context, q Querier, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	rows, err := q.QueryContext(ctx, `SELECT h.db_name, h.table_name, h.definition FROM sluice.schema_history h
		JOIN (SELECT db_name, table_name, MAX(version) AS version FROM sluice.schema_history
		      WHERE stream = ? AND version <= ? GROUP BY db_name, table_name) m
		  ON m.db_name = h.db_name AND m.table_name = h.table_name AND m.version = h.version
		WHERE h.stream = ?`, stream, version, stream)
	if err != nil {
		return nil, fmt.Errorf("schema history: load stream %q version %d: %w", stream, version, err)
	}
	defer rows.Close()
	out := map[schema.TableID]*schema.Table{}
	for rows.Next() {
		var db, name string
		var def sql.NullString
		if err := rows.Scan(&db, &name, &def); err != nil {
			return nil, fmt.Errorf("schema history: scan: %w", err)
		}
		if !def.Valid {
			continue // dropped at that version
		}
		t := new(schema.Table)
		if err := json.Unmarshal([]byte(def.String), t); err != nil {
			return nil, fmt.Errorf("schema history: decode %s.%s: %w", db, name, err)
		}
		out[t.TableID] = t
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("schema history: load stream %q: %w", stream, err)
	}
	return out, nil
}
