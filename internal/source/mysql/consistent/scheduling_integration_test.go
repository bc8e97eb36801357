package consistent

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestPositionedSnapshotsRefusedWithoutThreadScheduling starts a MariaDB with
// binlog_optimize_thread_scheduling=OFF, where a snapshot can miss rows its
// binlog_snapshot_position covers (the soak of TestPointStressWithoutLock
// caught it): lock-free and single-session are configuration errors naming
// the fixes, auto without RELOAD too, and the global read lock still works.
func TestPositionedSnapshotsRefusedWithoutThreadScheduling(t *testing.T) {
	admin := testenv.StartMariaDB(t, "--skip-binlog-optimize-thread-scheduling")
	db := testenv.UniqueName("snap_sched")
	src, my := throwawayDB(t, admin, db)
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{MethodLockFree, MethodSingle} {
		_, err := src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: m})
		if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "binlog_optimize_thread_scheduling is OFF") ||
			!strings.Contains(err.Error(), "GRANT RELOAD") {
			t.Errorf("%s: %v (code %d), want a config error naming binlog_optimize_thread_scheduling and GRANT RELOAD", m, err, exitcode.Of(err))
		}
	}
	p, err := src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodAuto})
	if err != nil {
		t.Fatal(err)
	}
	if p.Method != MethodGlobalLock || len(p.Sessions) != 2 {
		t.Errorf("auto with RELOAD: method %s, %d sessions, want the global read lock with 2", p.Method, len(p.Sessions))
	}
	p.Close()

	if _, err := my.ExecContext(ctx, "CREATE USER 'noreload'@'%' IDENTIFIED BY 'pw'; GRANT SELECT, REPLICATION CLIENT ON *.* TO 'noreload'@'%'"); err != nil {
		t.Fatal(err)
	}
	m, err := config.ParseSource(admin)
	if err != nil {
		t.Fatal(err)
	}
	m = m.WithDatabase(db)
	m.User, m.Password = "noreload", "pw"
	limited, err := OpenSource(ctx, m, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer limited.Close()
	_, err = limited.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodAuto})
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "binlog_optimize_thread_scheduling") {
		t.Errorf("auto without RELOAD: %v (code %d), want a config error naming binlog_optimize_thread_scheduling", err, exitcode.Of(err))
	}
}
