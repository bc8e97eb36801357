package consistent

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// writer inserts rows one transaction at a time and records the GTID
// sequence number of each commit (@@last_gtid), so a test can tell which
// rows a snapshot at a given GTID position must contain. MySQL has no
// @@last_gtid: there the writer's transactions get tagged GTIDs of a tag of
// their own (gtid_next = AUTOMATIC:tag, MySQL 8.3+), numbered 1, 2, ... in
// commit order.
type writer struct {
	mu     sync.Mutex
	seq    map[int64]uint64 // id → GTID sequence number of its commit
	domain string
	tag    string // MySQL: the writer's GTID tag
	n      uint64 // MySQL: commits so far
}

// newWriter is a writer for env's flavor.
func newWriter(env *testenv.Env) *writer {
	w := &writer{seq: map[int64]uint64{}}
	if env.IsMySQL() {
		// A tag is [a-z_][a-z0-9_]{0,31}; unique per test run like a database name.
		w.tag = strings.ReplaceAll(testenv.UniqueName("w"), "_", "")
	}
	return w
}

func (w *writer) run(ctx context.Context, t *testing.T, db *sql.DB, pause time.Duration, stop <-chan struct{}) {
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Error(err)
		return
	}
	defer conn.Close()
	if w.tag != "" {
		if _, err := conn.ExecContext(ctx, "SET gtid_next = 'AUTOMATIC:"+w.tag+"'"); err != nil {
			t.Error(err)
			return
		}
	}
	for {
		select {
		case <-stop:
			return
		default:
		}
		res, err := conn.ExecContext(ctx, "INSERT INTO t (v) VALUES ('x')")
		if err != nil {
			t.Error(err)
			return
		}
		id, _ := res.LastInsertId()
		if w.tag != "" {
			w.mu.Lock()
			w.n++
			w.seq[id] = w.n
			w.mu.Unlock()
			time.Sleep(pause)
			continue
		}
		var g string
		if err := conn.QueryRowContext(ctx, "SELECT @@last_gtid").Scan(&g); err != nil {
			t.Error(err)
			return
		}
		parts := strings.Split(g, "-")
		n, _ := strconv.ParseUint(parts[2], 10, 64)
		w.mu.Lock()
		w.seq[id], w.domain = n, parts[0]
		w.mu.Unlock()
		time.Sleep(pause)
	}
}

func (w *writer) count() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.seq)
}

// visible returns the ids a snapshot at GTID set gtid must contain.
func (w *writer) visible(t *testing.T, gtid string) map[int64]bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	var upTo uint64
	found := false
	if w.tag != "" {
		upTo, found = tagUpTo(gtid, w.tag)
		if !found {
			upTo = 0 // none of the writer's commits is in the set
		}
		found = true
	}
	for _, part := range strings.Split(gtid, ",") {
		if w.tag != "" {
			break
		}
		f := strings.Split(strings.TrimSpace(part), "-")
		if len(f) == 3 && f[0] == w.domain {
			upTo, _ = strconv.ParseUint(f[2], 10, 64)
			found = true
		}
	}
	if !found {
		t.Fatalf("GTID set %q has no domain %s", gtid, w.domain)
	}
	out := map[int64]bool{}
	for id, s := range w.seq {
		if s <= upTo {
			out[id] = true
		}
	}
	return out
}

