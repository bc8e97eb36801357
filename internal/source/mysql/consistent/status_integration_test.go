package consistent

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// pollStatus runs SHOW STATUS in n sessions without a snapshot until the
// returned stop is called, like a monitoring agent that polls the server.
func pollStatus(t *testing.T, src *Source, n int) (stop func()) {
	t.Helper()
	ctx := context.Background()
	var done atomic.Bool
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		c, err := src.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer c.Close()
			for !done.Load() {
				rows, err := c.QueryContext(ctx, "SHOW STATUS LIKE 'binlog_snapshot_%'")
				if err != nil {
					t.Error(err)
					return
				}
				for rows.Next() {
				}
				rows.Close()
			}
		}()
	}
	return func() { done.Store(true); wg.Wait() }
}

// TestSnapshotStatusIsShared shows why snapshotPosition reads more than
// once: while other sessions run SHOW STATUS, a session holding a consistent
// snapshot sometimes reads THEIR binlog_snapshot_position (MariaDB fills one
// process-wide buffer per SHOW STATUS and reads it back without a lock), here
// the later position of the commits made after the snapshot. snapshotPosition
// must still return the session's own position every time.
func TestSnapshotStatusIsShared(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_status")
	my := env.MySQL(t, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	src := openSource(t, env, db, 6)
	c, err := src.session(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, startSnapshot); err != nil {
		t.Fatal(err)
	}
	own, err := readSnapshotStatus(ctx, c) // nothing polls yet: this reading is the session's own
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		if _, err := my.ExecContext(ctx, "INSERT INTO t (v) VALUES ('x')"); err != nil {
			t.Fatal(err)
		}
	}
	stop := pollStatus(t, src, 3)
	defer stop()

	foreign, reads := 0, 0
	for ; reads < 20000 && foreign < 5; reads++ {
		p, err := readSnapshotStatus(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if p != own {
			foreign++
		}
	}
	if foreign == 0 {
		t.Errorf("%d single readings under 3 polling sessions all returned the session's own position %s: "+
			"MariaDB no longer shares the status buffer, snapshotPosition's repeated reading may be unnecessary", reads, own)
	}
	t.Logf("single readings: %d of %d were another session's position", foreign, reads)
	for i := 0; i < 100; i++ {
		p, err := snapshotPosition(ctx, c)
		if err != nil {
			t.Fatal(err)
		}
		if p != own {
			t.Fatalf("snapshotPosition call %d = %s, the snapshot's own position is %s", i, p, own)
		}
	}
}
