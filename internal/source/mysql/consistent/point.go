package consistent

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// Method is how the reader sessions were brought to one instant.
type Method string

const (
	// MethodAuto uses MethodTableLock when the tables in scope are known
	// (and at most maxLockTables), else or without the LOCK TABLES
	// privilege MethodGlobalLock; on MariaDB without RELOAD it tries
	// MethodLockFree and then MethodSingle.
	MethodAuto Method = "auto"
	// MethodTableLock: LOCK TABLES … READ of the tables in scope on a
	// separate session, open every session's snapshot, read the position,
	// UNLOCK TABLES. Only writers of those tables wait (no other table's,
	// and no running SELECT delays it, which MySQL's global lock waits
	// for). Needs LOCK TABLES (and SELECT) on them.
	MethodTableLock Method = "table-lock"
	// MethodLockFree (MariaDB only): every session opens its consistent
	// snapshot at once, then each session's own snapshot position
	// (binlog_snapshot_file/position) is read, one session after the other;
	// when all are equal, every session sees exactly the transactions up to
	// that position. Retried a few times; no lock at all.
	MethodLockFree Method = "lock-free"
	// MethodGlobalLock: FLUSH TABLES WITH READ LOCK, open every session's
	// snapshot, read the position, UNLOCK TABLES. Needs RELOAD.
	MethodGlobalLock Method = "global-read-lock"
	// MethodSingle (MariaDB only): one session, whose snapshot position
	// MariaDB reports without any lock. All reads go through that session.
	MethodSingle Method = "single-session"
)

// ParseMethod checks a --snapshot-method value.
func ParseMethod(s string) (Method, error) {
	switch m := Method(s); m {
	case MethodAuto, MethodTableLock, MethodLockFree, MethodGlobalLock, MethodSingle:
		return m, nil
	case "":
		return MethodAuto, nil
	}
	return "", fmt.Errorf("--snapshot-method %q: want auto, table-lock, global-read-lock, lock-free or single-session", s)
}

// PointOptions configure OpenPoint.
type PointOptions struct {
	Sessions int
	Method   Method
	// LockWaitTimeout bounds how long one attempt of the table or global
	// read lock may wait for running writes (while it waits, new writes
	// to the locked tables queue behind it).
	LockWaitTimeout time.Duration
	// LockAttempts is how often the lock is tried
	// (0: 3). Between two attempts the lock is not held for LockRetryPause,
	// so the writers that queued behind the waiting lock get through.
	LockAttempts int
	// LockRetryPause is the pause between two attempts (0: half of
	// LockWaitTimeout, at least 1 s and at most 10 s).
	LockRetryPause time.Duration
	// LockFreeAttempts is how often MethodLockFree opens the sessions'
	// snapshots before giving up (0: 10).
	LockFreeAttempts int
	// Tables are the tables in scope, which MethodTableLock locks.
	Tables []*schema.Table
	// NonTransactional names the tables in scope that no snapshot covers
	// (see NonTransactional); OpenPoint logs them as a warning.
	NonTransactional []string
	Log              *slog.Logger
}

// Point is a set of reader sessions inside one consistent snapshot and the
// binlog position of that snapshot: every transaction committed at or
// before Position is visible to every session, none after it.
type Point struct {
	Sessions []*sql.Conn
	Position binlogpos.Position
	Method   Method
	// LockHeld is how long the lock of Method (the tables' read lock or the
	// global read lock) blocked writes (0 without lock): from sending LOCK
	// TABLES / FLUSH TABLES WITH READ LOCK, because new writes queue behind
	// it while it waits for running ones, to UNLOCK TABLES.
	LockHeld time.Duration
	// Warnings explain degraded modes (one session, no binlog).
	Warnings []string
}

// Close ends the snapshot transactions and returns the sessions.
func (p *Point) Close() {
	for _, c := range p.Sessions {
		_, _ = c.ExecContext(context.Background(), "ROLLBACK")
		_ = c.Close()
	}
	p.Sessions = nil
}

