package pgoutput

import (
	"context"
	"fmt"
	"time"

	"github.com/jackc/pglogrepl"
	"github.com/jackc/pgx/v5"
)

// MarkerPrefix is the prefix of the logical decoding messages sluice writes
// into PostgreSQL's WAL to get a transaction boundary through the slot.
const MarkerPrefix = "sluice_reverse"

// Mark writes a transactional logical decoding message (a transaction of
// its own, holding no row) and returns its LSN. The stream receives it as
// Begin, Message, Commit: a transaction the pipeline records like any other
// (a heartbeat), so once the checkpoint is past the returned LSN, MySQL
// holds every transaction PostgreSQL committed before it. A keepalive's WAL
// end is no such boundary: a keepalive was seen reporting WAL past a large
// transaction the server had not sent yet.
func Mark(ctx context.Context, conn *pgx.Conn, what string) (pglogrepl.LSN, error) {
	var s string
	if err := conn.QueryRow(ctx, "SELECT pg_logical_emit_message(true, $1, $2)::text", MarkerPrefix, what).Scan(&s); err != nil {
		return 0, fmt.Errorf("reverse source: write a marker into the WAL: %w", err)
	}
	return pglogrepl.ParseLSN(s)
}

// idleMark writes a marker when the stream has been quiet for IdleAfter,
// everything received is checkpointed, and the server's WAL has moved on
// (other tables, other databases): the marker's transaction then carries
// the checkpoint, and with it the slot, past WAL this stream has nothing
// of, so that an idle slot does not keep WAL on the server.
func (s *Stream) idleMark(ctx context.Context) error {
	now := time.Now()
	if s.cur != nil || now.Sub(s.lastData) < s.cfg.IdleAfter || now.Sub(s.lastMark) < s.cfg.IdleAfter {
		return nil
	}
	acked, err := ackedLSN(s.cfg.Acked())
	if err != nil || acked < s.lastEnd || s.QuietAt() <= acked {
		return err
	}
	s.lastMark = now
	if s.plain == nil {
		cfg, err := pgx.ParseConfig(s.cfg.ConnString)
		if err != nil {
			return fmt.Errorf("reverse source: %w", err)
		}
		if s.plain, err = pgx.ConnectConfig(ctx, cfg); err != nil {
			return lost(fmt.Errorf("reverse source: connect for idle markers: %w", err))
		}
	}
	if _, err = Mark(ctx, s.plain, "idle"); err != nil {
		_ = s.plain.Close(ctx)
		s.plain = nil
		return lost(err)
	}
	return nil
}
