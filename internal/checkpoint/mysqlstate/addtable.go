package mysqlstate

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// The adds of tables to a running stream (target.TableAdder), the
// counterpart of the PostgreSQL target's sluice.add_table.
const addTable = `CREATE TABLE IF NOT EXISTS sluice.add_table (
	stream       VARBINARY(128) NOT NULL,
	db_name      VARCHAR(64) NOT NULL,
	table_name   VARCHAR(64) NOT NULL,
	state        VARCHAR(16) NOT NULL,
	joined       MEDIUMTEXT NOT NULL,
	last_key     MEDIUMTEXT NOT NULL,
	rows_copied  BIGINT NOT NULL DEFAULT 0,
	chunks       BIGINT NOT NULL DEFAULT 0,
	requested_at DATETIME(6) NOT NULL,
	updated_at   DATETIME(6) NOT NULL,
	PRIMARY KEY (stream, db_name, table_name)
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

// EnsureAdd creates sluice.add_table when missing (after Ensure).
func EnsureAdd(ctx context.Context, q Querier, engine string) error {
	return ensureTable(ctx, q, engine, addTable, "add_table")
}

// RequestAdd records the tables as requested in tx, or refuses with
// target.ErrAddPending while an add of the stream is not done. The
// stream's checkpoint row, locked first, serialises two requests of one
// stream on every engine (MyRocks takes no gap locks); the records are
// read locking, so the second sees the first's committed rows whatever
// its transaction's snapshot.
func RequestAdd(ctx context.Context, tx *sql.Tx, stream string, ids []schema.TableID) error {
	var one int
	err := tx.QueryRowContext(ctx, `SELECT 1 FROM sluice.checkpoint WHERE stream = ? FOR UPDATE`, stream).Scan(&one)
	if err != nil {
		return fmt.Errorf("state: lock the checkpoint of stream %q: %w", stream, err)
	}
	rows, err := tx.QueryContext(ctx, `SELECT CONCAT(db_name, '.', table_name) FROM sluice.add_table
		WHERE stream = ? AND state <> ? ORDER BY 1 FOR UPDATE`, stream, string(target.AddDone))
	if err != nil {
		return fmt.Errorf("state: adds of stream %q: %w", stream, err)
	}
	running, err := scanStrings(rows)
	if err != nil {
		return fmt.Errorf("state: adds of stream %q: %w", stream, err)
	}
	if len(running) > 0 {
		return fmt.Errorf("%w (tables %s)", target.ErrAddPending, strings.Join(running, ", "))
	}
	now := time.Now().UTC()
	for _, id := range ids {
		_, err := tx.ExecContext(ctx, `INSERT INTO sluice.add_table
			(stream, db_name, table_name, state, joined, last_key, rows_copied, chunks, requested_at, updated_at)
			VALUES (?, ?, ?, ?, '', '', 0, 0, ?, ?)
			ON DUPLICATE KEY UPDATE state = VALUES(state), joined = '', last_key = '', rows_copied = 0, chunks = 0,
				requested_at = VALUES(requested_at), updated_at = VALUES(updated_at)`,
			stream, id.Database, id.Name, string(target.AddRequested), now, now)
		if err != nil {
			return fmt.Errorf("state: request add of %s: %w", id, err)
		}
	}
	return nil
}

func scanStrings(rows *sql.Rows) ([]string, error) {
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// LoadAdds is the stream's add records in table order (none when the
// table does not exist).
func LoadAdds(ctx context.Context, q Querier, stream string) ([]target.AddRecord, error) {
	rows, err := q.QueryContext(ctx, `SELECT db_name, table_name, state, joined, last_key, rows_copied, chunks, requested_at, updated_at
		FROM sluice.add_table WHERE stream = ? ORDER BY db_name, table_name`, stream)
	if missing(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("state: adds of stream %q: %w", stream, err)
	}
	defer rows.Close()
	var out []target.AddRecord
	for rows.Next() {
		var a target.AddRecord
		var state, requested, updated string
		if err := rows.Scan(&a.Table.Database, &a.Table.Name, &state, &a.Joined, &a.LastKey, &a.Rows, &a.Chunks, &requested, &updated); err != nil {
			return nil, fmt.Errorf("state: adds of stream %q: %w", stream, err)
		}
		a.State = target.AddState(state)
		// Times are read as text: sluice's connections leave time parsing off.
		a.RequestedAt, _ = time.Parse(dateTime, requested)
		a.UpdatedAt, _ = time.Parse(dateTime, updated)
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("state: adds of stream %q: %w", stream, err)
	}
	return out, nil
}

// SaveAdd records one table's progress; call it in the transaction of the
// chunk it covers.
func SaveAdd(ctx context.Context, q Querier, stream string, a target.AddRecord) error {
	now := time.Now().UTC()
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.add_table
		(stream, db_name, table_name, state, joined, last_key, rows_copied, chunks, requested_at, updated_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
		ON DUPLICATE KEY UPDATE state = VALUES(state), joined = VALUES(joined), last_key = VALUES(last_key),
			rows_copied = VALUES(rows_copied), chunks = VALUES(chunks), updated_at = VALUES(updated_at)`,
		stream, a.Table.Database, a.Table.Name, string(a.State), a.Joined, a.LastKey, a.Rows, a.Chunks, now, now)
	if err != nil {
		return fmt.Errorf("state: record add of %s: %w", a.Table, err)
	}
	return nil
}

// ForgetAdds deletes the tables' add records.
func ForgetAdds(ctx context.Context, q Querier, stream string, ids []schema.TableID) error {
	for _, id := range ids {
		_, err := q.ExecContext(ctx, `DELETE FROM sluice.add_table WHERE stream = ? AND db_name = ? AND table_name = ?`,
			stream, id.Database, id.Name)
		if missing(err) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("state: forget add of %s: %w", id, err)
		}
	}
	return nil
}
