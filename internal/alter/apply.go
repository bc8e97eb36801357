package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sluice-db/sluice/internal/schema"
	mysqlsink "github.com/sluice-db/sluice/internal/sink/mysql"
)

const applyBatch = 500

// gatherPause is an applier's pause after a batch shorter than applyBatch.
const gatherPause = 100 * time.Millisecond

// Lock clauses of the appliers' reads of the table. A background applier
// never waits for a row lock (nowait): waiting, it could hold the shared
// locks of other rows of its batch that an application transaction then
// waits for, a deadlock whose victim InnoDB picks by weight — the
// application's small transaction, a client error. Not waiting, it is in
// no lock cycle. The drain under the table lock waits (lockWait): no
// application writes then.
const lockWait = " LOCK IN SHARE MODE"

// nowaitClause is the non-waiting shared lock of the server, and the
// error number of a lock it could not take at once.
func nowaitClause(mariadb bool) (string, uint16) {
	if mariadb {
		return " LOCK IN SHARE MODE NOWAIT", errLockWaitTimeout
	}
	return " FOR SHARE NOWAIT", errLockNowait
}

// errLockNowait: MySQL's "could not be acquired immediately and NOWAIT is set".
const errLockNowait = 3572

// applyKeys makes the shadow rows of keys equal to the table's current
// rows: keys no longer in the table are deleted, the others re-read and
// replaced. Every change of a key after this read is in the binlog after
// it, so the key comes back into the set. lock is lockWait or the nowait
// clause; with the latter a row lock held by another transaction fails the
// statement at once (busy), which runs nothing twice: both statements
// re-read the table.
func (r *runner) applyKeys(ctx context.Context, q querier, vals [][]any, lock string) error {
	shadow, table := r.quoted(r.shadow()), r.quoted(r.id.Name)
	var args []any
	for _, v := range vals {
		args = append(args, v...)
	}
	var join []string
	for _, p := range r.key.Parts {
		join = append(join, table+"."+p.Quoted()+" = "+shadow+"."+p.Quoted())
	}
	exec := execRetry
	if lock != lockWait {
		exec = execOnce
	}
	// Locking reads of the table: the binlog reader can see a transaction
	// before its commit is visible to other sessions (the binlog is written
	// before the engine commits), and a consistent read then would miss the
	// row and drop the key for good. A locking read waits for (or, nowait,
	// fails on) that transaction's row locks, i.e. its commit, and reads the
	// committed row.
	del := "DELETE FROM " + shadow + " WHERE (" + r.key.OneOfWhere(shadow+".", vals) + ") AND NOT EXISTS (SELECT 1 FROM " +
		table + " WHERE " + strings.Join(join, " AND ") + lock + ")"
	if _, err := exec(ctx, q, del, args...); err != nil {
		return fmt.Errorf("alter: apply changed keys (delete): %w", err)
	}
	cols := r.columnList()
	rep := "REPLACE INTO " + shadow + " (" + cols + ") SELECT " + cols + " FROM " + table + " WHERE " + r.key.OneOfWhere(table+".", vals) + lock
	if r.reverse {
		rep = "INSERT INTO " + shadow + " (" + cols + ") SELECT " + cols + " FROM " + table + " WHERE " + r.key.OneOfWhere(table+".", vals) + lock +
			" ON DUPLICATE KEY UPDATE " + r.updateList(table)
	}
	if _, err := exec(ctx, q, rep, args...); err != nil {
		return fmt.Errorf("alter: apply changed keys (replace): %w", err)
	}
	r.applied.Add(int64(len(vals)))
	return nil
}

// updateList sets every shared column from the table's row: a revert
// window's apply updates the old table's row in place, so that a column the
// change dropped keeps its value (REPLACE would reset it to its default).
func (r *runner) updateList(table string) string {
	set := make([]string, len(r.p.shared))
	for i, c := range r.p.shared {
		q := schema.QuoteMySQL(c)
		set[i] = q + " = " + table + "." + q
	}
	return strings.Join(set, ", ")
}

// applyBusy applies keys without waiting for row locks; a batch that finds
// a locked row is split in halves, and a single key still locked is
// applied waiting for its lock, alone: then the applier holds no other lock
// an application transaction could wait for, so no lock cycle forms.
func (r *runner) applyBusy(ctx context.Context, q querier, vals [][]any) error {
	err := r.applyKeys(ctx, q, vals, r.nowait)
	code, _ := mysqlErr(err)
	if err == nil || code != r.busyCode {
		return err
	}
	if len(vals) == 1 {
		return r.applyKeys(ctx, q, vals, lockWait)
	}
	h := len(vals) / 2
	if err := r.applyBusy(ctx, q, vals[:h]); err != nil {
		return err
	}
	return r.applyBusy(ctx, q, vals[h:])
}

// applyBatch applies a batch of keys: their row images, or a re-read of
// the table — waiting for row locks under the drain's table lock (no
// application writes then), else without waiting (applyBusy).
func (r *runner) applyBatch(ctx context.Context, q querier, vals, imgs [][]any, locked bool) error {
	switch {
	case r.images != nil:
		return r.applyImages(ctx, q, vals, imgs)
	case locked:
		return r.applyKeys(ctx, q, vals, lockWait)
	}
	return r.applyBusy(ctx, q, vals)
}

