package cli

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
)

// reverseStatus is the part of status for a reverse stream (PostgreSQL →
// MySQL): its applied LSN and, with a postgres:// --source, the server's
// current WAL position, the slot and how far behind the checkpoint is.
type reverseStatus struct {
	AppliedLSN string `json:"applied_lsn"`
	CurrentLSN string `json:"current_lsn,omitempty"`
	Slot       string `json:"slot,omitempty"`
	SlotFlush  string `json:"slot_confirmed_flush_lsn,omitempty"`
	// BehindBytes is WAL written after the checkpoint (other tables and
	// databases included); the slot keeps WAL from SlotFlush on.
	BehindBytes *int64 `json:"behind_bytes,omitempty"`
}

func readReverseSource(ctx context.Context, src config.Postgres, stream string, applied lsnpos.Position, rs *reverseStatus) error {
	conn, err := pgx.Connect(ctx, src.ConnString())
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", src.Redacted(), err))
	}
	defer conn.Close(context.Background())
	rs.Slot = logical.SlotName(stream)
	var behind int64
	var flush *string
	err = conn.QueryRow(ctx, `SELECT pg_current_wal_lsn()::text, pg_wal_lsn_diff(pg_current_wal_lsn(), $1::pg_lsn)::bigint,
		(SELECT confirmed_flush_lsn::text FROM pg_replication_slots WHERE slot_name = $2)`,
		applied.LSN.String(), rs.Slot).Scan(&rs.CurrentLSN, &behind, &flush)
	if err != nil {
		return fmt.Errorf("source: %w", err)
	}
	rs.BehindBytes = &behind
	if flush != nil {
		rs.SlotFlush = *flush
	} else {
		rs.SlotFlush = "(no slot: dropped?)"
	}
	return nil
}

func printReverse(w interface{ Write([]byte) (int, error) }, rs *reverseStatus) {
	fmt.Fprintf(w, "applied LSN:     %s (reverse stream PostgreSQL → MySQL)\n", rs.AppliedLSN)
	if rs.CurrentLSN != "" {
		fmt.Fprintf(w, "source LSN:      %s (%d bytes of WAL after the checkpoint)\n", rs.CurrentLSN, *rs.BehindBytes)
		fmt.Fprintf(w, "slot:            %s, confirmed flush %s\n", rs.Slot, rs.SlotFlush)
	}
}