// OpenPoint opens the reader sessions and brings them to one instant.
func (s *Source) OpenPoint(ctx context.Context, o PointOptions) (*Point, error) {
	if o.Sessions < 1 {
		o.Sessions = 1
	}
	if o.LockWaitTimeout <= 0 {
		o.LockWaitTimeout = 10 * time.Second
	}
	if o.LockAttempts <= 0 {
		o.LockAttempts = 3
	}
	if o.LockRetryPause <= 0 {
		o.LockRetryPause = min(max(o.LockWaitTimeout/2, time.Second), 10*time.Second)
	}
	if o.LockFreeAttempts <= 0 {
		o.LockFreeAttempts = 10
	}
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Method == "" {
		o.Method = MethodAuto
	}
	mariadb := s.Flavor == "mariadb"
	if !mariadb && (o.Method == MethodLockFree || o.Method == MethodSingle) {
		return nil, exitcode.ConfigError(fmt.Errorf("--snapshot-method %s needs MariaDB (it reads binlog_snapshot_position); "+
			"on MySQL use global-read-lock", o.Method))
	}
	sessions, err := s.openSessions(ctx, o.Sessions)
	if err != nil {
		return nil, err
	}
	p := &Point{Sessions: sessions}
	ok := false
	defer func() {
		if !ok {
			p.Close()
			return
		}
		warnNonTransactional(o.Log, o.NonTransactional, p.Method)
		// The server the position's file:pos belongs to: a stream that
		// continues on another one (the snapshot read a replica, replicate
		// reads the primary) goes by GTID, after the containment check.
		var id uint32
		if p.Sessions[0].QueryRowContext(ctx, "SELECT @@server_id").Scan(&id) == nil {
			p.Position.ServerID = id
		}
	}()
	if o.Method == MethodLockFree {
		if err := s.lockFree(ctx, p, o); err != nil {
			return nil, err
		}
		ok = true
		return p, nil
	}
	if o.Method == MethodTableLock || o.Method == MethodAuto && len(o.Tables) > 0 && len(o.Tables) <= maxLockTables {
		err := s.tableLock(ctx, p, o)
		if err == nil {
			ok = true
			return p, nil
		}
		if !isAccessDenied(err) {
			return nil, err
		}
		if o.Method == MethodTableLock {
			return nil, exitcode.ConfigError(fmt.Errorf("consistent point: LOCK TABLES … READ was refused (%v); "+
				"fix: %s", err, lockGrantFix(o)))
		}
		o.Log.Warn("no LOCK TABLES privilege on the tables in scope: trying the global read lock", "error", err)
	}
	if o.Method == MethodAuto || o.Method == MethodGlobalLock {
		err := s.globalLock(ctx, p, o)
		if err == nil {
			ok = true
			return p, nil
		}
		if !isAccessDenied(err) || o.Method == MethodGlobalLock || !mariadb {
			if isAccessDenied(err) {
				return nil, exitcode.ConfigError(fmt.Errorf("consistent point: FLUSH TABLES WITH READ LOCK was refused (%v); "+
					"fix: %s", err, lockGrantFix(o)))
			}
			return nil, err
		}
		o.Log.Warn("no RELOAD privilege for the global read lock: trying the lock-free method", "error", err)
		if err := s.withoutLock(ctx, p, o); err != nil {
			return nil, err
		}
		ok = true
		return p, nil
	}
	if err := s.single(ctx, p); err != nil {
		return nil, err
	}
	ok = true
	return p, nil
}

// withoutLock is auto's way without RELOAD: lock-free, or one session when
// the sessions never agreed or there is no binlog to compare them by.
func (s *Source) withoutLock(ctx context.Context, p *Point, o PointOptions) error {
	err := s.lockFree(ctx, p, o)
	if err == nil || (!errors.Is(err, errNoAgreement) && !errors.Is(err, errNoBinlog)) {
		return err
	}
	o.Log.Warn("lock-free consistent point failed: reading with one session", "error", err)
	return s.single(ctx, p)
}

