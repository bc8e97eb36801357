package consistent

import (
	"context"
	"strings"
	"testing"
	"time"

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
