package cli

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/cutover"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/replicate"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	engines "github.com/sluice-db/sluice/internal/target"
)

// checkSlots reads the stream's replication slots on PostgreSQL and warns
// about an inactive one that retains more WAL than warnAt: PostgreSQL keeps
// every WAL segment from its restart_lsn on, so after a fallback (or a
// decommissioned stream) the disk fills. A forward stream's slot is its way
// back's, on the target; a reverse stream's is its own, on its --source.
func checkSlots(ctx context.Context, st *streamStatus, target engines.Engine, pgSource *config.Postgres, warnAt int64) error {
	var server *config.Postgres // the slots are PostgreSQL's (logical decoding)
	role := "target"
	if pg, ok := engines.PostgresOf(target); ok {
		server = &pg
	}
	if st.Reverse != nil {
		server, role = pgSource, "source"
	}
	if server == nil {
		return nil // a MySQL target's forward stream, or a reverse stream without --source
	}
	conn, err := pgx.Connect(ctx, server.ConnString())
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("%s: cannot connect to %s: %w", role, server.Redacted(), err))
	}
	defer conn.Close(context.Background())
	streams := []string{st.Stream}
	if st.Reverse == nil {
		rev, err := cutover.ReverseStreamOf(ctx, conn, st.Stream)
		if err != nil {
			return err
		}
		streams = append(streams, rev)
	}
	names := make([]string, len(streams))
	for i, n := range streams {
		names[i] = logical.SlotName(n)
	}
	if st.Slots, err = logical.Slots(ctx, conn, names); err != nil {
		return fmt.Errorf("%s: %w", role, err)
	}
	for _, sl := range st.Slots {
		if sl.Active || sl.RetainedBytes == nil || *sl.RetainedBytes <= warnAt {
			continue
		}
		owner := streams[0]
		for i, n := range names {
			if n == sl.Name {
				owner = streams[i]
			}
		}
		drop := fmt.Sprintf("sluice drop --target %s --stream %s (with --source <the MySQL source> its state there too)", target.Redacted(), owner)
		if st.Reverse != nil {
			drop = fmt.Sprintf("sluice drop --source %s --target %s --stream %s", pgSource.Redacted(), target.Redacted(), owner)
		}
		st.Warnings = append(st.Warnings, fmt.Sprintf("replication slot %s (stream %s) is inactive and retains %s of WAL on the %s "+
			"(over --warn-slot-wal %s): PostgreSQL cannot recycle it while the slot exists. Start the stream again, "+
			"or if it is no longer needed: %s", sl.Name, owner, replicate.HumanSize(*sl.RetainedBytes), role, replicate.FormatSize(warnAt), drop))
	}
	return nil
}

// slotLine describes a slot for the text output.
func slotLine(sl logical.Slot) string {
	state := "inactive"
	if sl.Active {
		state = "active"
	}
	if sl.RetainedBytes == nil {
		return sl.Name + " (" + state + ")"
	}
	return fmt.Sprintf("%s (%s, retains %s of WAL)", sl.Name, state, replicate.HumanSize(*sl.RetainedBytes))
}
