package logical

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Slot is a replication slot of this database and the WAL it keeps.
type Slot struct {
	Name   string `json:"name"`
	Active bool   `json:"active"`
	// RetainedBytes is the WAL from the slot's restart_lsn to the server's
	// insert position: what PostgreSQL cannot recycle while the slot exists
	// (nil when the slot has no restart_lsn yet). The insert position, not
	// pg_current_wal_lsn's write position: under synchronous_commit = off
	// the latter lags committed work by up to three wal_writer_delay.
	RetainedBytes *int64 `json:"retained_bytes"`
}

// Slots returns those of the named slots that exist in the connection's
// database (slot names are server-wide; another database's slot of the same
// name belongs to another target).
func Slots(ctx context.Context, conn *pgx.Conn, names []string) ([]Slot, error) {
	rows, err := conn.Query(ctx, `SELECT slot_name::text, active, pg_wal_lsn_diff(pg_current_wal_insert_lsn(), restart_lsn)::bigint
		FROM pg_replication_slots WHERE slot_name = ANY($1) AND database = current_database() ORDER BY slot_name`, names)
	if err != nil {
		return nil, fmt.Errorf("read the replication slots: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (Slot, error) {
		var s Slot
		err := r.Scan(&s.Name, &s.Active, &s.RetainedBytes)
		return s, err
	})
	if err != nil {
		return nil, fmt.Errorf("read the replication slots: %w", err)
	}
	return out, nil
}
