package replicate

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestTargetRestartIsSurvived: PostgreSQL is shut down and started again
// while replicate runs under a write load. Replicate reconnects on its own,
// logging one line per attempt, and every row arrives exactly once.
func TestTargetRestartIsSurvived(t *testing.T) {
	g := newRig(t, "tgtrestart", `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20))`)
	pg := testenv.StartPostgres(t)
	dst, err := config.ParseTarget(pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	snap := snapshot.Options{Source: g.src, Target: dst, Include: []string{g.db}, Stream: g.stream, Workers: 2, Log: testenv.Logger()}
	if _, err := snapshot.Run(context.Background(), snap); err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	var logs testenv.SyncBuffer
	o := g.options()
	o.Target = dst
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
