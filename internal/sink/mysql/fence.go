package mysql

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
)

// Sessions of one stream are fenced with named locks (GET_LOCK).
//
// When sluice dies (kill -9, a lost network), a server session it used may
// still be running: a group's COMMIT already sent is executed to the end
// before the server notices the client is gone. A new run that read the
// checkpoint and the applied records before such a late COMMIT would apply
// those transactions a second time.
//
// So the run's leader session holds the stream's leader lock from Open to
// Close: a second live replicator of the stream cannot take it and is
// refused. Every apply session holds a slot lock of the stream (slot 0, 1,
// ... up to maxSlots) for its whole life. A run starts by taking the leader
// lock (waiting up to FenceTimeout for a dying leader to end), then finds
// every slot lock still held (IS_USED_LOCK names the holding connection:
// only sessions of an earlier run of this stream can hold one), KILLs those
// connections and waits until their locks are free, which is when the
// server has finished or rolled back whatever they were doing. Only then is
// the state read. A named lock dies with its connection, so nothing needs
// cleaning up after a crash, and a reused connection id is never mistaken
// for an earlier session.

// maxSlots bounds the apply sessions of one run (workers plus the DDL and
// large-transaction sessions).
const maxSlots = 256

// fence takes the stream's leader lock, ends every session of an earlier
// run, and returns the prepared leader session.
func (a *Sink) fence(ctx context.Context) (*sql.Conn, error) {
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("apply: connect to the target: %w", err)
	}
	fail := func(err error) (*sql.Conn, error) {
		_ = conn.Close()
		return nil, err
	}
	stmtLog, err := statementLogging(ctx, conn)
	if err != nil {
		return fail(err)
	}
	a.readCommitted = !stmtLog
	if a.rocksDB, err = HasRocksDB(ctx, conn); err != nil {
		return fail(err)
	}
	if err := a.setupSession(ctx, conn); err != nil {
		return fail(err)
	}
	if err := a.refuseAsStandby(ctx, conn); err != nil { // standby.go
		return fail(err)
	}
	leader := lockName(a.cfg.Stream, "leader")
	var got sql.NullInt64
	secs := int(a.cfg.FenceTimeout.Seconds() + 0.5)
	for {
		if a.cfg.Standby {
			if err := a.awaitTurn(ctx, conn); err != nil {
				return fail(err)
			}
		}
		if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, ?)", leader, secs).Scan(&got); err != nil {
			return fail(fmt.Errorf("apply: lock stream %q on the target: %w", a.cfg.Stream, err))
		}
		// A standby that lost the race for the lock to another one waits
		// for its turn again.
		if got.Int64 == 1 || !a.cfg.Standby {
			break
		}
	}
	if got.Int64 != 1 {
		var holder sql.NullInt64
		_ = conn.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", leader).Scan(&holder)
		return fail(exitcode.ConfigError(fmt.Errorf("apply: stream %q is being replicated into this target by another sluice "+
			"(target connection %d has held its lock for over %s): stop that replicator first, or use --stream to name a different stream; "+
			"if none runs, the connection belongs to a dead one: end it with KILL %d",
			a.cfg.Stream, holder.Int64, a.cfg.FenceTimeout, holder.Int64)))
	}
	// The claim comes before the earlier sessions are ended: one that an
	// earlier run opens after it reads the new owner and refuses (standby.go);
	// those opened before hold a slot lock and are ended here.
	if err := EnsureState(ctx, conn, a.cfg.Engine); err != nil {
		return fail(err)
	}
	if err := mysqlstate.ClaimOwner(ctx, conn, a.cfg.Stream, a.cfg.RunID, pipeline.SettingsRecord(a.cfg.Settings)); err != nil {
		return fail(fmt.Errorf("apply: %w", err))
	}
	if err := a.endEarlierSessions(ctx, conn); err != nil {
		return fail(err)
	}
	return conn, nil
}

