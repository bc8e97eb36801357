package mysqlstate

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// targetTable records the target database of a stream that no snapshot
// started (replicate --start-gtid/--start-position, the way back): its
// tables are then those of its schema history in that database. A
// snapshot's streams are known by sluice.snapshot_table.
const targetTable = `CREATE TABLE IF NOT EXISTS sluice.stream_target (
	stream      VARBINARY(128) NOT NULL PRIMARY KEY,
	target_db   VARCHAR(64) NOT NULL,
	recorded_at DATETIME(6) NOT NULL
) ENGINE=%s DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin`

// SaveTarget records that stream writes into database db (with Ensure's
// tables, in the transaction that records the stream's start).
func SaveTarget(ctx context.Context, q Querier, stream, db string) error {
	_, err := q.ExecContext(ctx, `INSERT INTO sluice.stream_target (stream, target_db, recorded_at) VALUES (?, ?, ?)
		ON DUPLICATE KEY UPDATE target_db = VALUES(target_db), recorded_at = VALUES(recorded_at)`, stream, db, time.Now().UTC())
	if err != nil {
		return fmt.Errorf("state: record the target database of stream %q: %w", stream, err)
	}
	return nil
}

// RefuseOtherWriters refuses (exit 2) a new stream into database db when
// another stream with state on this server writes one of tables there: two
// streams applying to one table mix their rows, and neither's exactly-once
// record knows the other's writes. The other streams are those a snapshot
// copied into db and those recorded by SaveTarget, with a checkpoint.
func RefuseOtherWriters(ctx context.Context, q Querier, stream, db string, tables []string) error {
	want := map[string]bool{}
	for _, t := range tables {
		want[t] = true
	}
	byStream := map[string][]string{}
	for _, query := range []string{
		`SELECT s.stream, s.table_name FROM sluice.snapshot_table s
			WHERE s.target_db = ? AND s.stream <> ? AND EXISTS (SELECT 1 FROM sluice.snapshot_run r WHERE r.stream = s.stream)`,
		`SELECT h.stream, h.table_name FROM sluice.stream_target t JOIN sluice.schema_history h ON h.stream = t.stream
			WHERE t.target_db = ? AND t.stream <> ? AND h.definition IS NOT NULL
				AND h.version = (SELECT MAX(x.version) FROM sluice.schema_history x
					WHERE x.stream = h.stream AND x.db_name = h.db_name AND x.table_name = h.table_name)
				AND EXISTS (SELECT 1 FROM sluice.checkpoint c WHERE c.stream = t.stream)`,
	} {
		rows, err := q.QueryContext(ctx, query, db, stream)
		if missing(err) {
			continue
		}
		if err != nil {
			return fmt.Errorf("state: read the other streams into database %s: %w", db, err)
		}
		for rows.Next() {
			var s, t string
			if err := rows.Scan(&s, &t); err != nil {
				rows.Close()
				return fmt.Errorf("state: read the other streams into database %s: %w", db, err)
			}
			if want[t] {
				byStream[s] = append(byStream[s], t)
			}
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return fmt.Errorf("state: read the other streams into database %s: %w", db, err)
		}
	}
	if len(byStream) == 0 {
		return nil
	}
	var lines []string
	for s, ts := range byStream {
		slices.Sort(ts)
		ts = slices.Compact(ts)
		lines = append(lines, fmt.Sprintf("stream %q writes %s", s, strings.Join(ts, ", ")))
	}
	slices.Sort(lines)
	return exitcode.ConfigError(fmt.Errorf("stream %q would write tables of database %s that another stream writes (%s): "+
		"two streams applying to one table mix their rows. Run that stream (--stream), write into another target database, "+
		"or, if that stream is no longer used, delete its rows from the target's sluice.checkpoint, sluice.schema_history, "+
		"sluice.applied, sluice.stream_target and sluice.snapshot_run/snapshot_table/snapshot_chunk", stream, db, strings.Join(lines, "; ")))
}
