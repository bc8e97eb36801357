package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// errRetryCutover is a cut-over attempt given up with the table untouched.
var errRetryCutover = errors.New("cut-over attempt given up")

// cutover swaps the copy in. The table and the copy are write-locked (the
// wait for the lock bounded by --cutover-lock-timeout: writes queue behind
// it at most that long), a marker written then tells when the binlog reader
// has every change of the table, the key set is drained on the locking
// session, and the tables are renamed in one RENAME TABLE:
//   - MySQL 8.0.13+: RENAME under LOCK TABLES, on the locking session;
//   - MariaDB, which refuses RENAME under LOCK TABLES: a second session
//     issues the RENAME, which waits for the lock; once it is seen waiting
//     the lock is released and the RENAME's exclusive metadata lock request
//     is granted before the writers' shared ones.
//
// Clients waiting on the table's name never see it missing: they wait on
// the name's metadata lock and then open the new table. It returns how
// long writes were blocked by the attempt that swapped (every attempt is
// in r.locks).
func (r *runner) cutover(ctx context.Context) (time.Duration, error) {
	backoff := 200 * time.Millisecond
	for attempt := 1; ; attempt++ {
		err := r.tryCutover(ctx)
		if err == nil {
			return r.locks[len(r.locks)-1].Blocked(), nil
		}
		code, _ := mysqlErr(err)
		if (code != errLockWaitTimeout && !errors.Is(err, errRetryCutover)) || attempt >= r.o.CutoverRetries {
			return 0, err
		}
		r.log.Warn("cut-over: retrying", "attempt", attempt, "reason", err, "in", backoff)
		// Catch up again before the next try.
		stop := r.startAppliers(ctx, false)
		if err := sleep(ctx, backoff); err != nil {
			stop()
			return 0, err
		}
		if err := r.readyToSwap(ctx); err != nil {
			stop()
			return 0, err
		}
		if err := stop(); err != nil {
			return 0, err
		}
		backoff = min(2*backoff, 5*time.Second)
	}
}

// stepSwap and stepChecksum name the run's table locks (Lock.Step).
const (
	stepSwap     = "swap"
	stepChecksum = "checksum point"
	stepInstant  = "instant alter"
)

// tryCutover is one attempt at the swap; its lock, granted or not, is
// recorded once released: writers queue behind a waiting WRITE lock, so a
// wait given up blocked them too.
func (r *runner) tryCutover(ctx context.Context) error {
	table, shadow, old := r.quoted(r.id.Name), r.quoted(r.shadow()), r.quoted(r.old())
	lock, err := r.swapSession(ctx)
	if err != nil {
		return err
	}
	defer lock.Close()
	// The constraints as they are now: one added or dropped during the
	// run is moved as it is (the binlog reader passes such ALTERs over).
	if bad, err := r.foreignKeyProblems(ctx); err != nil || len(bad) > 0 {
		if err != nil {
			return err
		}
		return refuse("the foreign keys of %s changed during the run: %s", r.id, strings.Join(bad, "; "))
	}
	// The new definition, for the revert window's state (read before the
	// lock: the copy's definition does not change).
	var newPrint string
	if r.o.RevertWindow > 0 && !r.reverse {
		if newPrint, err = fingerprint(ctx, r.db, r.id.Database, r.shadow()); err != nil {
			return err
		}
	}
	lockStmt := "LOCK TABLES " + table + " WRITE, " + shadow + " WRITE" + r.fks.lockList(r.id)
	lt := startLock(stepSwap, "LOCK TABLES "+r.id.Name+" WRITE, "+r.shadow()+" WRITE"+r.fks.lockNames(r.id), true)
	// Deferred first, so run last: after the unlock, and after the
	// MariaDB RENAME that writers wait on once the lock is released.
	defer func() { r.recordLock(lt.done()) }()
	if _, err := lock.ExecContext(ctx, lockStmt); err != nil {
		return err
	}
	lt.grant()
	unlocked := false
	unlock := func() {
		if !unlocked {
			unlocked = true
			lock.ExecContext(context.WithoutCancel(ctx), "UNLOCK TABLES") //nolint:errcheck
		}
	}
	defer unlock()
	if err := r.catchUpUnderLock(ctx, lock); err != nil {
		return err
	}
	if err := r.openWindow(ctx, newPrint); err != nil {
		return err
	}
	// Sealed: from here to the RENAME no change of the table may reach the
	// binlog (the lock holds them). Counts of an earlier, failed attempt
	// are of ordinary writes made while it was unlocked again, which the
	// key set has carried since: they are not slips.
	r.tr.slipped.Store(0)
	r.tr.sealed.Store(true)
	rename := "RENAME TABLE " + table + " TO " + old + ", " + shadow + " TO " + table
	// A failed RENAME unseals BEFORE the lock is released: the binlog
	// reader runs on its own, and a writer let in by the unlock must never
	// be counted as a change that slipped past the drain.
	moveStart := time.Now()
	fkUndo, err := r.moveForeignKeys(ctx, lock)
	if len(fkUndo) > 0 {
		r.log.Info("swap: foreign keys moved to the new table under the lock", "statements", len(fkUndo),
			"took", time.Since(moveStart).Round(time.Millisecond))
	}
	unsealThenUnlock := func() {
		r.undoForeignKeys(ctx, lock, fkUndo)
		r.tr.sealed.Store(false)
		unlock()
	}
	if err != nil {
		unsealThenUnlock()
		return err
	}
	if r.info.Flavor != binlog.FlavorMariaDB {
		_, err := lock.ExecContext(ctx, rename)
		if code, _ := mysqlErr(err); code == errCantLock {
			r.info.Flavor = binlog.FlavorMariaDB // a server refusing RENAME under LOCK TABLES
		} else {
			if err != nil {
				unsealThenUnlock()
				return fmt.Errorf("alter: %s: %w", rename, err)
			}
			unlock()
			return nil
		}
	}
	return r.renameWhileLocked(ctx, rename, unlock, unsealThenUnlock, fkUndo)
}

