package consistent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// maxLockTables bounds the tables MethodAuto locks one by one (each is
// opened by LOCK TABLES at once): above it, the global read lock.
const maxLockTables = 1000

// globalLock implements MethodGlobalLock on a separate lock session.
func (s *Source) globalLock(ctx context.Context, p *Point, o PointOptions) error {
	return s.lockedPoint(ctx, p, o, pointLock{method: MethodGlobalLock, stmt: "FLUSH TABLES WITH READ LOCK",
		what: "FLUSH TABLES WITH READ LOCK", waitsFor: "running writes or table locks"})
}

// tableLock implements MethodTableLock on a separate lock session.
func (s *Source) tableLock(ctx context.Context, p *Point, o PointOptions) error {
	if len(o.Tables) == 0 {
		return exitcode.ConfigError(errors.New("--snapshot-method table-lock: no table in scope to lock"))
	}
	var b strings.Builder
	b.WriteString("LOCK TABLES ")
	for i, t := range o.Tables {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(QuoteTable(t.TableID) + " READ")
	}
	return s.lockedPoint(ctx, p, o, pointLock{method: MethodTableLock, stmt: b.String(),
		what:     fmt.Sprintf("LOCK TABLES … READ of the %d tables in scope", len(o.Tables)),
		waitsFor: "running writes or open transactions that wrote to them"})
}

// pointLock is the lock a locked point takes: its statement, and how
// messages name it and what it waits for.
type pointLock struct {
	method         Method
	stmt           string
	what, waitsFor string
}

// lockedPoint takes l on a separate session, opens every reader's snapshot
// and reads the position under it, then unlocks: what commits before the
// lock is in every snapshot and before the position, what the lock holds
// back is in none and after it. Under a table lock other tables' writes go
// on, so the position (and GTID set) may also cover some of theirs, which
// are out of scope.
func (s *Source) lockedPoint(ctx context.Context, p *Point, o PointOptions, l pointLock) error {
	lock, err := s.session(ctx)
	if err != nil {
		return err
	}
	defer lock.Close()
	secs := max(1, int(o.LockWaitTimeout/time.Second))
	if _, err := lock.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", secs)); err != nil {
		return fmt.Errorf("consistent point: %w", err)
	}
	start, err := lockWithAttempts(ctx, lock, o, secs, l)
	if err != nil {
		return err
	}
	unlocked := false
	defer func() {
		if !unlocked {
			_, _ = lock.ExecContext(context.Background(), "UNLOCK TABLES")
		}
	}()
	// Debezium DBZ-9006: the snapshots must be open before UNLOCK, else a
	// commit between UNLOCK and START TRANSACTION is both in the data and
	// after the position.
	if err := startAll(ctx, p.Sessions, nil); err != nil {
		rollbackAll(ctx, p.Sessions)
		return fmt.Errorf("consistent point: %w", err)
	}
	pos, err := s.masterStatus(ctx, lock)
	if err != nil {
		rollbackAll(ctx, p.Sessions)
		return err
	}
	if _, err := lock.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
		rollbackAll(ctx, p.Sessions)
		return fmt.Errorf("consistent point: UNLOCK TABLES: %w", err)
	}
	unlocked = true
	p.LockHeld = time.Since(start)
	p.Position, p.Method = pos, l.method
	if pos.File == "" {
		p.Warnings = append(p.Warnings, "the source has no binary log (log_bin=OFF): no position was recorded, replicate cannot continue from this snapshot")
	}
	return nil
}

// lockWithAttempts takes l, waiting at most secs each time and trying
// o.LockAttempts times, with a pause between attempts in which the writers
// that queued behind the waiting lock go through. It returns when the
// last, successful attempt was sent: writers are blocked from then on.
func lockWithAttempts(ctx context.Context, lock *sql.Conn, o PointOptions, secs int, l pointLock) (time.Time, error) {
	for attempt := 1; ; attempt++ {
		start := time.Now()
		_, err := lock.ExecContext(ctx, l.stmt)
		if err == nil {
			return start, nil
		}
		if !isLockTimeout(err) {
			return time.Time{}, fmt.Errorf("consistent point: %s: %w", l.what, err)
		}
		blockers := longRunning(ctx, lock, secs)
		if attempt >= o.LockAttempts {
			other := "--snapshot-method table-lock"
			if l.method == MethodTableLock {
				other = "--snapshot-method global-read-lock"
			}
			return time.Time{}, fmt.Errorf("consistent point: %s waited %ds for %s %d times and gave up, "+
				"so as not to stall the source's writers any longer (MySQL error 1205)%s; "+
				"retry when they are done, raise --lock-wait-timeout or --lock-attempts, or try %s", l.what, secs, l.waitsFor, attempt, blockers, other)
		}
		o.Log.Warn("consistent point: the lock timed out; writers go on, then it is tried again", "lock", l.what,
			"waited", time.Duration(secs)*time.Second, "attempt", attempt, "attempts", o.LockAttempts,
			"pause", o.LockRetryPause, "blockers", strings.TrimPrefix(blockers, "; "))
		if err := sleepCtx(ctx, o.LockRetryPause); err != nil {
			return time.Time{}, err
		}
	}
}

