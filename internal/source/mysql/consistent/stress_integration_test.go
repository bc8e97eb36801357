package consistent

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// stressLoad is a set of writers committing multi-row transactions into
// two tables (three rows into a, one counter increment in b, tagged with the
// transaction) and recording the GTID sequence number of every commit.
type stressLoad struct {
	mu     sync.Mutex
	seq    map[int64]uint64 // transaction tag → GTID seq_no of its commit
	last   []uint64         // per writer: seq_no of its latest commit
	domain string
}

const stressSchema = `CREATE TABLE a (id BIGINT AUTO_INCREMENT PRIMARY KEY, txn BIGINT NOT NULL, k INT NOT NULL) ENGINE=InnoDB;
CREATE TABLE b (id INT PRIMARY KEY, n BIGINT NOT NULL) ENGINE=InnoDB;
INSERT INTO b VALUES (1,0),(2,0),(3,0),(4,0),(5,0),(6,0),(7,0),(8,0);
CREATE TABLE c (id BIGINT AUTO_INCREMENT PRIMARY KEY) ENGINE=InnoDB`

// writeOutOfScope inserts into c until stop.
func writeOutOfScope(ctx context.Context, db *sql.DB, stop <-chan struct{}) error {
	for {
		select {
		case <-stop:
			return nil
		default:
		}
		if _, err := db.ExecContext(ctx, "INSERT INTO c VALUES ()"); err != nil {
			return err
		}
	}
}

func (l *stressLoad) write(ctx context.Context, db *sql.DB, writer int, stop <-chan struct{}) error {
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	for n := int64(1); ; n++ {
		select {
		case <-stop:
			return nil
		default:
		}
		tag := int64(writer)<<32 | n
		tx, err := c.BeginTx(ctx, nil)
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, "INSERT INTO a (txn, k) VALUES (?, 1), (?, 2), (?, 3)", tag, tag, tag); err != nil {
			tx.Rollback()
			return err
		}
		if _, err := tx.ExecContext(ctx, "UPDATE b SET n = n + 1 WHERE id = ?", n%8+1); err != nil {
			tx.Rollback()
			return err
		}
		if err := tx.Commit(); err != nil {
			return err
		}
		var g string
		if err := c.QueryRowContext(ctx, "SELECT @@last_gtid").Scan(&g); err != nil {
			return err
		}
		f := strings.Split(g, "-")
		s, err := strconv.ParseUint(f[len(f)-1], 10, 64)
		if err != nil || len(f) != 3 {
			return fmt.Errorf("@@last_gtid %q", g)
		}
		l.mu.Lock()
		l.seq[tag], l.last[writer], l.domain = s, s, f[0]
		l.mu.Unlock()
	}
}

// upTo is the writers' domain's sequence number in a GTID set.
func (l *stressLoad) upTo(gtid string) (uint64, error) {
	l.mu.Lock()
	domain := l.domain
	l.mu.Unlock()
	for _, part := range strings.Split(gtid, ",") {
		f := strings.Split(strings.TrimSpace(part), "-")
		if len(f) == 3 && f[0] == domain {
			return strconv.ParseUint(f[2], 10, 64)
		}
	}
	return 0, fmt.Errorf("GTID set %q has no domain %s", gtid, domain)
}

// settled waits until every writer has committed past upTo, so that every
// transaction at or before it has its sequence number recorded.
func (l *stressLoad) settled(upTo uint64) bool {
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		l.mu.Lock()
		done := true
		for _, s := range l.last {
			done = done && s > upTo
		}
		l.mu.Unlock()
		if done {
			return true
		}
		time.Sleep(2 * time.Millisecond)
	}
	return false
}

// sessionView is what one reader session of a point saw.
type sessionView struct {
	rows map[int64]int // transaction tag → rows of a
	sumB int64
}

