package alter

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// The state of a copy run lives on the source, in database sluice, so that
// a run killed with -9 resumes: the start position the binlog is replayed
// from and the chunks already copied. Keys applied twice are harmless (an
// apply re-reads the row), so replaying from the start is always exact.
const stateDB = "sluice"

var stateDDL = []string{
	"CREATE DATABASE IF NOT EXISTS `sluice`",
	"CREATE TABLE IF NOT EXISTS `sluice`.`alter_runs` (db VARCHAR(64) NOT NULL, tbl VARCHAR(64) NOT NULL, " +
		"alter_text TEXT NOT NULL, start_pos TEXT NOT NULL, started_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6), " +
		"PRIMARY KEY (db, tbl)) ENGINE=InnoDB",
	"CREATE TABLE IF NOT EXISTS `sluice`.`alter_chunks` (db VARCHAR(64) NOT NULL, tbl VARCHAR(64) NOT NULL, seq INT NOT NULL, " +
		"lo LONGTEXT NULL, hi LONGTEXT NULL, done TINYINT NOT NULL DEFAULT 0, PRIMARY KEY (db, tbl, seq)) ENGINE=InnoDB",
	// The progress of a run, for alter status (status.go).
	"CREATE TABLE IF NOT EXISTS `sluice`.`alter_status` (db VARCHAR(64) NOT NULL, tbl VARCHAR(64) NOT NULL, status TEXT NOT NULL, " +
		"updated_at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6) ON UPDATE CURRENT_TIMESTAMP(6), PRIMARY KEY (db, tbl)) ENGINE=InnoDB",
	// A revert window after the swap (window.go).
	"CREATE TABLE IF NOT EXISTS `sluice`.`alter_windows` (db VARCHAR(64) NOT NULL, tbl VARCHAR(64) NOT NULL, alter_text TEXT NOT NULL, " +
		"old_tbl VARCHAR(64) NOT NULL, start_pos TEXT NOT NULL, ends_ms BIGINT NOT NULL, fingerprint VARCHAR(64) NOT NULL, " +
		"state VARCHAR(16) NOT NULL, why TEXT NOT NULL, revert_req TINYINT NOT NULL DEFAULT 0, PRIMARY KEY (db, tbl)) ENGINE=InnoDB",
	// Markers tell the binlog reader has read past a point (tracker).
	"CREATE TABLE IF NOT EXISTS `sluice`.`alter_marker` (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, " +
		"db VARCHAR(64) NOT NULL, tbl VARCHAR(64) NOT NULL, at TIMESTAMP(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6)) ENGINE=InnoDB",
}

type chunk struct {
	Seq    int
	Lo, Hi consistent.Bound
	Done   bool
}

type runState struct {
	Alter    string
	StartPos string
	Chunks   []chunk
}

func ensureState(ctx context.Context, db *sql.DB) error {
	for _, q := range stateDDL {
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("alter: state in database sluice: %w", err)
		}
	}
	return nil
}

// hasStateTables tells whether a state could exist (dry runs create nothing).
func hasStateTables(ctx context.Context, db *sql.DB) (bool, error) {
	var n int
	err := db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'sluice' AND TABLE_NAME = 'alter_runs'`).Scan(&n)
	return n > 0, err
}

func loadRun(ctx context.Context, db *sql.DB, schemaName, table string) (*runState, error) {
	if ok, err := hasStateTables(ctx, db); err != nil || !ok {
		return nil, err
	}
	st := &runState{}
	err := db.QueryRowContext(ctx, "SELECT alter_text, start_pos FROM `sluice`.`alter_runs` WHERE db = ? AND tbl = ?", schemaName, table).Scan(&st.Alter, &st.StartPos)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("alter: read state: %w", err)
	}
	rows, err := db.QueryContext(ctx, "SELECT seq, lo, hi, done FROM `sluice`.`alter_chunks` WHERE db = ? AND tbl = ? ORDER BY seq", schemaName, table)
	if err != nil {
		return nil, fmt.Errorf("alter: read chunks: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var c chunk
		var lo, hi sql.NullString
		if err := rows.Scan(&c.Seq, &lo, &hi, &c.Done); err != nil {
			return nil, err
		}
		if c.Lo, err = decodeBound(lo); err != nil {
			return nil, err
		}
		if c.Hi, err = decodeBound(hi); err != nil {
			return nil, err
		}
		st.Chunks = append(st.Chunks, c)
	}
	return st, rows.Err()
}

func saveRun(ctx context.Context, db *sql.DB, schemaName, table string, st *runState) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // after Commit: no-op
	if _, err := tx.ExecContext(ctx, "INSERT INTO `sluice`.`alter_runs` (db, tbl, alter_text, start_pos) VALUES (?, ?, ?, ?)",
		schemaName, table, st.Alter, st.StartPos); err != nil {
		return fmt.Errorf("alter: save state: %w", err)
	}
	for _, c := range st.Chunks {
		if _, err := tx.ExecContext(ctx, "INSERT INTO `sluice`.`alter_chunks` (db, tbl, seq, lo, hi) VALUES (?, ?, ?, ?, ?)",
			schemaName, table, c.Seq, encodeBound(c.Lo), encodeBound(c.Hi)); err != nil {
			return fmt.Errorf("alter: save chunks: %w", err)
		}
	}
	return tx.Commit()
}

func markChunk(ctx context.Context, db *sql.DB, schemaName, table string, seq int) error {
	_, err := db.ExecContext(ctx, "UPDATE `sluice`.`alter_chunks` SET done = 1 WHERE db = ? AND tbl = ? AND seq = ?", schemaName, table, seq)
	return err
}

func deleteRun(ctx context.Context, db *sql.DB, schemaName, table string) error {
	if ok, err := hasStateTables(ctx, db); err != nil || !ok {
		return err
	}
	for _, q := range []string{"DELETE FROM `sluice`.`alter_chunks` WHERE db = ? AND tbl = ?",
		"DELETE FROM `sluice`.`alter_runs` WHERE db = ? AND tbl = ?",
		"DELETE FROM `sluice`.`alter_marker` WHERE db = ? AND tbl = ?"} {
		if _, err := db.ExecContext(ctx, q, schemaName, table); err != nil {
			return fmt.Errorf("alter: delete state: %w", err)
		}
	}
	return nil
}

// writeMarker inserts a marker row and returns its id.
func writeMarker(ctx context.Context, db *sql.DB, schemaName, table string) (int64, error) {
	res, err := db.ExecContext(ctx, "INSERT INTO `sluice`.`alter_marker` (db, tbl) VALUES (?, ?)", schemaName, table)
	if err != nil {
		return 0, fmt.Errorf("alter: write marker: %w", err)
	}
	return res.LastInsertId()
}

func encodeBound(b consistent.Bound) any {
	if b == nil {
		return nil
	}
	j, _ := json.Marshal(b) // [][]byte: cannot fail
	return string(j)
}

func decodeBound(s sql.NullString) (consistent.Bound, error) {
	if !s.Valid {
		return nil, nil
	}
	var b consistent.Bound
	if err := json.Unmarshal([]byte(s.String), &b); err != nil {
		return nil, fmt.Errorf("alter: chunk bound %q: %w", s.String, err)
	}
	return b, nil
}