// longRunning describes what a timed-out lock likely waited for, for its
// message: the statements of other sessions that have run for at least
// secs, and the oldest open transactions that changed rows (an idle one
// holds its tables' metadata locks until it ends). Without the PROCESS
// privilege only the user's own sessions are seen; "" parts are left out.
func longRunning(ctx context.Context, c *sql.Conn, secs int) string {
	var parts []string
	scan := func(q string, f func(rows *sql.Rows) (string, error), args ...any) {
		rows, err := c.QueryContext(ctx, q, args...)
		if err != nil {
			return
		}
		defer rows.Close()
		for rows.Next() {
			part, err := f(rows)
			if err != nil {
				return
			}
			parts = append(parts, part)
		}
	}
	scan(`SELECT ID, USER, TIME, COALESCE(STATE, ''), LEFT(COALESCE(INFO, ''), 80)
		FROM information_schema.PROCESSLIST
		WHERE ID <> CONNECTION_ID() AND COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump', 'Binlog Dump GTID') AND TIME >= ?
		ORDER BY TIME DESC LIMIT 3`, func(rows *sql.Rows) (string, error) {
		var (
			id, ran           int64
			user, state, info string
		)
		err := rows.Scan(&id, &user, &ran, &state, &info)
		return fmt.Sprintf("id %d (user %s, %d s, %q: %q)", id, user, ran, state, info), err
	}, secs)
	scan(`SELECT trx_mysql_thread_id, TIMESTAMPDIFF(SECOND, trx_started, NOW()), trx_rows_modified
		FROM information_schema.INNODB_TRX
		WHERE trx_mysql_thread_id <> CONNECTION_ID() AND trx_rows_modified > 0 AND trx_started <= NOW() - INTERVAL ? SECOND
		ORDER BY trx_started LIMIT 3`, func(rows *sql.Rows) (string, error) {
		var id, open, changed int64
		err := rows.Scan(&id, &open, &changed)
		return fmt.Sprintf("id %d (transaction open %d s, %d rows changed)", id, open, changed), err
	}, secs)
	if len(parts) == 0 {
		return "; find the long statement, transaction or LOCK TABLES with SHOW PROCESSLIST"
	}
	return "; longest running: " + strings.Join(parts, ", ")
}

// masterStatus reads the binlog position and executed GTID set (under the
// global read lock, so both describe the same instant).
func (s *Source) masterStatus(ctx context.Context, c *sql.Conn) (binlogpos.Position, error) {
	pos := binlogpos.Position{Flavor: s.Flavor}
	rows, err := c.QueryContext(ctx, "SHOW MASTER STATUS")
	if err != nil {
		// MySQL 8.4 removed SHOW MASTER STATUS.
		rows, err = c.QueryContext(ctx, "SHOW BINARY LOG STATUS")
	}
	if err != nil {
		return pos, fmt.Errorf("consistent point: read binlog position: %w", err)
	}
	cols, _ := rows.Columns()
	vals := make([]sql.NullString, len(cols))
	dest := make([]any, len(cols))
	for i := range vals {
		dest[i] = &vals[i]
	}
	if rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return pos, fmt.Errorf("consistent point: read binlog position: %w", err)
		}
		pos.File = vals[0].String
		var n uint64
		fmt.Sscan(vals[1].String, &n)
		pos.Pos = uint32(n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return pos, fmt.Errorf("consistent point: read binlog position: %w", err)
	}
	if pos.File == "" {
		return pos, nil
	}
	q := "SELECT @@GLOBAL.gtid_executed"
	if s.Flavor == "mariadb" {
		q = "SELECT @@GLOBAL.gtid_binlog_pos"
	}
	var g sql.NullString
	if err := c.QueryRowContext(ctx, q).Scan(&g); err != nil {
		return pos, fmt.Errorf("consistent point: read GTID set: %w", err)
	}
	// MySQL prints long GTID sets over several lines.
	pos.GTIDSet = strings.ReplaceAll(g.String, "\n", "")
	return pos, nil
}

func isAccessDenied(err error) bool {
	var me *mysql.MySQLError
	// 1142: a table's privilege (LOCK TABLES … READ of a table without SELECT).
	return errors.As(err, &me) && (me.Number == 1227 || me.Number == 1044 || me.Number == 1045 || me.Number == 1142)
}

func isLockTimeout(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && me.Number == 1205
}
