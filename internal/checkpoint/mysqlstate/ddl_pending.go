package mysqlstate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"
)

// MySQL DDL is not transactional: a statement commits on its own, so the
// checkpoint that records a schema change cannot be written in the same
// transaction. The MySQL sink writes a pending marker (the DDL's end position
// key) before running the statement and deletes it in the transaction that
// saves the checkpoint after it. A marker found at start names the one schema
// change that may or may not have run (internal/sink/mysql/ddl.go decides).

const pendingTable = `CREATE TABLE IF NOT EXISTS sluice.ddl_pending (
	stream      VARBINARY(128) NOT NULL PRIMARY KEY,
	end_key     VARBINARY(255) NOT NULL,
	ddl         LONGTEXT NOT NULL,
	recorded_at DATETIME(6) NOT NULL
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

// EnsurePending creates the pending-DDL table when missing (after Ensure).
func EnsurePending(ctx context.Context, q Querier, engine string) error {
	return ensureTable(ctx, q, engine, pendingTable, "ddl_pending")
}

// ensureTable creates one state table from its template (%s: the engine,
// "" = InnoDB) when missing.
func ensureTable(ctx context.Context, q Querier, engine, template, name string) error {
	if engine == "" {
		engine = "InnoDB"
	}
	if _, err := q.ExecContext(ctx, fmt.Sprintf(template, engine)); err != nil {
		return fmt.Errorf("state: create sluice.%s on the target: %w", name, err)
	}
	return nil
}

// SavePending records that the schema change ending at endKey is about to run.
func SavePending(ctx context.Context, q Querier, stream, endKey, ddl string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.ddl_pending (stream, end_key, ddl, recorded_at) VALUES (?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE end_key = VALUES(end_key), ddl = VALUES(ddl), recorded_at = VALUES(recorded_at)`,
		stream, endKey, ddl, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("state: record pending schema change at %s: %w", endKey, err)
	}
	return nil
}

// LoadPending returns the end key of the stream's pending schema change, or "".
func LoadPending(ctx context.Context, q Querier, stream string) (string, error) {
	var key string
	err := q.QueryRowContext(ctx, `SELECT end_key FROM sluice.ddl_pending WHERE stream = ?`, stream).Scan(&key)
	if errors.Is(err, sql.ErrNoRows) || missing(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("state: load pending schema change of stream %q: %w", stream, err)
	}
	return key, nil
}

// DeletePending forgets the stream's pending schema change; call it in the
// transaction that saves the checkpoint past it.
func DeletePending(ctx context.Context, q Querier, stream string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM sluice.ddl_pending WHERE stream = ?`, stream); err != nil && !missing(err) {
		return fmt.Errorf("state: delete pending schema change of stream %q: %w", stream, err)
	}
	return nil
}

// DeleteAllApplied deletes every applied record of a stream: a checkpoint
// saved at a barrier (schema change, large transaction) covers them all.
func DeleteAllApplied(ctx context.Context, q Querier, stream string) error {
	if _, err := q.ExecContext(ctx, `DELETE FROM sluice.applied WHERE stream = ?`, stream); err != nil {
		return fmt.Errorf("checkpoint: delete applied rows of stream %q: %w", stream, err)
	}
	return nil
}