// appliers applies the key set with --workers sessions until ctx ends;
// gather: pause after a short batch (during the copy; after it the set is
// to be kept small for the checksum and the swap).
func (r *runner) appliers(ctx context.Context, gather bool) error {
	g, ctx := errgroup.WithContext(ctx)
	for w := 0; w < r.ctl.workers(); w++ {
		g.Go(func() error {
			conn, err := r.db.Conn(ctx)
			if err != nil {
				return ignoreCancel(err)
			}
			defer conn.Close()
			if err := r.applySession(ctx, conn); err != nil {
				if ctx.Err() != nil {
					// Stopped while it set up (the early appliers of a resumed
					// run whose chunks are all copied): the driver reports a
					// statement canceled on a fresh session as "bad connection".
					return nil
				}
				return err
			}
			for {
				ids, vals, imgs := r.keys.take(applyBatch)
				if len(ids) == 0 {
					if err := sleep(ctx, 10*time.Millisecond); err != nil {
						return nil
					}
					continue
				}
				// Paused with keys in flight: a change meanwhile marks them dirty.
				if err := r.ctl.gate(ctx); err != nil {
					r.keys.done(ids, true)
					return ignoreCancel(err)
				}
				// The statements finish even when ctx ends, so that a key
				// is never left half-applied in flight. The checksum's
				// table lock waits for no batch to be in flight (hold).
				r.hold.RLock()
				err := r.applyBatch(context.WithoutCancel(ctx), conn, vals, imgs, false)
				r.hold.RUnlock()
				r.keys.done(ids, err != nil)
				if err != nil {
					return err
				}
				// A short batch: the set is nearly empty. Let keys gather
				// for the next one: per-statement work (a transaction, its
				// binlog events) is spread over more rows, and a key
				// changed again meanwhile is written once.
				if gather && len(ids) < applyBatch {
					if err := sleep(ctx, gatherPause); err != nil {
						return nil
					}
				}
			}
		})
	}
	return g.Wait()
}

// applySession prepares an applier's session: READ COMMITTED (fewer gap
// locks); with row images, the session their literals are written for
// (binary connection charset, UTC, no strict mode: the values are the
// table's own, zero dates included).
func (r *runner) applySession(ctx context.Context, q querier) error {
	setup := []string{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"}
	if r.images != nil {
		setup = append(setup, mysqlsink.SessionSetup()...)
	}
	for _, s := range setup {
		if _, err := q.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("alter: prepare an applier session (%s): %w", s, err)
		}
	}
	return nil
}

// drain applies every key of the set on one session (under the lock).
// Row images are written in the appliers' session settings, set for the
// drain and restored after it.
func (r *runner) drain(ctx context.Context, q querier) error {
	if r.images != nil {
		if _, err := q.ExecContext(ctx, saveSession); err != nil {
			return fmt.Errorf("alter: save the session settings: %w", err)
		}
		if err := r.applySession(ctx, q); err != nil {
			return err
		}
		defer q.ExecContext(context.WithoutCancel(ctx), restoreSession) //nolint:errcheck
	}
	for {
		ids, vals, imgs := r.keys.take(applyBatch)
		if len(ids) == 0 {
			if r.keys.size() == 0 {
				return nil
			}
			return fmt.Errorf("alter: keys still in flight during the drain")
		}
		err := r.applyBatch(ctx, q, vals, imgs, true)
		r.keys.done(ids, err != nil)
		if err != nil {
			return err
		}
	}
}

const (
	saveSession = "SET @sluice_cs = @@SESSION.character_set_client, @sluice_coll = @@SESSION.collation_connection, " +
		"@sluice_res = @@SESSION.character_set_results, @sluice_mode = @@SESSION.sql_mode, @sluice_tz = @@SESSION.time_zone"
	restoreSession = "SET SESSION character_set_client = @sluice_cs, SESSION collation_connection = @sluice_coll, " +
		"SESSION character_set_results = @sluice_res, SESSION sql_mode = @sluice_mode, SESSION time_zone = @sluice_tz"
)

func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

const errDeadlock = 1213

// execOnce runs one autocommit statement once.
func execOnce(ctx context.Context, q querier, stmt string, args ...any) (sql.Result, error) {
	return q.ExecContext(ctx, stmt, args...)
}

// execRetry runs one autocommit statement, again after a deadlock or a row
// lock wait timeout (the copy and the appliers write the same table;
// InnoDB rolls the statement back, so running it again is exact).
func execRetry(ctx context.Context, q querier, stmt string, args ...any) (sql.Result, error) {
	backoff := 20 * time.Millisecond
	for attempt := 1; ; attempt++ {
		res, err := q.ExecContext(ctx, stmt, args...)
		code, _ := mysqlErr(err)
		if err == nil || (code != errDeadlock && code != errLockWaitTimeout) || attempt == 8 {
			return res, err
		}
		if err := sleep(ctx, backoff); err != nil {
			return nil, err
		}
		backoff *= 2
	}
}
