package pgoutput

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// slotTakeover bounds how long a run waits for the walsender of an earlier
// run to leave the slot after pg_terminate_backend: it exits at once unless
// it is stuck writing to a client that reads nothing.
const slotTakeover = 10 * time.Second

// endEarlierReader ends the walsender that still reads the slot for an
// earlier run of the stream, and waits until the slot is free. Only the run
// that owns the stream gets here (the reverse stream opens the slot after
// its applier took the MySQL fence), so a session on the slot serves a run
// that is gone: one killed, whose walsender has not noticed yet, or one
// frozen (SIGSTOP, a stalled host) that a standby took over from. A frozen
// client keeps its TCP session open and PostgreSQL would end it only after
// wal_sender_timeout (60 s by default) without feedback; until then
// START_REPLICATION is refused (the slot is active for that PID), so the
// takeover would take a minute instead of seconds.
func (s *Stream) endEarlierReader(ctx context.Context) error {
	q := "SELECT active_pid FROM pg_replication_slots WHERE slot_name = '" + strings.ReplaceAll(s.cfg.Slot, "'", "''") +
		"' AND active_pid IS NOT NULL AND active_pid <> pg_backend_pid()"
	deadline := time.Now().Add(slotTakeover)
	ended := map[string]bool{}
	for {
		res, err := s.conn.Exec(ctx, q).ReadAll()
		if err != nil {
			return lost(fmt.Errorf("reverse source: read slot %s: %w", s.cfg.Slot, err))
		}
		if len(res) == 0 || len(res[0].Rows) == 0 {
			if len(ended) > 0 {
				s.cfg.Log.Info("reverse source: the earlier run's walsender left the slot", "slot", s.cfg.Slot)
			}
			return nil
		}
		pid := string(res[0].Rows[0][0])
		if time.Now().After(deadline) {
			return fmt.Errorf("reverse source: the replication slot %s is still read by backend %s %s after it was ended: "+
				"end it with SELECT pg_terminate_backend(%s), then start the stream again", s.cfg.Slot, pid, slotTakeover, pid)
		}
		if !ended[pid] {
			if _, err := strconv.Atoi(pid); err != nil {
				return fmt.Errorf("reverse source: slot %s: active_pid %q", s.cfg.Slot, pid)
			}
			ended[pid] = true
			s.cfg.Log.Warn("reverse source: ending the walsender of an earlier run of the stream, which still holds the slot "+
				"(a replicator that died or was taken over)", "slot", s.cfg.Slot, "backend", pid)
			if _, err := s.conn.Exec(ctx, "SELECT pg_terminate_backend("+pid+")").ReadAll(); err != nil {
				return fmt.Errorf("reverse source: end backend %s, which holds the replication slot %s (the role needs to be the one "+
					"that backend runs as, or to have pg_signal_backend): %w", pid, s.cfg.Slot, lost(err))
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
