package binlog

import (
	"fmt"
	"strconv"
	"testing"
	"time"
)

// TestStreamReplacesASilentConnection freezes the network under the binlog
// connection: nothing arrives any more, not even heartbeats, but the
// connection stays open. The watchdog must close it after deadAfter, the
// stream must reconnect, and the rows written meanwhile must arrive once.
func TestStreamReplacesASilentConnection(t *testing.T) {
	f := newFixture(t, "bl_silent", `CREATE TABLE t (id INT PRIMARY KEY)`)
	proxy := newCutProxy(t, f.src.Addr())
	cfg := f.config(f.position(), ignoreOthers(f.db))
	cfg.Source.Port = proxy.port()
	cfg.Heartbeat = 200 * time.Millisecond
	cfg.deadAfter = time.Second
	r := startStream(t, cfg)

	seen := map[int]int{}
	receive := func(want int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for len(seen) < want {
			txn := r.next(time.Until(deadline))
			if txn == nil {
				t.Fatalf("saw %d of %d rows: %v", len(seen), want, r.stop())
			}
			for _, c := range txn.Changes {
				id, _ := strconv.Atoi(fmt.Sprint(c.After[0]))
				if seen[id]++; seen[id] > 1 {
					t.Fatalf("row %d delivered twice", id)
				}
			}
		}
	}
	for i := 1; i <= 5; i++ {
		f.exec(fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
	}
	receive(5)

	proxy.freeze()
	frozenAt := time.Now()
	for i := 6; i <= 10; i++ {
		f.exec(fmt.Sprintf("INSERT INTO t VALUES (%d)", i))
	}
	receive(10)
	took := time.Since(frozenAt)
	if n := r.stream.Stats().Reconnect.Load(); n != 1 {
		t.Errorf("%d reconnects, want 1", n)
	}
	if took < cfg.deadAfter {
		t.Errorf("rows written behind the frozen connection arrived after %v, before it could be taken for dead (%v)", took, cfg.deadAfter)
	}
	// Detection, the 1 s reconnect backoff and MariaDB finding the GTID in a
	// large binlog file (seconds on a busy machine) add up.
	if took > cfg.deadAfter+20*time.Second {
		t.Errorf("the silent connection was replaced only after %v (deadAfter %v)", took, cfg.deadAfter)
	}
}
