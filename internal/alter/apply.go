package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"golang.org/x/sync/errgroup"
)

const applyBatch = 500

// applyKeys makes the shadow rows of keys equal to the table's current
// rows: keys no longer in the table are deleted, the others re-read and
// replaced. Every change of a key after this read is in the binlog after
// it, so the key comes back into the set.
func (r *runner) applyKeys(ctx context.Context, q querier, vals [][]any) error {
	shadow, table := r.quoted(shadowName(r.id.Name)), r.quoted(r.id.Name)
	var args []any
	for _, v := range vals {
		args = append(args, v...)
	}
	var join []string
	for _, p := range r.key.Parts {
		join = append(join, table+"."+p.Quoted()+" = "+shadow+"."+p.Quoted())
	}
	// Locking reads of the table: the binlog reader can see a transaction
	// before its commit is visible to other sessions (the binlog is written
	// before the engine commits), and a consistent read then would miss the
	// row and drop the key for good. A locking read waits for that
	// transaction's row locks, i.e. for its commit, and reads the committed
	// row.
	del := "DELETE FROM " + shadow + " WHERE (" + r.key.OneOfWhere(shadow+".", vals) + ") AND NOT EXISTS (SELECT 1 FROM " +
		table + " WHERE " + strings.Join(join, " AND ") + " LOCK IN SHARE MODE)"
	if _, err := execRetry(ctx, q, del, args...); err != nil {
		return fmt.Errorf("alter: apply changed keys (delete): %w", err)
	}
	cols := r.columnList()
	rep := "REPLACE INTO " + shadow + " (" + cols + ") SELECT " + cols + " FROM " + table + " WHERE " + r.key.OneOfWhere(table+".", vals) + " LOCK IN SHARE MODE"
	if _, err := execRetry(ctx, q, rep, args...); err != nil {
		return fmt.Errorf("alter: apply changed keys (replace): %w", err)
	}
	r.applied.Add(int64(len(vals)))
	return nil
}

// appliers applies the key set with --workers sessions until ctx ends.
func (r *runner) appliers(ctx context.Context) error {
	g, ctx := errgroup.WithContext(ctx)
	for w := 0; w < r.o.Workers; w++ {
		g.Go(func() error {
			conn, err := r.db.Conn(ctx)
			if err != nil {
				return ignoreCancel(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"); err != nil {
				return ignoreCancel(err)
			}
			for {
				ids, vals := r.keys.take(applyBatch)
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
				// is never left half-applied in flight.
				err := r.applyKeys(context.WithoutCancel(ctx), conn, vals)
				r.keys.done(ids, err != nil)
				if err != nil {
					return err
				}
			}
		})
	}
	return g.Wait()
}

// drain applies every key of the set on one session (under the lock).
func (r *runner) drain(ctx context.Context, q querier) error {
	for {
		ids, vals := r.keys.take(applyBatch)
		if len(ids) == 0 {
			if r.keys.size() == 0 {
				return nil
			}
			return fmt.Errorf("alter: keys still in flight during the drain")
		}
		err := r.applyKeys(ctx, q, vals)
		r.keys.done(ids, err != nil)
		if err != nil {
			return err
		}
	}
}

func ignoreCancel(err error) error {
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}

const errDeadlock = 1213

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
