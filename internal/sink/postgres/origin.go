package postgres

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
)

// Once a stream is cut over (`sluice cutover` recorded it in
// sluice.cutover), writes may happen on both sides and the reverse stream
// (PostgreSQL → MySQL) reads this target's WAL. Every apply session then
// sets up a replication origin (logical.ForwardOrigin) so the transactions
// it commits carry it and the reverse decoder skips them: MySQL's own rows
// must not go back to MySQL. Before a cut-over nothing is marked (no
// reverse stream exists, and PostgreSQL 15 keeps only max_replication_slots
// origins with state).
type origins struct {
	on bool
	mu sync.Mutex
	// used are the origins this sink's sessions set up, dropped at Close
	// so their state slots are free again.
	used map[string]bool
}

// decideOrigins turns the marking on when the stream was cut over, after
// checking the user may use replication origins (the error names the GRANT).
func (a *Sink) decideOrigins(ctx context.Context, conn *pgxpool.Conn) error {
	var cut bool
	err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM sluice.cutover WHERE stream = $1)`, a.cfg.Stream).Scan(&cut)
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == "42P01" || pgErr.Code == "3F000") {
		return nil
	}
	if err != nil {
		return fmt.Errorf("apply: was stream %q cut over: %w", a.cfg.Stream, err)
	}
	if !cut {
		return nil
	}
	if err := logical.CheckOriginPrivileges(ctx, conn); err != nil {
		return exitcode.ConfigError(fmt.Errorf("apply: stream %q was cut over: %w", a.cfg.Stream, err))
	}
	a.origins.on = true
	return nil
}

// setupOrigin gives an apply session its own replication origin (one
// session per origin at a time on PostgreSQL 15).
func (a *Sink) setupOrigin(ctx context.Context, conn *pgxpool.Conn) error {
	if !a.origins.on {
		return nil
	}
	var set bool
	if err := conn.QueryRow(ctx, `SELECT pg_replication_origin_session_is_setup()`).Scan(&set); err != nil {
		return fmt.Errorf("apply: replication origin: %w", err)
	}
	if set {
		return nil
	}
	limit := 2*a.cfg.Workers + 8
	for n := 0; n < limit; n++ {
		name := logical.ForwardOrigin(a.cfg.Stream, n)
		_, err := conn.Exec(ctx, `SELECT pg_replication_origin_create($1) WHERE pg_replication_origin_oid($1) IS NULL`, name)
		var pgErr *pgconn.PgError
		if err != nil && !(errors.As(err, &pgErr) && pgErr.Code == "23505") { // another session created it
			return fmt.Errorf("apply: create replication origin %s: %w", name, err)
		}
		_, err = conn.Exec(ctx, `SELECT pg_replication_origin_session_setup($1)`, name)
		if err == nil {
			a.origins.mu.Lock()
			if a.origins.used == nil {
				a.origins.used = map[string]bool{}
			}
			a.origins.used[name] = true
			a.origins.mu.Unlock()
			return nil
		}
		if errors.As(err, &pgErr) && pgErr.Code == "55006" { // object_in_use: another session has it
			continue
		}
		if errors.As(err, &pgErr) && pgErr.Code == "53400" {
			return fmt.Errorf("apply: replication origin %s: %w (each apply session of a cut-over stream needs one: "+
				"raise max_replication_slots, or run with fewer --workers)", name, err)
		}
		return fmt.Errorf("apply: replication origin %s: %w", name, err)
	}
	return fmt.Errorf("apply: no free replication origin for stream %q among %d", a.cfg.Stream, limit)
}

// dropOrigins drops the origins of this run once its sessions are gone;
// one still in use (a session not yet closed) stays, harmlessly.
func (a *Sink) dropOrigins() {
	a.origins.mu.Lock()
	names := make([]string, 0, len(a.origins.used))
	for n := range a.origins.used {
		names = append(names, n)
	}
	a.origins.used = nil
	a.origins.mu.Unlock()
	if len(names) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	conn, err := a.pool.Acquire(ctx)
	if err != nil {
		return
	}
	defer conn.Release()
	for _, n := range names {
		if _, err := conn.Exec(ctx, `SELECT pg_replication_origin_drop($1)`, n); err != nil {
			a.cfg.Log.Debug("apply: replication origin not dropped", "origin", n, "err", err)
		}
	}
}
