package replicate

import (
	"context"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestTargetRestartIsSurvived: PostgreSQL is shut down and started again
// while replicate runs under a write load. Replicate reconnects on its own,
// logging one line per attempt, and every row arrives exactly once.
func TestTargetRestartIsSurvived(t *testing.T) {
	g := newRig(t, "tgtrestart", `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))`)
	pg, dst := snapshotIntoPrivatePostgres(t, g)
	var logs testenv.SyncBuffer
	o := g.options()
	o.Target = pgsink.NewEngine(dst)
	o.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o.TargetRetry = 2 * time.Minute
	run := g.start(o)

	const rows = 3000
	wrote := make(chan error, 1)
	go func() {
		for i := 1; i <= rows; i++ {
			if _, err := g.my.Exec("INSERT INTO t VALUES (?, ?)", i, fmt.Sprintf("v%d", i)); err != nil {
				wrote <- err
				return
			}
			if i%100 == 0 {
				time.Sleep(100 * time.Millisecond)
			}
		}
		wrote <- nil
	}()
	time.Sleep(1500 * time.Millisecond)
	pg.Stop()
	time.Sleep(3 * time.Second)
	pg.Start()
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}

	conn, err := pgx.Connect(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n, distinct, sum int64
	deadline := time.Now().Add(90 * time.Second)
	for {
		err := conn.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM "`+g.db+`".t`).Scan(&n, &distinct, &sum)
		if err == nil && n >= rows || time.Now().After(deadline) {
			break
		}
		time.Sleep(250 * time.Millisecond)
	}
	if n != rows || distinct != rows || sum != rows*(rows+1)/2 {
		t.Fatalf("after the restart the target has %d rows (%d distinct, id sum %d), want each of 1..%d once\nlog:\n%s",
			n, distinct, sum, rows, logs.String())
	}
	select {
	case err := <-run.done:
		t.Fatalf("replicate ended during the target restart: %v\nlog:\n%s", err, logs.String())
	default:
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	attempts := strings.Count(logs.String(), "lost the target; reconnecting")
	if attempts < 1 {
		t.Fatalf("no reconnect line logged:\n%s", logs.String())
	}
	for _, line := range strings.Split(logs.String(), "\n") {
		if len(line) > 2000 {
			t.Errorf("a log line of %d bytes (one clear line per attempt, no stack dumps): %.300s…", len(line), line)
		}
	}
	t.Logf("%d reconnect attempts", attempts)
}

// TestTargetRestartedTwiceIsSurvived: the second loss of the target, long
// after replicate reconnected from the first, gets the whole --target-retry
// again. It used to count from the first loss, so a PostgreSQL restarted
// twice a retry limit apart ended replicate at the second restart (exit 1).
// sluice_replicate_target_reachable reads 0 while the target is down.
func TestTargetRestartedTwiceIsSurvived(t *testing.T) {
	g := newRig(t, "tgtrestart2", `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))`)
	pg, dst := snapshotIntoPrivatePostgres(t, g)
	var logs testenv.SyncBuffer
	reg := prometheus.NewRegistry()
	o := g.options()
	o.Target = pgsink.NewEngine(dst)
	o.Registry = reg
	o.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	o.TargetRetry = 6 * time.Second
	run := g.start(o)
	reachable := func() float64 { return gather(t, reg)["sluice_replicate_target_reachable"] }

	id := 0
	insert := func(n int) {
		for i := 0; i < n; i++ {
			id++
			if _, err := g.my.Exec("INSERT INTO t VALUES (?, ?)", id, fmt.Sprintf("v%d", id)); err != nil {
				t.Fatal(err)
			}
		}
	}
	waitRows := func(want int) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for {
			var n int
			conn, err := pgx.Connect(context.Background(), pg.URL())
			if err == nil {
				err = conn.QueryRow(context.Background(), `SELECT count(*) FROM "`+g.db+`".t`).Scan(&n)
				conn.Close(context.Background())
			}
			if err == nil && n == want {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("target has %d rows (err %v), want %d\nlog:\n%s", n, err, want, logs.String())
			}
			time.Sleep(250 * time.Millisecond)
		}
	}
	for round := 1; round <= 2; round++ {
		insert(200)
		waitRows(id)
		if v := reachable(); v != 1 {
			t.Fatalf("round %d: target_reachable = %v while applying, want 1", round, v)
		}
		pg.Stop()
		insert(200) // written while the target is down
		deadline := time.Now().Add(20 * time.Second)
		for reachable() != 0 {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: target_reachable still 1 with the target down\nlog:\n%s", round, logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		pg.Start()
		waitRows(id)
		select {
		case err := <-run.done:
			t.Fatalf("round %d: replicate ended: %v\nlog:\n%s", round, err, logs.String())
		default:
		}
		// Run past the retry limit before the next loss.
		time.Sleep(o.TargetRetry + 2*time.Second)
	}
	conn, err := pgx.Connect(context.Background(), pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	var n, distinct, sum int
	if err := conn.QueryRow(context.Background(), `SELECT count(*), count(DISTINCT id), coalesce(sum(id), 0) FROM "`+g.db+`".t`).Scan(&n, &distinct, &sum); err != nil {
		t.Fatal(err)
	}
	if n != id || distinct != id || sum != id*(id+1)/2 {
		t.Fatalf("target has %d rows (%d distinct, id sum %d), want each of 1..%d once", n, distinct, sum, id)
	}
	var wrong int
	if err := conn.QueryRow(context.Background(), `SELECT count(*) FROM "`+g.db+`".t WHERE v IS DISTINCT FROM 'v' || id`).Scan(&wrong); err != nil || wrong != 0 {
		t.Fatalf("%d rows with a wrong value (err %v)", wrong, err)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// snapshotIntoPrivatePostgres starts a PostgreSQL of the test's own (to be
// stopped and started) and snapshots the rig's database into it.
func snapshotIntoPrivatePostgres(t *testing.T, g *rig) (*testenv.Postgres, config.Postgres) {
	t.Helper()
	pg := testenv.StartPostgres(t)
	dst, err := config.ParseTarget(pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot.Options{Source: g.src, Target: pgsink.NewEngine(dst), Include: []string{g.db}, Stream: g.stream, Workers: 2, Log: testenv.Logger()}
	if _, err := snapshot.Run(context.Background(), snap); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	return pg, dst
}
