package alter

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// steadyWriter updates rows of t at a fixed rate on one session, as an
// application would, and records its slowest write: how long it was
// blocked at most.
type steadyWriter struct {
	n       atomic.Int64 // row changes made
	longest atomic.Int64 // the slowest write, ns
	errs    atomic.Int64
	first   atomic.Value
	stop    chan struct{}
	done    chan struct{}
	start   time.Time
}

func startSteadyWriter(t *testing.T, db *sql.DB, perSecond int, rows int64) *steadyWriter {
	t.Helper()
	w := &steadyWriter{stop: make(chan struct{}), done: make(chan struct{}), start: time.Now()}
	conn, err := db.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		defer conn.Close()
		tick := time.NewTicker(time.Second / time.Duration(perSecond))
		defer tick.Stop()
		for i := int64(0); ; i++ {
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
			t0 := time.Now()
			if _, err := conn.ExecContext(context.Background(), "UPDATE t SET a = a + 1 WHERE id = ?", 1+i%rows); err != nil {
				w.errs.Add(1)
				w.first.CompareAndSwap(nil, err.Error())
				continue
			}
			if d := int64(time.Since(t0)); d > w.longest.Load() {
				w.longest.Store(d)
			}
			w.n.Add(1)
		}
	}()
	return w
}

// writtenTable is a new database's seeded table t that a steadyWriter
// writes 200 times a second.
func writtenTable(t *testing.T, env *testenv.Env, prefix, create string) (string, *sql.DB, *steadyWriter) {
	t.Helper()
	name := env.NewDatabase(t, prefix)
	db := env.MySQL(t, name)
	seed(t, db, create)
	return name, db, startSteadyWriter(t, db, 200, 1000)
}

// finish stops the writer and returns the rate it wrote at.
func (w *steadyWriter) finish(t *testing.T) float64 {
	t.Helper()
	close(w.stop)
	<-w.done
	if n := w.errs.Load(); n > 0 {
		t.Errorf("%d write errors, first: %v", n, w.first.Load())
	}
	return float64(w.n.Load()) / time.Since(w.start).Seconds()
}

// TestAlterPacingBaselineObserved: the pacer's baseline is the rate the
// application writes at, in every run, however late the binlog reader
// delivers (it was 0 in 3 of 6 runs under sysbench: measured before the
// reader delivered anything), and 0 for a table nobody writes, which the
// run then copies unpaced.
func TestAlterPacingBaselineObserved(t *testing.T) {
	const perSecond = 200
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		// The binlog reader starting late, as on a saturated server: after
		// the window a count of what it delivered would have measured.
		for _, delay := range []time.Duration{0, 2500 * time.Millisecond, 4 * time.Second} {
			t.Run(fmt.Sprintf("writing_reader_late_%s", delay), func(t *testing.T) {
				name := env.NewDatabase(t, "alter_baseline")
				db := env.MySQL(t, name)
				seed(t, db, baseTable)
				w := startSteadyWriter(t, db, perSecond, seedRows)
				time.Sleep(300 * time.Millisecond) // the application is writing when the alter starts
				o := alterOptions(t, env, name, "ADD COLUMN d INT")
				o.KeepWriteRate = 0.9
				o.readerDelay = delay
				rep, err := Run(context.Background(), o)
				rate := w.finish(t)
				if err != nil {
					t.Fatalf("alter: %v", err)
				}
				t.Logf("baseline %.0f changes/s (measured %v), the writer's rate %.0f/s; %s", rep.WriteRate, rep.WriteRateMeasured, rate, rep.PacingSummary())
				if !rep.WriteRateMeasured || rep.WriteRate < rate/2 || rep.WriteRate > 2*rate {
					t.Errorf("baseline %.0f changes/s (measured %v), want about the writer's %.0f/s", rep.WriteRate, rep.WriteRateMeasured, rate)
				}
				if !strings.Contains(rep.PacingSummary(), fmt.Sprintf("%.0f row changes/s", rep.WriteRate)) {
					t.Errorf("summary %q does not say the baseline", rep.PacingSummary())
				}
			})
		}
		t.Run("idle", func(t *testing.T) {
			name := env.NewDatabase(t, "alter_baseline_idle")
			db := env.MySQL(t, name)
			seed(t, db, baseTable)
			o := alterOptions(t, env, name, "ADD COLUMN d INT")
			o.KeepWriteRate = 0.9
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			rep, err := Run(ctx, o)
			if err != nil {
				t.Fatalf("alter of an idle table: %v", err)
			}
			t.Logf("%s", rep.PacingSummary())
			if !rep.WriteRateMeasured || rep.WriteRate != 0 {
				t.Errorf("idle table: baseline %.1f changes/s (measured %v), want 0 measured", rep.WriteRate, rep.WriteRateMeasured)
			}
			if rep.Rows != seedRows {
				t.Errorf("%d rows copied, want %d", rep.Rows, seedRows)
			}
		})
	})
}