// endEarlierSessions KILLs the connections holding a slot lock of the
// stream and waits until every slot is free.
func (a *Sink) endEarlierSessions(ctx context.Context, conn *sql.Conn) error {
	deadline := time.Now().Add(a.cfg.FenceTimeout)
	killed := map[int64]bool{}
	for {
		held, err := a.heldSlots(ctx, conn)
		if err != nil {
			return err
		}
		if len(held) == 0 {
			if len(killed) > 0 {
				a.cfg.Log.Info("apply: ended the target sessions of an earlier run of the stream", "stream", a.cfg.Stream, "sessions", len(killed))
			}
			return nil
		}
		if time.Now().After(deadline) {
			ids := make([]string, len(held))
			for i, id := range held {
				ids[i] = strconv.FormatInt(id, 10)
			}
			return fmt.Errorf("apply: target sessions of an earlier run of stream %q (connections %s) did not end within %s after KILL",
				a.cfg.Stream, strings.Join(ids, ", "), a.cfg.FenceTimeout)
		}
		for _, id := range held {
			if killed[id] {
				continue
			}
			killed[id] = true
			a.cfg.Log.Warn("apply: ending a target session of an earlier run of the stream (its last transaction may still be in flight)",
				"stream", a.cfg.Stream, "connection", id)
			if _, err := conn.ExecContext(ctx, "KILL CONNECTION "+strconv.FormatInt(id, 10)); err != nil && errorNumber(err) != 1094 { // 1094: already gone
				return fmt.Errorf("apply: end target connection %d of an earlier run of stream %q: %w", id, a.cfg.Stream, err)
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// heldSlots returns the connections holding a slot lock of the stream.
func (a *Sink) heldSlots(ctx context.Context, conn *sql.Conn) ([]int64, error) {
	var exprs []string
	var args []any
	for i := range maxSlots {
		exprs = append(exprs, "IS_USED_LOCK(?)")
		args = append(args, lockName(a.cfg.Stream, strconv.Itoa(i)))
	}
	vals := make([]sql.NullInt64, maxSlots)
	dest := make([]any, maxSlots)
	for i := range vals {
		dest[i] = &vals[i]
	}
	if err := conn.QueryRowContext(ctx, "SELECT "+strings.Join(exprs, ","), args...).Scan(dest...); err != nil {
		return nil, fmt.Errorf("apply: find target sessions of stream %q: %w", a.cfg.Stream, err)
	}
	var out []int64
	for _, v := range vals {
		if v.Valid {
			out = append(out, v.Int64)
		}
	}
	return out, nil
}

// acquire opens a prepared session holding a free slot lock.
func (a *Sink) acquire(ctx context.Context) (*sql.Conn, int, error) {
	conn, err := a.db.Conn(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("apply: connect to the target: %w", err)
	}
	if err := a.setupSession(ctx, conn); err != nil {
		_ = conn.Close()
		return nil, 0, err
	}
	for {
		slot := a.takeSlot()
		if slot < 0 {
			_ = conn.Close()
			return nil, 0, fmt.Errorf("apply: more than %d target sessions", maxSlots)
		}
		var got sql.NullInt64
		if err := conn.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", lockName(a.cfg.Stream, strconv.Itoa(slot))).Scan(&got); err != nil {
			a.freeSlot(slot)
			_ = conn.Close()
			return nil, 0, fmt.Errorf("apply: register target session: %w", err)
		}
		if got.Int64 == 1 {
			// A session of a run a standby took over refuses to write (standby.go).
			if err := a.checkOwner(ctx, conn); err != nil {
				a.freeSlot(slot)
				_ = conn.Close()
				return nil, 0, err
			}
			return conn, slot, nil
		}
		// Held outside this run (it cannot be after the fence): leave it marked used.
	}
}

func (a *Sink) takeSlot() int {
	a.mu.Lock()
	defer a.mu.Unlock()
	for i, used := range a.slots {
		if !used {
			a.slots[i] = true
			return i
		}
	}
	if len(a.slots) >= maxSlots {
		return -1
	}
	a.slots = append(a.slots, true)
	return len(a.slots) - 1
}

func (a *Sink) freeSlot(i int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i >= 0 && i < len(a.slots) {
		a.slots[i] = false
	}
}

// Replicator describes the sluice replicating stream into the target now
// (the connection holding its leader lock), or "" when none is.
func Replicator(ctx context.Context, db *sql.DB, stream string) (string, error) {
	var id sql.NullInt64
	if err := db.QueryRowContext(ctx, "SELECT IS_USED_LOCK(?)", lockName(stream, "leader")).Scan(&id); err != nil {
		return "", fmt.Errorf("target: find the replicator of stream %q: %w", stream, err)
	}
	if !id.Valid {
		return "", nil
	}
	var host sql.NullString
	// PROCESSLIST shows other users' sessions only with PROCESS; the id is enough then.
	_ = db.QueryRowContext(ctx, "SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = ?", id.Int64).Scan(&host)
	if host.Valid && host.String != "" {
		return fmt.Sprintf("target connection %d from %s", id.Int64, host.String), nil
	}
	return fmt.Sprintf("target connection %d", id.Int64), nil
}