func (s *Source) openSessions(ctx context.Context, n int) ([]*sql.Conn, error) {
	out := make([]*sql.Conn, 0, n)
	for i := 0; i < n; i++ {
		c, err := s.session(ctx)
		if err != nil {
			for _, o := range out {
				o.Close()
			}
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

const startSnapshot = "START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY"

// startAll opens the snapshot transaction in every session at the same time
// (concurrently, so the lock-free method sees as few commits in between as
// possible and the global lock is held as briefly as possible).
func startAll(ctx context.Context, sessions []*sql.Conn, after func(i int, c *sql.Conn) error) error {
	errs := make([]error, len(sessions))
	var wg sync.WaitGroup
	for i, c := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := c.ExecContext(ctx, startSnapshot); err != nil {
				errs[i] = fmt.Errorf("session %d: %s: %w", i, startSnapshot, err)
				return
			}
			if after != nil {
				errs[i] = after(i, c)
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

func rollbackAll(ctx context.Context, sessions []*sql.Conn) {
	for _, c := range sessions {
		_, _ = c.ExecContext(ctx, "ROLLBACK")
	}
}

// Reading binlog_snapshot_% more than once: MariaDB copies a session's
// snapshot position into ONE process-wide buffer (the static
// binlog_snapshot_file / binlog_snapshot_position behind the status
// variables, filled by MYSQL_BIN_LOG::set_status_variables for every SHOW
// STATUS of every session) and reads it back afterwards without a lock, so a
// concurrent SHOW STATUS anywhere on the server (a monitoring agent, another
// of our sessions) can replace the value between the two: the reading is then
// another session's position. TestSnapshotStatusIsShared shows it on 10.11
// (about 2 % of readings under three polling sessions). A position read
// positionAgree times in a row, with a pause between readings, is taken; a
// replaced reading would have to repeat with the same value every time.
const (
	positionAgree    = 5
	positionMaxReads = 60
	positionPause    = 2 * time.Millisecond
)

// The lock-free method's two ways to fail that let auto fall back to one
// session.
var (
	errNoAgreement = errors.New("the sessions' snapshots never had the same binlog position")
	errNoBinlog    = errors.New("--snapshot-method lock-free needs the binary log (log_bin=ON) to compare the sessions' snapshots")
)

// lockFree implements MethodLockFree. The positions are read one session
// after the other, never two of ours at once (MariaDB's shared status
// buffer, see snapshotPosition). Every session's snapshot matches its own
// position (MariaDB takes the InnoDB read view and the binlog position
// together under LOCK_commit_ordered), so equal positions mean equal
// snapshots. It returns errNoAgreement (with no transaction left open) when
// the positions differed every time, and errNoBinlog for a source without
// binlog, where equal empty positions prove nothing.
func (s *Source) lockFree(ctx context.Context, p *Point, o PointOptions) error {
	if err := checkPositionedSnapshots(ctx, p.Sessions[0], MethodLockFree); err != nil {
		return err
	}
	positions := make([]binlogpos.Position, len(p.Sessions))
	for attempt := 1; attempt <= o.LockFreeAttempts; attempt++ {
		if err := startAll(ctx, p.Sessions, nil); err != nil {
			rollbackAll(ctx, p.Sessions)
			return fmt.Errorf("consistent point: %w", err)
		}
		for i, c := range p.Sessions {
			pos, err := snapshotPosition(ctx, c)
			if err != nil {
				rollbackAll(ctx, p.Sessions)
				return fmt.Errorf("consistent point: session %d: %w", i, err)
			}
			positions[i] = pos
		}
		if positions[0].File == "" {
			rollbackAll(ctx, p.Sessions)
			return exitcode.ConfigError(fmt.Errorf("%w; use global-read-lock or single-session", errNoBinlog))
		}
		if allEqual(positions) {
			pos, err := withMariaDBGTID(ctx, p.Sessions[0], positions[0])
			if err != nil {
				rollbackAll(ctx, p.Sessions)
				return err
			}
			p.Position, p.Method = pos, MethodLockFree
			return nil
		}
		o.Log.Debug("lock-free consistent point: sessions disagree, retrying", "attempt", attempt)
		rollbackAll(ctx, p.Sessions)
	}
	return fmt.Errorf("consistent point: %w in %d attempts (the source commits continuously); "+
		"use --snapshot-method global-read-lock (needs RELOAD) or single-session", errNoAgreement, o.LockFreeAttempts)
}

func allEqual(ps []binlogpos.Position) bool {
	for _, q := range ps[1:] {
		if q != ps[0] {
			return false
		}
	}
	return true
}

// snapshotPosition reads MariaDB's position of the session's snapshot (see
// above for why it reads more than once).
func snapshotPosition(ctx context.Context, c *sql.Conn) (binlogpos.Position, error) {
	var last binlogpos.Position
	same := 0
	for read := 1; read <= positionMaxReads; read++ {
		pos, err := readSnapshotStatus(ctx, c)
		if err != nil {
			return binlogpos.Position{}, err
		}
		if read > 1 && pos == last {
			same++
		} else {
			last, same = pos, 1
		}
		if same == positionAgree {
			return last, nil
		}
		if err := sleepCtx(ctx, positionPause); err != nil {
			return binlogpos.Position{}, err
		}
	}
	return binlogpos.Position{}, fmt.Errorf("binlog_snapshot_position: no %d equal readings in %d (MariaDB shares the status "+
		"buffer between sessions and something on the source runs SHOW STATUS continuously); retry, or grant RELOAD "+
		"for --snapshot-method global-read-lock", positionAgree, positionMaxReads)
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// readSnapshotStatus reads binlog_snapshot_file and _position once.
func readSnapshotStatus(ctx context.Context, c *sql.Conn) (binlogpos.Position, error) {
	rows, err := c.QueryContext(ctx, "SHOW STATUS LIKE 'binlog_snapshot_%'")
	if err != nil {
		return binlogpos.Position{}, fmt.Errorf("read binlog_snapshot status: %w", err)
	}
	defer rows.Close()
	var pos binlogpos.Position
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return binlogpos.Position{}, err
		}
		switch strings.ToLower(k) {
		case "binlog_snapshot_file":
			pos.File = v
		case "binlog_snapshot_position":
			var n uint64
			if _, err := fmt.Sscan(v, &n); err != nil {
				return binlogpos.Position{}, fmt.Errorf("binlog_snapshot_position %q: %w", v, err)
			}
			pos.Pos = uint32(n)
		}
	}
	return pos, rows.Err()
}

// withMariaDBGTID adds the GTID position that corresponds to file:pos.
func withMariaDBGTID(ctx context.Context, c *sql.Conn, pos binlogpos.Position) (binlogpos.Position, error) {
	pos.Flavor = "mariadb"
	var g sql.NullString
	if err := c.QueryRowContext(ctx, "SELECT BINLOG_GTID_POS(?, ?)", pos.File, pos.Pos).Scan(&g); err != nil {
		return pos, fmt.Errorf("consistent point: BINLOG_GTID_POS(%s): %w", pos, err)
	}
	pos.GTIDSet = g.String
	return pos, nil
}

// single implements MethodSingle: the first session alone.
func (s *Source) single(ctx context.Context, p *Point) error {
	for _, c := range p.Sessions[1:] {
		c.Close()
	}
	p.Sessions = p.Sessions[:1]
	c := p.Sessions[0]
	if err := checkPositionedSnapshots(ctx, c, MethodSingle); err != nil {
		return err
	}
	if _, err := c.ExecContext(ctx, startSnapshot); err != nil {
		return fmt.Errorf("consistent point: %s: %w", startSnapshot, err)
	}
	pos, err := snapshotPosition(ctx, c)
	if err != nil {
		return fmt.Errorf("consistent point: %w", err)
	}
	if pos.File != "" {
		if pos, err = withMariaDBGTID(ctx, c, pos); err != nil {
			return err
		}
	}
	p.Position, p.Method = pos, MethodSingle
	p.Warnings = append(p.Warnings, "the snapshot read with ONE session (no global read lock, and the lock-free method was not "+
		"possible or not chosen): reads are not parallel; "+
		"GRANT RELOAD ON *.* to the sluice user for a parallel snapshot")
	if pos.File == "" {
		p.Warnings = append(p.Warnings, "the source has no binary log (log_bin=OFF): no position was recorded, replicate cannot continue from this snapshot")
	}
	return nil
}