// swapSession is the connection that takes the swap's lock, its wait
// bounded by --cutover-lock-timeout.
func (r *runner) swapSession(ctx context.Context) (*sql.Conn, error) {
	lock, err := r.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	if _, err := lock.ExecContext(ctx, fmt.Sprintf("SET SESSION lock_wait_timeout = %d", lockSeconds(r.o.CutoverLockTimeout))); err != nil {
		lock.Close()
		return nil, err
	}
	if r.o.beforeLock != nil {
		r.o.beforeLock(stepSwap)
	}
	return lock, nil
}

// renameWhileLocked is the MariaDB swap: RENAME from a second session, seen
// waiting for the metadata lock before the lock is released.
//
// unlock releases the lock once the RENAME is queued; giveUp unseals and
// releases it when the RENAME failed or never queued.
//
// fkUndo puts the foreign keys back when the RENAME fails after the unlock.
func (r *runner) renameWhileLocked(ctx context.Context, rename string, unlock, giveUp func(), fkUndo []string) error {
	rc, err := r.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer rc.Close()
	var connID int64
	if err := rc.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&connID); err != nil {
		return err
	}
	if _, err := rc.ExecContext(ctx, "SET SESSION lock_wait_timeout = 60"); err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() {
		_, err := rc.ExecContext(context.WithoutCancel(ctx), rename)
		done <- err
	}()
	waiting := false
	deadline := time.Now().Add(max(r.o.CutoverLockTimeout, time.Second))
	for !waiting && time.Now().Before(deadline) {
		select {
		case err := <-done:
			giveUp()
			return fmt.Errorf("alter: %s: %w", rename, err)
		default:
		}
		var state sql.NullString
		err := r.db.QueryRowContext(ctx, "SELECT STATE FROM information_schema.PROCESSLIST WHERE ID = ?", connID).Scan(&state)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return err
		}
		waiting = state.String == "Waiting for table metadata lock"
		if !waiting {
			time.Sleep(2 * time.Millisecond)
		}
	}
	if !waiting {
		// Never unlock before the RENAME queues: writers would slip in.
		r.db.ExecContext(context.WithoutCancel(ctx), fmt.Sprintf("KILL QUERY %d", connID)) //nolint:errcheck
		if err := <-done; err == nil {
			// The RENAME ran after all (the KILL came too late): swapped.
			unlock()
			return nil
		}
		giveUp()
		return fmt.Errorf("%w: the RENAME was not seen waiting for the lock", errRetryCutover)
	}
	unlock()
	if err := <-done; err != nil {
		// Not swapped: the writers now let in are ordinary writes of the
		// table (the key set carries them); the next attempt seals anew.
		// The constraints go back first, while the binlog reader still
		// takes their ALTERs for the swap's own (tracker.translator).
		r.undoForeignKeys(ctx, nil, fkUndo)
		r.tr.sealed.Store(false)
		return fmt.Errorf("alter: %s: %w", rename, err)
	}
	return nil
}