func waitRows(t *testing.T, w *writer, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for w.count() < n {
		if time.Now().After(deadline) {
			t.Fatalf("writer made %d rows in 20s", w.count())
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestPointIsConsistentUnderWrites opens the reader sessions with each
// method while a writer commits rows, and checks that every session sees
// exactly the rows committed at or before the recorded GTID position.
func TestPointIsConsistentUnderWrites(t *testing.T) {
	testenv.Flavors(t, testPointIsConsistentUnderWrites)
}

func testPointIsConsistentUnderWrites(t *testing.T, env *testenv.Env) {
	cases := []struct {
		method Method
		pause  time.Duration
	}{
		{MethodGlobalLock, 0},
		{MethodTableLock, 0},
		{MethodSingle, 0},
		{MethodLockFree, 0},
		{MethodAuto, 0},
	}
	for _, tc := range cases {
		t.Run(string(tc.method), func(t *testing.T) {
			db := env.NewDatabase(t, "snap_point")
			my := env.MySQL(t, db)
			ctx := context.Background()
			if _, err := my.ExecContext(ctx, "CREATE TABLE t (id BIGINT AUTO_INCREMENT PRIMARY KEY, v VARCHAR(10))"); err != nil {
				t.Fatal(err)
			}
			if env.IsMySQL() && (tc.method == MethodSingle || tc.method == MethodLockFree) {
				// MariaDB's binlog_snapshot_position does not exist on MySQL: a clear refusal.
				_, err := openSource(t, env, db, 4).OpenPoint(ctx, PointOptions{Sessions: 3, Method: tc.method})
				if err == nil || !strings.Contains(err.Error(), "needs MariaDB") || !strings.Contains(err.Error(), "global-read-lock") {
					t.Fatalf("method %s on MySQL: %v, want a refusal naming global-read-lock", tc.method, err)
				}
				return
			}
			w := newWriter(env)
			stop := make(chan struct{})
			done := make(chan struct{})
			go func() { defer close(done); w.run(ctx, t, my, tc.pause, stop) }()
			waitRows(t, w, 30)
			src := openSource(t, env, db, 4)
			// The tables in scope, as the snapshot passes them: auto then
			// takes the table lock.
			tables := []*schema.Table{{TableID: schema.TableID{Database: db, Name: "t"}}}
			p, err := src.OpenPoint(ctx, PointOptions{Sessions: 3, Method: tc.method, Tables: tables})
			if err != nil {
				close(stop)
				<-done
				t.Fatal(err)
			}
			defer p.Close()
			waitRows(t, w, w.count()+20)
			close(stop)
			<-done
			if p.Position.File == "" || p.Position.GTIDSet == "" || p.Position.Flavor != string(env.Flavor()) {
				t.Fatalf("position %+v: want file, pos and GTID set", p.Position)
			}
			want := w.visible(t, p.Position.GTIDSet)
			if len(want) == 0 || len(want) == w.count() {
				t.Fatalf("%d of %d rows before the position: the test needs rows on both sides", len(want), w.count())
			}
			wantSessions := 3
			if tc.method == MethodSingle {
				wantSessions = 1
			}
			if len(p.Sessions) != wantSessions {
				t.Errorf("%d sessions, want %d", len(p.Sessions), wantSessions)
			}
			wantMethod := tc.method
			if tc.method == MethodAuto {
				wantMethod = MethodTableLock
			}
			if p.Method != wantMethod {
				t.Errorf("method %s, want %s", p.Method, wantMethod)
			}
			// The lock blocks writers from the moment it is sent, so the time
			// includes its wait for running writes (bounded by the 10 s lock_wait_timeout) on a shared server.
			locked := p.Method == MethodGlobalLock || p.Method == MethodTableLock
			if locked && (p.LockHeld <= 0 || p.LockHeld > 11*time.Second) {
				t.Errorf("lock held %v", p.LockHeld)
			}
			if !locked && p.LockHeld != 0 {
				t.Errorf("lock held %v without a lock", p.LockHeld)
			}
			for i, s := range p.Sessions {
				got := map[int64]bool{}
				rows, err := s.QueryContext(ctx, "SELECT id FROM t")
				if err != nil {
					t.Fatal(err)
				}
				for rows.Next() {
					var id int64
					rows.Scan(&id)
					got[id] = true
				}
				rows.Close()
				if len(got) != len(want) {
					t.Errorf("session %d sees %d rows, the position %s covers %d", i, len(got), p.Position, len(want))
				}
				for id := range want {
					if !got[id] {
						t.Errorf("session %d misses row %d committed before the position", i, id)
					}
				}
			}
		})
	}
}

// TestPointWithoutReload checks the fallbacks of a user without RELOAD:
// auto opens the sessions lock-free (or, when they never agree, reads with
// one session, with a warning); a forced global lock is a configuration
// error that names the fix.
func TestPointWithoutReload(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_noreload")
	admin := env.MySQL(t, db)
	ctx := context.Background()
	user := testenv.UniqueName("noreload")
	if _, err := admin.ExecContext(ctx, "CREATE USER '"+user+"'@'%' IDENTIFIED BY 'pw'; GRANT SELECT, REPLICATION CLIENT ON *.* TO '"+user+"'@'%'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { admin.ExecContext(context.Background(), "DROP USER '"+user+"'@'%'") })
	if _, err := admin.ExecContext(ctx, "CREATE TABLE t (id INT PRIMARY KEY); INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	base, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	base.User, base.Password = user, "pw"
	src, err := OpenSource(ctx, base, 4)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()

	_, err = src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodGlobalLock})
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "GRANT RELOAD") {
		t.Fatalf("forced global lock without RELOAD: %v (code %d), want a config error naming GRANT RELOAD", err, exitcode.Of(err))
	}
	tables := []*schema.Table{{TableID: schema.TableID{Database: db, Name: "t"}}}
	_, err = src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodTableLock, Tables: tables})
	if err == nil || exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "GRANT LOCK TABLES") {
		t.Fatalf("forced table lock without LOCK TABLES: %v (code %d), want a config error naming GRANT LOCK TABLES", err, exitcode.Of(err))
	}
	// auto without either privilege: past the table lock and the global lock to lock-free.
	p, err := src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodAuto, Tables: tables})
	if err != nil {
		t.Fatal(err)
	}
	if p.Method != MethodLockFree || len(p.Sessions) != 2 || len(p.Warnings) != 0 || p.Position.GTIDSet == "" {
		t.Errorf("method %s, %d sessions, position %+v, warnings %q: want lock-free with 2 sessions and a GTID position",
			p.Method, len(p.Sessions), p.Position, p.Warnings)
	}
	var n int
	if err := p.Sessions[1].QueryRowContext(ctx, "SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 1 {
		t.Errorf("count = %d, %v", n, err)
	}
	p.Close()

	// Sessions that never agree (LockFreeAttempts is the test's lever: a
	// writer commits between every two snapshots) fall back to one session.
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := 2; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := admin.ExecContext(ctx, "INSERT INTO t VALUES (?)", i); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	defer func() { close(stop); <-done }()
	var fellBack bool
	for try := 0; try < 20 && !fellBack; try++ {
		p, err := src.OpenPoint(ctx, PointOptions{Sessions: 2, Method: MethodAuto, LockFreeAttempts: 1})
		if err != nil {
			t.Fatal(err)
		}
		if p.Method == MethodSingle {
			fellBack = true
			if len(p.Sessions) != 1 || len(p.Warnings) == 0 || !strings.Contains(p.Warnings[0], "ONE session") {
				t.Errorf("%d sessions, warnings %q: want one session with a warning", len(p.Sessions), p.Warnings)
			}
		}
		p.Close()
	}
	if !fellBack {
		t.Errorf("20 points with one lock-free attempt each under a writer: none fell back to single-session")
	}
}

// tagUpTo returns the end of the first interval of tag in a MySQL GTID set
// ("uuid:1-9:tag:1-5,..." → 5): the writer's commits are numbered from 1
// without gaps, so one interval holds them all.
func tagUpTo(set, tag string) (uint64, bool) {
	for _, part := range strings.Split(set, ",") {
		f := strings.Split(strings.TrimSpace(part), ":")
		for i := 1; i+1 < len(f); i++ {
			if f[i] == tag {
				iv := f[i+1]
				if _, end, ok := strings.Cut(iv, "-"); ok {
					iv = end
				}
				n, err := strconv.ParseUint(iv, 10, 64)
				return n, err == nil
			}
		}
	}
	return 0, false
}
