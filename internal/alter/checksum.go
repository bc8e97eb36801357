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
)

// checksum compares the shadow table with the table on the shared columns,
// chunk by chunk, at one instant: with the table briefly read-locked, the
// key set is drained (nothing changes the table meanwhile) and --workers
// sessions open consistent snapshots, then the lock is released and the
// chunks are hashed inside those snapshots while the application writes on.
func (r *runner) checksum(ctx context.Context, chunks []chunk) error {
	// MySQL 9 moved MD5() into a component: SHA-256 there.
	r.hashFn, r.hashArg = "MD5", ""
	if _, err := r.db.ExecContext(ctx, "DO MD5('x')"); err != nil {
		r.hashFn, r.hashArg = "SHA2", ", 256"
	}
	snaps, err := r.consistentPoint(ctx)
	if err != nil {
		return err
	}
	defer func() {
		for _, c := range snaps {
			c.ExecContext(context.WithoutCancel(ctx), "ROLLBACK") //nolint:errcheck
			c.Close()
		}
	}()
	todo := make(chan chunk)
	g, gctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(todo)
		for _, c := range chunks {
			select {
			case todo <- c:
			case <-gctx.Done():
				return gctx.Err()
			}
		}
		return nil
	})
	var bad []string
	badc := make(chan string, len(chunks))
	// Hashing both tables is CPU the application needs: while the write
	// pacer still paces (it found the copy costing the application its
	// rate) one session hashes, not --workers (measured: 4 sessions on a
	// 2-core server with clients at half its capacity raised their p95
	// latency to 2 s for the checksum's 8 s). The control file, --max-load
	// and --critical-load are honoured between chunks, and --nice-ratio
	// pauses after each as for the copy.
	hashers := snaps
	if r.pacer.active() && len(hashers) > 1 {
		hashers = hashers[:1]
		r.log.Info("checksum with one session: the write pacer is pacing", "chunks", len(chunks))
	}
	for _, conn := range hashers {
		g.Go(func() error {
			for c := range todo {
				if err := r.ctl.gate(gctx); err != nil {
					return err
				}
				start := time.Now()
				a, err := r.chunkHash(gctx, conn, r.id.Name, c)
				if err != nil {
					return err
				}
				b, err := r.chunkHash(gctx, conn, shadowName(r.id.Name), c)
				if err != nil {
					return err
				}
				if a != b {
					badc <- fmt.Sprintf("chunk %d: table %s, copy %s", c.Seq, a, b)
				}
				if nice := r.ctl.niceRatio(); nice > 0 {
					if err := sleep(gctx, time.Duration(float64(time.Since(start))*nice)); err != nil {
						return err
					}
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	close(badc)
	for s := range badc {
		bad = append(bad, s)
	}
	if len(bad) > 0 {
		if len(bad) > 5 {
			bad = append(bad[:5], fmt.Sprintf("and %d more", len(bad)-5))
		}
		return fmt.Errorf("%w: the checksum of the copy differs from the table's on the shared columns (%s); "+
			"a changed column type that converts values (truncation, rounding, a unique key the data violates) makes the copy differ",
			errAbort, strings.Join(bad, "; "))
	}
	return nil
}

// errDrainSlow: the key set did not drain while the table was locked.
var errDrainSlow = errors.New("the changed keys did not drain in time under the table lock")

// consistentPoint read-locks the table, drains the key set and opens the
// snapshot sessions; the lock waits at most the cut-over lock timeout,
// with retries.
//
// The lock is READ (readers go on) for the first attempts, then WRITE: a
// waiting READ lock does not hold back new write transactions (the
// server's metadata locks favour them over it), so under writers that
// always keep a transaction open on the table it never gets its turn
// (MariaDB at 16 sysbench threads: 30 timeouts of 2 s in a row); a waiting
// WRITE lock does hold them back, and is granted once the open ones end.
// Readers then wait too, for the milliseconds the lock is held.
func (r *runner) consistentPoint(ctx context.Context) ([]*sql.Conn, error) {
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		mode := "READ"
		if attempt > 2 {
			mode = "WRITE"
		}
		// The set grew while an earlier attempt waited: drained under the
		// lock, it would hold the writers back that much longer.
		if err := r.catchUp(ctx); err != nil {
			return nil, err
		}
		snaps, err := r.tryConsistentPoint(ctx, mode)
		if err == nil {
			return snaps, nil
		}
		code, _ := mysqlErr(err)
		if (code != errLockWaitTimeout && !errors.Is(err, errDrainSlow)) || attempt >= r.o.CutoverRetries {
			return nil, err
		}
		r.log.Warn("checksum: no consistent point yet, retrying", "attempt", attempt, "reason", err, "in", backoff)
		if err := sleep(ctx, backoff); err != nil {
			return nil, err
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

func (r *runner) tryConsistentPoint(ctx context.Context, mode string) (snaps []*sql.Conn, err error) {
	lock, err := r.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer lock.Close()
	if _, err := lock.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", lockSeconds(r.o.CutoverLockTimeout))); err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			for _, c := range snaps {
				c.Close()
			}
			snaps = nil
		}
	}()
	// The snapshot sessions are opened before the lock: under it, only
	// their START TRANSACTION runs (connecting to a busy server takes
	// milliseconds each, which the writers would wait for).
	for i := 0; i < r.ctl.workers(); i++ {
		c, err := r.db.Conn(ctx)
		if err != nil {
			return snaps, err
		}
		snaps = append(snaps, c)
		if _, err := c.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ"); err != nil {
			return snaps, err
		}
	}
	// The appliers stop while the lock waits: their shared row locks make
	// application transactions wait, and the table lock waits for every
	// open one (at 16 sysbench threads it timed out attempt after attempt).
	// Granted, the lock holds the writers back and the appliers drain.
	// Appliers writing row images do not read the table: they go on, and
	// the set is small when the lock is granted.
	if r.o.beforeLock != nil {
		r.o.beforeLock(stepChecksum)
	}
	if r.images == nil {
		r.hold.Lock()
	}
	// A waiting READ lock lets writers pass (the servers' metadata locks
	// favour them); a waiting WRITE lock queues them.
	lt := startLock(stepChecksum, "LOCK TABLES "+r.id.Name+" "+mode, mode == "WRITE")
	_, err = lock.ExecContext(ctx, "LOCK TABLES "+r.quoted(r.id.Name)+" "+mode)
	if r.images == nil {
		r.hold.Unlock()
	}
	if err != nil {
		r.recordLock(lt.done())
		return snaps, err
	}
	lt.grant()
	defer func() {
		lock.ExecContext(context.WithoutCancel(ctx), "UNLOCK TABLES") //nolint:errcheck
		r.recordLock(lt.done())
	}()
	return snaps, r.underPointLock(ctx, snaps)
}

// underPointLock is the consistent point's work under the table lock: the
// binlog reader reaches a marker written now (it follows every change of
// the table), the appliers drain the set, and the snapshots start. The
// phases are logged: the writers wait for all of them.
func (r *runner) underPointLock(ctx context.Context, snaps []*sql.Conn) error {
	start := time.Now()
	id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return err
	}
	if err := r.tr.waitMarker(ctx, id, 30*time.Second); err != nil {
		return err
	}
	read := time.Now()
	// The background appliers drain the set: nothing adds to it now. They
	// may be paused (control file, --max-load): the lock is not held for
	// that long.
	keys := r.keys.size()
	drainBy := time.Now().Add(max(5*time.Second, 2*r.o.CutoverLockTimeout))
	for r.keys.size() > 0 {
		if err := r.tr.failed(); err != nil {
			return err
		}
		if time.Now().After(drainBy) {
			return errDrainSlow
		}
		if err := sleep(ctx, 2*time.Millisecond); err != nil {
			return err
		}
	}
	drained := time.Now()
	for _, c := range snaps {
		if _, err := c.ExecContext(ctx, "START TRANSACTION WITH CONSISTENT SNAPSHOT"); err != nil {
			return err
		}
	}
	r.log.Info("checksum point: under the table lock", "reader_reached_marker", read.Sub(start).Round(time.Millisecond),
		"drained_keys", keys, "drain", drained.Sub(read).Round(time.Millisecond), "snapshots", time.Since(drained).Round(time.Millisecond))
	return nil
}

// chunkHash is the row count and two 64-bit XORs of the rows' MD5 (or SHA-256) over the
// shared columns, each rendered as text (strings in utf8mb4, so that a
// charset change compares characters).
func (r *runner) chunkHash(ctx context.Context, conn *sql.Conn, table string, c chunk) (string, error) {
	where, args, err := r.key.RangeWhere(c.Lo, c.Hi)
	if err != nil {
		return "", err
	}
	parts := make([]string, len(r.p.shared))
	for i, name := range r.p.shared {
		parts[i] = "IFNULL(CONCAT('v', " + r.renderExpr(name) + "), 'n')"
	}
	h := r.hashFn + "(CONCAT_WS('|', " + strings.Join(parts, ", ") + ")" + r.hashArg + ")"
	q := "SELECT COUNT(*), COALESCE(BIT_XOR(CAST(CONV(LEFT(" + h + ", 16), 16, 10) AS UNSIGNED)), 0), " +
		"COALESCE(BIT_XOR(CAST(CONV(RIGHT(" + h + ", 16), 16, 10) AS UNSIGNED)), 0) FROM " + r.quoted(table)
	if where != "" {
		q += " WHERE " + where
	}
	var n, x1, x2 uint64
	if err := conn.QueryRowContext(ctx, q, args...).Scan(&n, &x1, &x2); err != nil {
		return "", fmt.Errorf("alter: checksum chunk %d of %s: %w", c.Seq, table, err)
	}
	return fmt.Sprintf("%d rows %016x%016x", n, x1, x2), nil
}

// renderExpr is a column as text, the same expression on both tables. A
// column whose type the change widens renders by value in a common type,
// so that 5 and 5.000 or 10:00:00 and 10:00:00.000 compare equal.
func (r *runner) renderExpr(name string) string {
	q := schema.QuoteMySQL(name)
	t, nt := "", ""
	if c := r.p.oldDef.column(name); c != nil {
		t = strings.ToLower(c.Type)
	}
	if c := r.p.newDef.column(name); c != nil {
		nt = strings.ToLower(c.Type)
	}
	if t != nt {
		switch {
		case isExactNumber(t) && isExactNumber(nt):
			return "CAST(" + q + " AS DECIMAL(65,30))"
		case isDateTime(t) && isDateTime(nt):
			return "CAST(" + q + " AS DATETIME(6))"
		case strings.HasPrefix(t, "time") && strings.HasPrefix(nt, "time") && !isDateTime(t) && !isDateTime(nt):
			return "CAST(" + q + " AS TIME(6))"
		}
	}
	switch {
	case strings.Contains(t, "binary") || strings.Contains(t, "blob"):
		return q
	case strings.HasPrefix(t, "bit"):
		return q + " + 0"
	case strings.Contains(t, "char") || strings.Contains(t, "text") || strings.HasPrefix(t, "enum") || strings.HasPrefix(t, "set") || strings.HasPrefix(t, "json"):
		return "CONVERT(" + q + " USING utf8mb4)"
	}
	return q
}

func isExactNumber(t string) bool {
	for _, p := range []string{"tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "numeric"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return false
}

func isDateTime(t string) bool {
	return strings.HasPrefix(t, "datetime") || strings.HasPrefix(t, "timestamp")
}
