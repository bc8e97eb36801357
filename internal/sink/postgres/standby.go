package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// replicate --standby into PostgreSQL: the stream's advisory lock is the
// fence (session.go), pg_stat_activity tells whether its holders do
// anything, pg_terminate_backend ends a frozen replicator's sessions, and
// sluice.stream_owner (checkpoint/owner.go) fences it once it wakes. The
// waiting itself is pipeline.AwaitTurn's.

// awaitTurn waits for this standby's turn (pipeline.AwaitTurn).
func (a *Sink) awaitTurn(ctx context.Context, conn *pgxpool.Conn) error {
	return pipeline.AwaitTurn(ctx, pgFence{a: a, conn: conn}, a.cfg.Stream, a.cfg.StandbyLease, a.cfg.Log)
}

// pgFence is the stream's advisory lock as a standby watches it.
type pgFence struct {
	a    *Sink
	conn *pgxpool.Conn
}

func (f pgFence) FenceFree(ctx context.Context) (bool, error) {
	var free bool
	if err := f.conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockClass, f.a.cfg.Stream).Scan(&free); err != nil {
		return false, fmt.Errorf("apply: lock stream %q: %w", f.a.cfg.Stream, err)
	}
	if free {
		if _, err := f.conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, lockClass, f.a.cfg.Stream); err != nil {
			return false, fmt.Errorf("apply: unlock stream %q: %w", f.a.cfg.Stream, err)
		}
	}
	return free, nil
}

func (f pgFence) FenceHolders(ctx context.Context) (pipeline.FenceHolders, error) {
	hs, err := checkpoint.StreamHolders(ctx, f.conn, f.a.cfg.Stream)
	if err != nil {
		return pipeline.FenceHolders{}, err
	}
	h := pipeline.FenceHolders{Live: checkpoint.Live(hs, f.a.runs.open(f.a.runKey())), Describe: checkpoint.Describe(hs)}
	if !h.Live {
		return h, nil
	}
	if h.Idle, h.Busy, err = holdersIdle(ctx, f.conn, hs); err != nil {
		return h, err
	}
	h.End = func(ctx context.Context) error {
		for _, s := range hs {
			if _, err := f.conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, s.Backend); err != nil {
				return fmt.Errorf("standby: end session %d of the frozen replicator: %w", s.Backend, err)
			}
		}
		return nil
	}
	return h, nil
}

// holdersIdle returns how long the sessions have all been idle (the most
// recent state change of any), and whether one is busy on the server (a
// statement running that waits neither for its client nor for a lock).
func holdersIdle(ctx context.Context, conn *pgxpool.Conn, hs []checkpoint.Holder) (time.Duration, bool, error) {
	pids := make([]int32, len(hs))
	for i, h := range hs {
		pids[i] = h.Backend
	}
	var secs float64
	var busy bool
	// Waiting for the client (ClientRead, ClientWrite) or for a lock (one a
	// frozen session of the same replicator may hold) is not being busy.
	err := conn.QueryRow(ctx, `SELECT coalesce(bool_or(state = 'active' AND coalesce(wait_event_type, '') NOT IN ('Client', 'Lock')), false),
		coalesce(extract(epoch FROM now() - max(state_change)), 0)::float8
		FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&busy, &secs)
	if err != nil {
		return 0, false, fmt.Errorf("standby: read the active replicator's sessions: %w", err)
	}
	return time.Duration(secs * float64(time.Second)), busy, nil
}

// refuseIfTakenOver stops a run that owned the stream before and finds,
// reconnecting, that another run owns it now.
func (a *Sink) refuseIfTakenOver(ctx context.Context, conn *pgxpool.Conn) error {
	if !a.cfg.OwnedBefore {
		return nil
	}
	return a.checkOwner(ctx, conn)
}

// refuseOtherSettings refuses a standby whose settings differ from those
// the stream's owner recorded.
func (a *Sink) refuseOtherSettings(ctx context.Context, conn *pgxpool.Conn) error {
	if !a.cfg.Standby {
		return nil
	}
	have, ok, err := checkpoint.OwnerSettings(ctx, conn, a.cfg.Stream)
	if err != nil || !ok {
		return err
	}
	if err := pipeline.StandbySettingsRefusal(a.cfg.Stream, have, a.cfg.Settings); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// checkOwner refuses a session of a run that no longer owns the stream.
func (a *Sink) checkOwner(ctx context.Context, conn *pgxpool.Conn) error {
	err := checkpoint.CheckOwner(ctx, conn, a.cfg.Stream, a.cfg.RunID)
	if errors.Is(err, checkpoint.ErrNotOwner) {
		return exitcode.ConfigError(pipeline.TakenOverError(a.cfg.Stream, err))
	}
	return err
}

// Heartbeat shows the stream's standbys that this replicator is alive: a
// statement on the leader session (the pipeline calls it every checkpoint
// interval, serialised with the checkpoint writes on the same session).
func (a *Sink) Heartbeat(ctx context.Context) error {
	if _, err := a.leader.Exec(ctx, `SELECT 1`); err != nil {
		return fmt.Errorf("apply: heartbeat: %w", err)
	}
	return nil
}
