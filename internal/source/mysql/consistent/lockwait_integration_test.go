package consistent

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestGlobalLockAttempts runs on a throwaway MariaDB (a held LOCK TABLES on
// the shared sandbox would stall every other test's global read lock): the
// global read lock gives up on a table lock after LockAttempts timed-out
// waits, goes through when the lock is released between two attempts, and
// names a long-running write that it waited for.
func TestGlobalLockAttempts(t *testing.T) {
	admin := testenv.StartMariaDB(t)
	db := testenv.UniqueName("snap_lockwait")
	src, my := throwawayDB(t, admin, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 0)"); err != nil {
		t.Fatal(err)
	}
	holder, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	opts := PointOptions{Sessions: 2, Method: MethodGlobalLock, LockWaitTimeout: time.Second,
		LockAttempts: 2, LockRetryPause: 500 * time.Millisecond}

	t.Run("gives up", func(t *testing.T) {
		if _, err := holder.ExecContext(ctx, "LOCK TABLES t WRITE"); err != nil {
			t.Fatal(err)
		}
		defer holder.ExecContext(ctx, "UNLOCK TABLES") //nolint:errcheck
		start := time.Now()
		_, err := src.OpenPoint(ctx, opts)
		took := time.Since(start)
		if err == nil || !strings.Contains(err.Error(), "waited 1s for running writes or table locks 2 times and gave up") ||
			!strings.Contains(err.Error(), "--lock-attempts") {
			t.Fatalf("OpenPoint under a held LOCK TABLES: %v, want it to give up after 2 attempts naming --lock-attempts", err)
		}
		// Two waits of 1 s and one pause of 0.5 s.
		if took < 2500*time.Millisecond {
			t.Errorf("gave up after %v, want two 1 s waits and a 0.5 s pause", took)
		}
	})

	t.Run("goes through after a release", func(t *testing.T) {
		if _, err := holder.ExecContext(ctx, "LOCK TABLES t WRITE"); err != nil {
			t.Fatal(err)
		}
		go func() {
			time.Sleep(1200 * time.Millisecond)      // after the first attempt timed out
			holder.ExecContext(ctx, "UNLOCK TABLES") //nolint:errcheck
		}()
		p, err := src.OpenPoint(ctx, opts)
		if err != nil {
			t.Fatalf("OpenPoint with the table lock released during the pause: %v", err)
		}
		defer p.Close()
		if p.Method != MethodGlobalLock || p.Position.File == "" {
			t.Errorf("method %s, position %+v, want the global read lock and a binlog position", p.Method, p.Position)
		}
		// The writers were blocked only during the successful attempt.
		if p.LockHeld > time.Second {
			t.Errorf("lock held %v, want only the last attempt's (well under 1 s)", p.LockHeld)
		}
	})

	t.Run("names the long write", func(t *testing.T) {
		done := make(chan error, 1)
		go func() {
			_, err := holder.ExecContext(ctx, "UPDATE t SET v = SLEEP(6) WHERE id = 1")
			done <- err
		}()
		time.Sleep(1500 * time.Millisecond)
		o := opts
		o.LockAttempts = 1
		_, err := src.OpenPoint(ctx, o)
		if err == nil || !strings.Contains(err.Error(), "longest running: id ") || !strings.Contains(err.Error(), "SLEEP(6)") {
			t.Errorf("OpenPoint behind a running UPDATE: %v, want the message to name the UPDATE", err)
		}
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	})
}

// TestTableLockIsScoped (both flavors, on the shared servers: it locks
// only its own tables): while the table lock waits for an open transaction
// that wrote to a table in scope, writes to a table out of scope go
// through, and the message names that transaction; a long SELECT on a
// table in scope (which MySQL's global read lock would wait for) does not
// hold the table lock up.
func TestTableLockIsScoped(t *testing.T) {
	testenv.Flavors(t, testTableLockIsScoped)
}

func testTableLockIsScoped(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "snap_tlock")
	my := env.MySQL(t, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY, v INT)"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.ExecContext(ctx, "CREATE TABLE u (id INT AUTO_INCREMENT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	if _, err := my.ExecContext(ctx, "INSERT INTO t VALUES (1, 0), (2, 0)"); err != nil {
		t.Fatal(err)
	}
	src := openSource(t, env, db, 4)
	tables := []*schema.Table{{TableID: schema.TableID{Database: db, Name: "t"}}}
	opts := PointOptions{Sessions: 2, Method: MethodTableLock, Tables: tables, LockWaitTimeout: 2 * time.Second, LockAttempts: 1}

	holder, err := my.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	if _, err := holder.ExecContext(ctx, "BEGIN"); err != nil {
		t.Fatal(err)
	}
	if _, err := holder.ExecContext(ctx, "UPDATE t SET v = 1 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // the transaction is older than a second when the lock gives up
	done := make(chan error, 1)
	go func() {
		_, err := src.OpenPoint(ctx, opts)
		done <- err
	}()
	time.Sleep(500 * time.Millisecond) // the lock is waiting now
	start := time.Now()
	if _, err := my.ExecContext(ctx, "INSERT INTO u VALUES ()"); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > time.Second {
		t.Errorf("a write to a table out of scope took %v while the table lock waited", took)
	}
	err = <-done
	if err == nil || !strings.Contains(err.Error(), "LOCK TABLES … READ of the 1 tables in scope waited 2s") ||
		!strings.Contains(err.Error(), "transaction open") || !strings.Contains(err.Error(), "global-read-lock") {
		t.Fatalf("table lock behind an open write transaction: %v, want it to give up naming the transaction and the other method", err)
	}
	if _, err := holder.ExecContext(ctx, "COMMIT"); err != nil {
		t.Fatal(err)
	}

	// A long SELECT of a locked table runs on while the lock is taken.
	selectDone := make(chan error, 1)
	go func() {
		var n int
		selectDone <- my.QueryRowContext(ctx, "SELECT COUNT(*) FROM t WHERE SLEEP(1.5) = 0").Scan(&n)
	}()
	time.Sleep(300 * time.Millisecond)
	p, err := src.OpenPoint(ctx, opts)
	if err != nil {
		t.Fatalf("table lock beside a running SELECT: %v", err)
	}
	defer p.Close()
	if p.Method != MethodTableLock || p.LockHeld > time.Second {
		t.Errorf("method %s, lock held %v: want the table lock, taken without waiting for the SELECT", p.Method, p.LockHeld)
	}
	var v int
	if err := p.Sessions[1].QueryRowContext(ctx, "SELECT v FROM t WHERE id = 1").Scan(&v); err != nil || v != 1 {
		t.Errorf("the snapshot reads v = %d (%v), want the committed 1", v, err)
	}
	if err := <-selectDone; err != nil {
		t.Fatal(err)
	}
}