// TestAlterReportsEveryLock: the report names every lock the application
// waited on, each with its wait and hold, and what they add up to covers
// what a writing client felt. An open transaction makes each lock wait
// 300 ms: a waiting READ lock (the checksum point) lets the client's
// writes pass, a waiting WRITE lock (the swap) holds them back.
func TestAlterReportsEveryLock(t *testing.T) {
	const blockFor = 300 * time.Millisecond
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name, db, w := writtenTable(t, env, "alter_locks", baseTable)
		o := alterOptions(t, env, name, "ADD COLUMN d INT")
		blocked := map[string]bool{}
		blockers := make(chan error, 4)
		o.beforeLock = func(step string) {
			if blocked[step] {
				return
			}
			blocked[step] = true
			// A transaction on a row the writer does not touch, open while
			// the lock is asked for.
			tx, err := db.Begin()
			if err == nil {
				_, err = tx.Exec("UPDATE t SET c = 7 WHERE id = ?", seedRows)
			}
			if err != nil {
				blockers <- err
				return
			}
			// It commits blockFor after the lock is seen waiting, not after
			// it was asked for: on a busy box the request may come late.
			go func() { waitForLockWait(db); time.Sleep(blockFor); blockers <- tx.Commit() }()
		}
		rep, err := Run(context.Background(), o)
		time.Sleep(200 * time.Millisecond)
		w.finish(t)
		if err != nil {
			t.Fatalf("alter: %v", err)
		}
		for range blocked {
			if err := <-blockers; err != nil {
				t.Fatalf("blocking transaction: %v", err)
			}
		}
		longest := time.Duration(w.longest.Load())
		t.Logf("the client's longest write %s; %s", longest.Round(time.Millisecond), rep.LockSummary())
		var checksum, swap *Lock
		for i, l := range rep.Locks {
			if l.Granted && l.Held <= 0 {
				t.Errorf("lock %s granted with no hold", l)
			}
			switch l.Step {
			case stepChecksum:
				checksum = &rep.Locks[i]
			case stepSwap:
				swap = &rep.Locks[i]
			}
		}
		if checksum == nil || swap == nil || !checksum.Granted || !swap.Granted {
			t.Fatalf("locks %+v: want the checksum point's and the swap's, granted", rep.Locks)
		}
		if checksum.Waited < blockFor*4/5 || checksum.Blocked() != checksum.Held {
			t.Errorf("checksum point %s: want a wait of about %s that did not block writes", checksum, blockFor)
		}
		if swap.Waited < blockFor*4/5 || swap.Blocked() != swap.Waited+swap.Held || rep.CutoverLock < swap.Blocked() {
			t.Errorf("swap %s (report's CutoverLock %s): want a wait of about %s that blocked writes", swap, rep.CutoverLock, blockFor)
		}
		const tolerance = 50 * time.Millisecond
		if swap.Blocked() < longest-tolerance || rep.WritesBlocked() < longest-tolerance {
			t.Errorf("the client was blocked %s, the report says the swap blocked writes %s, %s in all", longest, swap.Blocked(), rep.WritesBlocked())
		}
		for _, s := range []string{"checksum point LOCK TABLES t READ", "swap LOCK TABLES t WRITE, t_new WRITE", "writes blocked"} {
			if !strings.Contains(rep.LockSummary(), s) {
				t.Errorf("summary %q lacks %q", rep.LockSummary(), s)
			}
		}
	})
}

// waitForLockWait returns once a LOCK TABLES statement waits for a metadata
// lock on the server (or after 10 s, so a lock that never waits fails the
// test's checks instead of hanging it).
func waitForLockWait(db *sql.DB) {
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		var n int
		err := db.QueryRow("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE STATE LIKE 'Waiting for table metadata lock%' AND INFO LIKE 'LOCK TABLES%'").Scan(&n)
		if err == nil && n > 0 {
			return
		}
	}
}

// TestAlterLocksAfterTheReaderCaughtUp: the checksum point and the swap
// lock the table once the binlog reader has read what came before, so
// the writers do not wait under the lock while it reads a backlog. Here
// the reader starts 3 s late, as on a saturated server, and the copy
// (a composite key: no per-chunk markers) is done before it has read
// anything: the key set looks empty while the changes are still unread.
func TestAlterLocksAfterTheReaderCaughtUp(t *testing.T) {
	const create = "CREATE TABLE t (id BIGINT NOT NULL, s VARCHAR(10) NOT NULL DEFAULT 'x', a INT NOT NULL DEFAULT 0, " +
		"b VARCHAR(100), c INT NULL, PRIMARY KEY (id, s)) ENGINE=InnoDB"
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name, _, w := writtenTable(t, env, "alter_lock_reader", create)
		o := alterOptions(t, env, name, "ADD INDEX ia (a)")
		o.readerDelay = 3 * time.Second
		rep, err := Run(context.Background(), o)
		w.finish(t)
		if err != nil {
			t.Fatalf("alter: %v", err)
		}
		longest := time.Duration(w.longest.Load())
		t.Logf("the client's longest write %s; %s", longest.Round(time.Millisecond), rep.LockSummary())
		if len(rep.Locks) < 2 {
			t.Fatalf("locks %+v: want the checksum point's and the swap's", rep.Locks)
		}
		for _, l := range rep.Locks {
			if l.Held > time.Second {
				t.Errorf("%s: held over a second", l)
			}
		}
		if longest > 1500*time.Millisecond {
			t.Errorf("a write was blocked %s", longest)
		}
	})
}