func readView(ctx context.Context, c *sql.Conn) (sessionView, error) {
	v := sessionView{rows: map[int64]int{}}
	rows, err := c.QueryContext(ctx, "SELECT txn FROM a")
	if err != nil {
		return v, err
	}
	for rows.Next() {
		var tag int64
		if err := rows.Scan(&tag); err != nil {
			rows.Close()
			return v, err
		}
		v.rows[tag]++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return v, err
	}
	err = c.QueryRowContext(ctx, "SELECT SUM(n) FROM b").Scan(&v.sumB)
	return v, err
}

// check compares a session's view with the transactions at or before upTo:
// exactly those, each with all three rows, and b's counters sum to their
// number. It returns the problems found (empty: consistent).
func (l *stressLoad) check(v sessionView, upTo uint64) []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	var bad []string
	want := 0
	for tag, s := range l.seq {
		if s > upTo {
			if v.rows[tag] != 0 {
				bad = append(bad, fmt.Sprintf("txn %x (GTID seq %d, after the position) is in the snapshot", tag, s))
			}
			continue
		}
		want++
		if v.rows[tag] != 3 {
			bad = append(bad, fmt.Sprintf("txn %x (GTID seq %d, covered by the position) has %d of 3 rows", tag, s, v.rows[tag]))
		}
	}
	for tag := range v.rows {
		if _, ok := l.seq[tag]; !ok {
			bad = append(bad, fmt.Sprintf("txn %x is in the snapshot but was never committed", tag))
		}
	}
	if v.sumB != int64(want) {
		bad = append(bad, fmt.Sprintf("b sums to %d, %d transactions are covered", v.sumB, want))
	}
	return bad
}

// stressResult counts what a stress run did.
type stressResult struct {
	points, sessionsChecked, txns int
	sessions                      map[int]int // sessions per point → points
}

// stressPoints takes consistent points with method for d while 3 writers
// commit and 2 sessions poll SHOW STATUS (like a monitoring agent), and
// checks every session of every point against the GTID position recorded.
func stressPoints(t *testing.T, src *Source, my *sql.DB, method Method, d time.Duration) stressResult {
	t.Helper()
	ctx := context.Background()
	if _, err := my.ExecContext(ctx, stressSchema); err != nil {
		t.Fatal(err)
	}
	const writers = 3
	load := &stressLoad{seq: map[int64]uint64{}, last: make([]uint64, writers)}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, writers+1)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() { defer wg.Done(); errs <- load.write(ctx, my, w, stop) }()
	}
	wg.Add(1)
	go func() { defer wg.Done(); errs <- writeOutOfScope(ctx, my, stop) }()
	var dbName string
	if err := my.QueryRowContext(ctx, "SELECT DATABASE()").Scan(&dbName); err != nil {
		t.Fatal(err)
	}
	// The tables in scope (c is not: its writer goes on under the table
	// lock, advancing the GTID position).
	tables := []*schema.Table{{TableID: schema.TableID{Database: dbName, Name: "a"}}, {TableID: schema.TableID{Database: dbName, Name: "b"}}}
	stopPoll := pollStatus(t, src, 2)
	defer func() {
		stopPoll()
		close(stop)
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Errorf("writer: %v", err)
			}
		}
	}()
	// Points only once a writer has committed and read its GTID: before
	// that the writers' domain is unknown (on a busy box the first point
	// came first).
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		load.mu.Lock()
		known := load.domain != ""
		load.mu.Unlock()
		if known {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no write committed within 10s")
		}
	}
	res := stressResult{sessions: map[int]int{}}
	failures := 0
	for end := time.Now().Add(d); time.Now().Before(end) && failures < 3; {
		p, err := src.OpenPoint(ctx, PointOptions{Sessions: 3, Method: method, LockFreeAttempts: 50, Tables: tables})
		if err != nil {
			t.Fatalf("point %d: %v", res.points+1, err)
		}
		views := make([]sessionView, len(p.Sessions))
		for i, c := range p.Sessions {
			if views[i], err = readView(ctx, c); err != nil {
				p.Close()
				t.Fatal(err)
			}
		}
		p.Close()
		res.points++
		res.sessions[len(views)]++
		upTo, err := load.upTo(p.Position.GTIDSet)
		if err != nil {
			t.Fatal(err)
		}
		if !load.settled(upTo) {
			t.Fatalf("writers did not commit past GTID seq %d within 10s", upTo)
		}
		for i, v := range views {
			res.sessionsChecked++
			if bad := load.check(v, upTo); len(bad) > 0 {
				failures++
				t.Errorf("point %d (%s, %s, session %d of %d): %d problems, first: %s",
					res.points, p.Method, p.Position, i, len(views), len(bad), strings.Join(bad[:min(3, len(bad))], "; "))
			}
		}
	}
	load.mu.Lock()
	res.txns = len(load.seq)
	load.mu.Unlock()
	if res.points < 3 {
		t.Errorf("only %d points in %v", res.points, d)
	}
	return res
}

