package snapshot

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/testenv"
)

// gtidWriter commits single-row changes and records the GTID sequence
// number of each commit (@@last_gtid), so the test can tell for every
// change whether it is at or before a recorded position.
type gtidWriter struct {
	mu      sync.Mutex
	domain  string
	tag     string           // MySQL (no @@last_gtid): the writer's own GTID tag, numbered 1, 2, ... in commit order
	n       uint64           // MySQL: commits so far
	inserts map[int64]uint64 // id → seq of the insert
	updates map[int64][]upd  // id → updates in commit order
	count   int
}

type upd struct {
	seq uint64
	val int64
}

func (w *gtidWriter) commit(ctx context.Context, c *sql.Conn, q string, args ...any) (int64, uint64, error) {
	res, err := c.ExecContext(ctx, q, args...)
	if err != nil {
		return 0, 0, err
	}
	id, _ := res.LastInsertId()
	if w.tag != "" {
		w.mu.Lock()
		defer w.mu.Unlock()
		w.n++
		w.count++
		return id, w.n, nil
	}
	var g string
	if err := c.QueryRowContext(ctx, "SELECT @@last_gtid").Scan(&g); err != nil {
		return 0, 0, err
	}
	parts := strings.Split(g, "-")
	seq, _ := strconv.ParseUint(parts[2], 10, 64)
	w.mu.Lock()
	w.domain = parts[0]
	w.count++
	w.mu.Unlock()
	return id, seq, nil
}

// run inserts a row, then updates an older row, until stop is closed.
func (w *gtidWriter) run(ctx context.Context, t *testing.T, my *sql.DB, stop <-chan struct{}) {
	c, err := my.Conn(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	defer c.Close()
	if w.tag != "" {
		if _, err := c.ExecContext(ctx, "SET gtid_next = 'AUTOMATIC:"+w.tag+"'"); err != nil {
			t.Error(err)
			return
		}
	}
	for n := int64(1); ; n++ {
		select {
		case <-stop:
			return
		default:
		}
		id, seq, err := w.commit(ctx, c, "INSERT INTO t (val, pad) VALUES (0, REPEAT('w', 100))")
		if err != nil {
			t.Error(err)
			return
		}
		w.mu.Lock()
		w.inserts[id] = seq
		w.mu.Unlock()
		target := 1 + (n*7919)%2000 // a pre-existing row
		_, seq, err = w.commit(ctx, c, "UPDATE t SET val = ? WHERE id = ?", n, target)
		if err != nil {
			t.Error(err)
			return
		}
		w.mu.Lock()
		w.updates[target] = append(w.updates[target], upd{seq, n})
		w.mu.Unlock()
	}
}

func (w *gtidWriter) upTo(t *testing.T, gtidSet string) uint64 {
	if w.tag != "" {
		return tagUpTo(gtidSet, w.tag)
	}
	for _, part := range strings.Split(gtidSet, ",") {
		f := strings.Split(strings.TrimSpace(part), "-")
		if len(f) == 3 && f[0] == w.domain {
			n, _ := strconv.ParseUint(f[2], 10, 64)
			return n
		}
	}
	t.Fatalf("GTID set %q has no domain %s", gtidSet, w.domain)
	return 0
}

// TestSnapshotWithConcurrentWrites runs a snapshot while a writer inserts
// and updates rows, and checks that the target holds exactly the source as
// of the recorded position: every change committed at or before it, none
// after.
func TestSnapshotWithConcurrentWrites(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		for _, m := range []mysnap.Method{mysnap.MethodAuto, mysnap.MethodTableLock, mysnap.MethodGlobalLock, mysnap.MethodSingle} {
			if env.IsMySQL() && m == mysnap.MethodSingle {
				continue // MariaDB only (binlog_snapshot_position); its refusal is tested in mysql/snapshot
			}
			t.Run(string(m), func(t *testing.T) { testConcurrentWrites(t, env, m) })
		}
	})
}

func testConcurrentWrites(t *testing.T, env *testenv.Env, method mysnap.Method) {
	db := env.NewDatabase(t, "snap_writes")
	my := env.MySQL(t, db)
	ctx := context.Background()
	mustExec(t, my, env.SQL(`CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, val BIGINT NOT NULL, pad VARCHAR(200));
		INSERT INTO t (val, pad) SELECT 0, REPEAT('p', 150) FROM seq_1_to_2000`))
	w := &gtidWriter{inserts: map[int64]uint64{}, updates: map[int64][]upd{}}
	if env.IsMySQL() {
		w.tag = strings.ReplaceAll(testenv.UniqueName("w"), "_", "") // [a-z0-9], under 32 characters
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); w.run(ctx, t, my, stop) }()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		w.mu.Lock()
		n := w.count
		w.mu.Unlock()
		if n >= 40 || time.Now().After(deadline) {
			break
		}
	}
	opts := testOptions(t, env, db)
	opts.ChunkRows = 50
	opts.Method = method
	rep, err := Run(ctx, opts)
	time.Sleep(50 * time.Millisecond) // some writes certainly after the snapshot
	close(stop)
	wg.Wait()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("method %s, lock held %d ms, position %s, %d writes", rep.Method, rep.LockHeldMS, rep.Position, w.count)
	limit := w.upTo(t, rep.Position.GTIDSet)
	pg := env.PG(t)
	got := map[int64]int64{}
	rows, err := pg.Query(ctx, `SELECT id, val FROM "`+db+`".t`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var id, val int64
		rows.Scan(&id, &val)
		got[id] = val
	}
	rows.Close()
	before, after := 0, 0
	for id, seq := range w.inserts {
		_, in := got[id]
		switch {
		case seq <= limit && !in:
			t.Errorf("row %d inserted at GTID seq %d (before the position %d) is missing", id, seq, limit)
		case seq > limit && in:
			t.Errorf("row %d inserted at GTID seq %d (after the position %d) is in the target", id, seq, limit)
		}
		if seq <= limit {
			before++
		} else {
			after++
		}
	}
	if before == 0 || after == 0 {
		t.Fatalf("%d inserts before and %d after the position: the test needs both", before, after)
	}
	if len(got) != 2000+before {
		t.Errorf("target has %d rows, want %d", len(got), 2000+before)
	}
	for id, us := range w.updates {
		want := int64(0)
		for _, u := range us {
			if u.seq <= limit {
				want = u.val
			}
		}
		if got[id] != want {
			t.Errorf("row %d has val %d, want %d (its last update at or before the position)", id, got[id], want)
		}
	}
}

// tagUpTo returns the end of the interval of tag in a MySQL GTID set
// ("uuid:1-9:tag:1-5,..." → 5; 0 when the tag is absent): the writer's
// commits are numbered from 1 without gaps, so one interval holds them all.
func tagUpTo(set, tag string) uint64 {
	for _, part := range strings.Split(set, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		for i := 1; i+1 < len(f); i++ {
			if f[i] == tag {
				iv := f[i+1]
				if _, end, ok := strings.Cut(iv, "-"); ok {
					iv = end
				}
				n, _ := strconv.ParseUint(iv, 10, 64)
				return n
			}
		}
	}
	return 0
}
