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

// A standby (replicate --standby) waits while another replicator of the
// stream is alive and takes over when it is not:
//
//   - it died (kill -9, its host gone): its sessions end, the stream's lock
//     frees, and the standby's fence proceeds as any restart does;
//   - it is frozen (SIGSTOP, a stalled host, a network partition that
//     keeps its TCP sessions open): its sessions stay, holding the lock, but
//     none of them does anything. A live replicator's leader session runs a
//     statement every second (Heartbeat), so when no session of it has
//     changed state for StandbyLease and none is busy on the server, the
//     standby ends them (pg_terminate_backend) and fences as after a crash.
//
// The frozen replicator, when it runs again, writes nothing: its sessions are
// gone, and each new one checks after taking the lock that its run still
// owns the stream (checkOwner; the standby claimed it under the exclusive
// lock), so it stops with exit 2 and says why. Exactly once holds as after a
// kill -9: the new owner reads the checkpoint and applied records only after
// every session of the old one has ended (the fence).

// awaitTurn returns once the stream's lock is free, or held only by sessions
// of a dead run, or by a frozen replicator whose sessions it ended.
func (a *Sink) awaitTurn(ctx context.Context, conn *pgxpool.Conn) error {
	waiting := false
	for {
		var free bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, hashtext($2))`, lockClass, a.cfg.Stream).Scan(&free); err != nil {
			return fmt.Errorf("apply: lock stream %q: %w", a.cfg.Stream, err)
		}
		if free {
			_, err := conn.Exec(ctx, `SELECT pg_advisory_unlock($1, hashtext($2))`, lockClass, a.cfg.Stream)
			return err
		}
		hs, err := checkpoint.StreamHolders(ctx, conn, a.cfg.Stream)
		if err != nil {
			return err
		}
		if !checkpoint.Live(hs, a.runs.open(a.runKey())) {
			return nil // a dead run's sessions: the fence waits for them
		}
		idle, busy, err := holdersIdle(ctx, conn, hs)
		if err != nil {
			return err
		}
		if !busy && idle >= a.cfg.StandbyLease {
			return a.takeOver(ctx, conn, hs, idle)
		}
		if !waiting {
			waiting = true
			a.cfg.Log.Info("standby: the stream is replicated by another sluice; waiting to take over", "stream", a.cfg.Stream,
				"active", checkpoint.Describe(hs), "lease", a.cfg.StandbyLease.String())
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// holdersIdle returns how long the sessions have all been idle (the most
// recent state change of any), and whether one is busy on the server (a
// statement running that is not waiting for its client).
func holdersIdle(ctx context.Context, conn *pgxpool.Conn, hs []checkpoint.Holder) (time.Duration, bool, error) {
	pids := make([]int32, len(hs))
	for i, h := range hs {
		pids[i] = h.Backend
	}
	var secs float64
	var busy bool
	err := conn.QueryRow(ctx, `SELECT coalesce(bool_or(state = 'active' AND wait_event IS DISTINCT FROM 'ClientRead'), false),
		coalesce(extract(epoch FROM now() - max(state_change)), 0)::float8
		FROM pg_stat_activity WHERE pid = ANY($1)`, pids).Scan(&busy, &secs)
	if err != nil {
		return 0, false, fmt.Errorf("standby: read the active replicator's sessions: %w", err)
	}
	return time.Duration(secs * float64(time.Second)), busy, nil
}

// takeOver ends the sessions of a frozen replicator.
func (a *Sink) takeOver(ctx context.Context, conn *pgxpool.Conn, hs []checkpoint.Holder, idle time.Duration) error {
	a.cfg.Log.Warn("standby: taking over the stream: the active sluice has done nothing for longer than the lease; ending its sessions",
		"stream", a.cfg.Stream, "active", checkpoint.Describe(hs), "idle", idle.Round(time.Millisecond).String(),
		"lease", a.cfg.StandbyLease.String())
	for _, h := range hs {
		if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, h.Backend); err != nil {
			return fmt.Errorf("standby: end session %d of the frozen replicator: %w", h.Backend, err)
		}
	}
	return nil
}

// refuseIfTakenOver stops a run that owned the stream before and finds,
// reconnecting, that another run owns it now.
func (a *Sink) refuseIfTakenOver(ctx context.Context, conn *pgxpool.Conn) error {
	if !a.cfg.OwnedBefore {
		return nil
	}
	return a.checkOwner(ctx, conn)
}

// checkOwner refuses a session of a run that no longer owns the stream.
func (a *Sink) checkOwner(ctx context.Context, conn *pgxpool.Conn) error {
	err := checkpoint.CheckOwner(ctx, conn, a.cfg.Stream, a.cfg.RunID)
	if errors.Is(err, checkpoint.ErrNotOwner) {
		return exitcode.ConfigError(fmt.Errorf("apply: this replicator no longer owns stream %q (%w): %w while this one was "+
			"not running or not answering; it writes nothing more and exits", a.cfg.Stream, err, pipeline.ErrTakenOver))
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