// TestPointStressWithoutLock takes consistent points without any lock
// (single-session and lock-free) for 4 seconds each under a continuous
// multi-row write load and SHOW STATUS polling, and checks every session of
// every point against the GTID position recorded. It runs on a throwaway
// server: BINLOG_GTID_POS reads the binlog file from its start, and the
// sandbox's is large, so there only a few points would fit in the time.
// With a single reading of binlog_snapshot_position (positionAgree = 1) it
// fails within a second: positions later than the snapshot, rows missing.
//
// SLUICE_SNAPSHOT_SOAK=<duration> runs every method (also the global read
// lock) that long, on a server with the sandbox's settings and on one that
// groups commits (binlog_commit_wait_count).
func TestPointStressWithoutLock(t *testing.T) {
	d := 4 * time.Second
	// The table lock too: the default, whose position is read while
	// writes out of scope go on.
	methods := []Method{MethodSingle, MethodLockFree, MethodTableLock}
	servers := []struct {
		name string
		args []string
	}{{"sandbox-settings", nil}}
	if soak := os.Getenv("SLUICE_SNAPSHOT_SOAK"); soak != "" {
		var err error
		if d, err = time.ParseDuration(soak); err != nil {
			t.Fatalf("SLUICE_SNAPSHOT_SOAK=%q: %v", soak, err)
		}
		methods = append(methods, MethodGlobalLock)
		servers = append(servers, struct {
			name string
			args []string
		}{"group-commit", []string{"--binlog-commit-wait-count=3", "--binlog-commit-wait-usec=20000"}})
	}
	for _, srv := range servers {
		t.Run(srv.name, func(t *testing.T) {
			admin := testenv.StartMariaDB(t, srv.args...)
			for _, m := range methods {
				t.Run(string(m), func(t *testing.T) {
					src, my := throwawayDB(t, admin, testenv.UniqueName("snap_stress"))
					logStress(t, srv.name, m, stressPoints(t, src, my, m, d))
				})
			}
		})
	}
}

func logStress(t *testing.T, server string, m Method, res stressResult) {
	t.Logf("%s, %s: %d points, %d sessions checked (sessions per point: %v), %d transactions committed",
		server, m, res.points, res.sessionsChecked, res.sessions, res.txns)
}

// throwawayDB creates database db on a throwaway server and opens a Source
// and an admin pool (multiStatements) on it.
func throwawayDB(t *testing.T, adminURL, db string) (*Source, *sql.DB) {
	t.Helper()
	m, err := config.ParseSource(adminURL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := m.Config()
	cfg.MultiStatements = true
	root, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { root.Close() })
	if _, err := root.Exec("CREATE DATABASE " + db); err != nil {
		t.Fatal(err)
	}
	cfg.DBName = db
	my, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { my.Close() })
	src, err := OpenSource(context.Background(), m.WithDatabase(db), 8)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { src.Close() })
	return src, my
}
