package reverse

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReversePostgresRestartedTwiceIsSurvived: the second loss of
// PostgreSQL, after the way back reconnected from the first and ran on
// past --target-retry, gets the whole --target-retry again (the forward
// stream's TestTargetRestartedTwiceIsSurvived). It used to count from the
// first loss unless the run in between lasted a minute, so two restarts a
// retry limit apart ended the way back at the second. While PostgreSQL is
// down sluice_reverse_target_reachable reads 0, and 1 while it applies.
func TestReversePostgresRestartedTwiceIsSurvived(t *testing.T) {
	p, g, o, exec, tbl := privatePostgres(t, "rvpgrestart")
	ctx := context.Background()
	var logs testenv.SyncBuffer
	reg := prometheus.NewRegistry()
	o.UntilCaughtUp, o.Retry, o.Registry = false, 6*time.Second, reg
	o.Log = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelWarn}))
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- Run(rctx, o) }()
	reachable := func() float64 {
		mfs, err := reg.Gather()
		if err != nil {
			t.Fatal(err)
		}
		for _, mf := range mfs {
			if mf.GetName() == "sluice_reverse_target_reachable" {
				return mf.GetMetric()[0].GetGauge().GetValue()
			}
		}
		return -1
	}
	ended := func(round int) {
		t.Helper()
		select {
		case err := <-done:
			t.Fatalf("round %d: reverse ended: %v\nlog:\n%s", round, err, logs.String())
		default:
		}
	}
	waitRows := func(round, want int) {
		t.Helper()
		deadline := time.Now().Add(90 * time.Second)
		for {
			var n int
			_ = g.my.QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
			if n == want {
				return
			}
			ended(round)
			if time.Now().After(deadline) {
				t.Fatalf("round %d: MySQL has %d rows, want %d\nlog:\n%s", round, n, want, logs.String())
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	waitRows(0, 0)
	time.Sleep(2 * time.Second) // the slot exists once the run started streaming
	id := 0
	insert := func(n int) {
		t.Helper()
		var b strings.Builder
		for i := 0; i < n; i++ {
			id++
			fmt.Fprintf(&b, "INSERT INTO %s VALUES (%d, %d);", tbl, id, id)
		}
		exec(b.String())
	}
	for round := 1; round <= 2; round++ {
		insert(100)
		waitRows(round, id)
		if v := reachable(); v != 1 {
			t.Fatalf("round %d: target_reachable = %v while applying, want 1", round, v)
		}
		p.Stop()
		deadline := time.Now().Add(20 * time.Second)
		for reachable() != 0 {
			ended(round)
			if time.Now().After(deadline) {
				t.Fatalf("round %d: target_reachable still %v with PostgreSQL down\nlog:\n%s", round, reachable(), logs.String())
			}
			time.Sleep(100 * time.Millisecond)
		}
		time.Sleep(2 * time.Second)
		p.Start()
		insert(100) // written once PostgreSQL is back, before the way back reconnected
		waitRows(round, id)
		// Run past the retry limit before the next loss.
		time.Sleep(o.Retry + 2*time.Second)
		ended(round)
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("reverse: %v\nlog:\n%s", err, logs.String())
	}
	var n, distinct, sum int
	if err := g.my.QueryRow("SELECT COUNT(*), COUNT(DISTINCT id), SUM(v) FROM t").Scan(&n, &distinct, &sum); err != nil {
		t.Fatal(err)
	}
	if n != id || distinct != id || sum != id*(id+1)/2 {
		t.Fatalf("MySQL has %d rows (%d distinct, sum %d), want each of 1..%d once (sum %d)", n, distinct, sum, id, id*(id+1)/2)
	}
	if got := strings.Count(logs.String(), "reverse: lost PostgreSQL; starting again"); got < 2 {
		t.Fatalf("%d reconnect lines logged, want one per attempt, at least one per restart:\n%s", got, logs.String())
	}
}