// carryAutoIncrement gives the copy the table's next AUTO_INCREMENT value
// (the copy's own is the highest copied id + 1: ids of rows deleted at the
// top would be handed out again). On the locking session, under the lock.
func (r *runner) carryAutoIncrement(ctx context.Context, lock *sql.Conn) {
	var name, ddl string
	if err := lock.QueryRowContext(ctx, "SHOW CREATE TABLE "+r.quoted(r.id.Name)).Scan(&name, &ddl); err != nil {
		r.log.Warn("cut-over: read AUTO_INCREMENT", "err", err)
		return
	}
	m := autoIncRE.FindStringSubmatch(ddl)
	if m == nil {
		return
	}
	if _, err := lock.ExecContext(ctx, "ALTER TABLE "+r.quoted(r.shadow())+" AUTO_INCREMENT = "+m[1]); err != nil {
		r.log.Warn("cut-over: carry AUTO_INCREMENT to the copy", "value", m[1], "err", err)
	}
}

var autoIncRE = regexp.MustCompile(`\) ENGINE=\S+ AUTO_INCREMENT=(\d+)`)

// catchUpUnderLock, with the table locked: the binlog reader reaches a
// marker written now, the changed keys are drained into the copy, the
// AUTO_INCREMENT is carried, and the position of the swap is noted.
func (r *runner) catchUpUnderLock(ctx context.Context, lock *sql.Conn) error {
	start := time.Now()
	id, err := writeMarker(ctx, r.db, r.id.Database, r.id.Name)
	if err != nil {
		return err
	}
	if err := r.tr.waitMarker(ctx, id, max(r.o.CutoverLockTimeout, time.Second)); err != nil {
		if r.tr.failed() != nil {
			return err
		}
		return fmt.Errorf("%w: %v", errRetryCutover, err)
	}
	read := time.Now()
	keys := r.keys.size()
	if err := r.drain(ctx, lock); err != nil {
		return err
	}
	drained := time.Now()
	r.carryAutoIncrement(ctx, lock)
	carried := time.Now()
	// Nothing writes the table until the RENAME: the position now is the
	// table's position at the swap (other tables' writes may follow it).
	// An earlier attempt's is stale (writes of the old layout follow it).
	r.swapStart = binlogpos.Position{}
	if pos, err := binlog.SourceOnPool(r.db).MasterStatus(ctx, r.info); err == nil {
		r.swapPos, r.swapStart = pos.Key(), pos
		r.log.Info("binlog position at the swap", "position", pos.String())
	}
	r.log.Info("swap: under the table lock", "reader_reached_marker", read.Sub(start).Round(time.Millisecond),
		"drained_keys", keys, "drain", drained.Sub(read).Round(time.Millisecond),
		"auto_increment", carried.Sub(drained).Round(time.Millisecond), "position", time.Since(carried).Round(time.Millisecond))
	return nil
}

// openWindow, under the swap's lock and before the RENAME, records the
// revert window (--revert-window) with the position at the swap: a run
// killed after the RENAME resumes the window from there. A failed attempt
// leaves it for the next one to overwrite; a run that never swaps leaves a
// window whose old table does not exist, which nothing resumes.
func (r *runner) openWindow(ctx context.Context, newPrint string) error {
	if r.o.RevertWindow <= 0 || r.reverse {
		return nil
	}
	if r.swapStart.IsZero() {
		return fmt.Errorf("%w: the binlog position at the swap is unknown (the revert window reads from it)", errRetryCutover)
	}
	return saveWindow(ctx, r.db, r.id.Database, r.id.Name, &window{Alter: r.o.Alter, OldTable: r.old(), Pos: r.swapStart.Encode(),
		EndsAt: time.Now().Add(r.o.RevertWindow), Fingerprint: newPrint})
}
