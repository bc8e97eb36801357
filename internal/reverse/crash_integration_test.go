package reverse

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseKill9ResumesExactlyOnce: the sluice binary running the reverse
// stream is killed with SIGKILL twice while PostgreSQL takes a write load
// (inserts and counter increments, which a lost or a repeated transaction
// would show); the last run catches up and MySQL equals PostgreSQL.
func TestReverseKill9ResumesExactlyOnce(t *testing.T) {
	bin := testenv.SluiceBinary(t)
	g := newRig(t, "rvkill", "CREATE TABLE k (id INT PRIMARY KEY, w INT, note VARCHAR(40))",
		"CREATE TABLE ctr (w INT PRIMARY KEY, c BIGINT)", "INSERT INTO ctr VALUES (0, 0), (1, 0), (2, 0), (3, 0)")
	g.snapshot()
	g.catchUp()

	const writers, perWriter = 4, 1500
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := pgx.Connect(ctx, g.env.PGAdminURL())
			if err != nil {
				errs <- err
				return
			}
			defer c.Close(ctx)
			k, ctr := pgx.Identifier{g.db, "k"}.Sanitize(), pgx.Identifier{g.db, "ctr"}.Sanitize()
			for i := range perWriter {
				id := w*perWriter + i
				q := fmt.Sprintf("BEGIN; INSERT INTO %s VALUES (%d, %d, 'n%d'); UPDATE %s SET c = c + 1 WHERE w = %d; COMMIT", k, id, w, id, ctr, w)
				if _, err := c.Exec(ctx, q); err != nil {
					errs <- err
					return
				}
				if i%5 == 0 {
					time.Sleep(20 * time.Millisecond)
				}
			}
		}()
	}
	args := []string{"replicate", "--source", g.env.TargetURL(), "--target", g.env.MySQLAdminURL(g.db), "--stream", g.stream, "--workers", "4"}
	for round := range 2 {
		cmd := testenv.SluiceCommand(bin, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(1500+700*round) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		var n int
		_ = g.my.QueryRow("SELECT COUNT(*) FROM k").Scan(&n)
		t.Logf("killed run %d with %d rows in MySQL", round+1, n)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("PostgreSQL load: %v", err)
	}
	cmd := testenv.SluiceCommand(bin, append(args, "--until-caught-up")...)
	done := make(chan error, 1)
	var out []byte
	go func() {
		var err error
		out, err = cmd.CombinedOutput()
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("last run: %v\n%s", err, tail(out))
		}
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("last run did not catch up")
	}
	st, err := testenv.SluiceCommand(bin, "status", "--source", g.env.TargetURL(), "--target", g.env.MySQLAdminURL(g.db),
		"--stream", g.stream).CombinedOutput()
	if err != nil || !strings.Contains(string(st), "applied LSN:") || !strings.Contains(string(st), "confirmed flush") {
		t.Errorf("sluice status of the reverse stream: %v\n%s", err, st)
	}
	t.Logf("status:\n%s", st)
	var pgCtr []string
	rows, err := g.pg.Query(ctx, "SELECT w::text || ':' || c::text FROM "+pgx.Identifier{g.db, "ctr"}.Sanitize()+" ORDER BY w")
	if err != nil {
		t.Fatal(err)
	}
	pgCtr, err = pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	var myCtr []string
	for _, r := range testenv.MySQLTexts(t, g.my, "SELECT CONCAT(w, ':', c) FROM ctr ORDER BY w") {
		myCtr = append(myCtr, r[0].String)
	}
	var n, sum int64
	if err := g.my.QueryRow("SELECT COUNT(*), COALESCE(SUM(id), 0) FROM k").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	total := int64(writers * perWriter)
	if n != total || sum != total*(total-1)/2 || !slices.Equal(myCtr, pgCtr) {
		t.Fatalf("after two kill -9: MySQL has %d rows (id sum %d) and counters %v; PostgreSQL %d rows (%d) and %v",
			n, sum, myCtr, total, total*(total-1)/2, pgCtr)
	}
}

func tail(b []byte) string {
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// TestReversePostgresKill9: PostgreSQL itself is killed with SIGKILL and
// restarted under the reverse stream; the stream reconnects on its own and
// MySQL ends with every committed row once.
func TestReversePostgresKill9(t *testing.T) {
	p, g, o, exec, tbl := privatePostgres(t, "rvpgkill")
	ctx := context.Background()
	o.UntilCaughtUp, o.Retry = false, 2*time.Minute
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(rctx, o) }()
	count := func() int {
		var n int
		_ = g.my.QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
		return n
	}
	waitFor := func(n int) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for count() < n {
			select {
			case err := <-done:
				t.Fatalf("reverse ended: %v", err)
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("MySQL has %d rows, want %d", count(), n)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitFor(0)
	time.Sleep(2 * time.Second) // the slot exists once the run started streaming
	for i := 1; i <= 300; i++ {
		exec(fmt.Sprintf("INSERT INTO %s VALUES (%d, %d)", tbl, i, i))
	}
	p.Kill9AndRestart()
	for i := 301; i <= 600; i++ {
		exec(fmt.Sprintf("INSERT INTO %s VALUES (%d, %d)", tbl, i, i))
	}
	waitFor(600)
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("reverse: %v", err)
	}
	var n, sum int
	if err := g.my.QueryRow("SELECT COUNT(*), SUM(v) FROM t").Scan(&n, &sum); err != nil {
		t.Fatal(err)
	}
	if n != 600 || sum != 600*601/2 {
		t.Fatalf("MySQL has %d rows (sum %d), want 600 (%d)", n, sum, 600*601/2)
	}
}

// privatePostgres is a rig whose PostgreSQL side is a private server the
// test may stop or kill: table t (id, v) on both sides, the options of a
// way back from it, exec to write on it, and t's quoted PostgreSQL name.
func privatePostgres(t *testing.T, prefix string) (*testenv.Postgres, *rig, Options, func(string), string) {
	p := testenv.StartPostgres(t)
	g := newRig(t, prefix, "CREATE TABLE t (id INT PRIMARY KEY, v INT)")
	ctx := context.Background()
	pgURL := p.URL() + "?sslmode=disable"
	exec := func(q string) {
		t.Helper()
		c, err := pgx.Connect(ctx, pgURL)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	tbl := pgx.Identifier{g.db, "t"}.Sanitize()
	exec("CREATE SCHEMA " + pgx.Identifier{g.db}.Sanitize() + "; CREATE TABLE " + tbl + " (id integer PRIMARY KEY, v integer)")
	o := g.options()
	src, err := config.ParseTarget(pgURL)
	if err != nil {
		t.Fatal(err)
	}
	o.Source = src
	return p, g, o, exec, tbl
}
