package replicate

import (
	"context"
	"log/slog"
	"regexp"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestBinlogRetentionHeadroom: a caught-up stream's headroom is the
// source's retention (its checkpoint's file is the newest, or the applied
// transaction is seconds old), on the metric and in the status line.
func TestBinlogRetentionHeadroom(t *testing.T) { testenv.Flavors(t, testBinlogRetentionHeadroom) }

func testBinlogRetentionHeadroom(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_headroom", `CREATE TABLE t (id INT PRIMARY KEY, v INT)`)
	retention, err := binlog.ReadRetention(context.Background(), g.my)
	if err != nil {
		t.Fatal(err)
	}
	if retention == 0 {
		t.Fatal("the sandbox purges binlogs (scripts/sandbox: binlog_expire_logs_seconds); this test needs a retention")
	}
	g.snapshot(g.stream, "")
	reg := prometheus.NewRegistry()
	var logs testenv.SyncBuffer
	o := g.options()
	o.Registry = reg
	o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	run := g.start(o)
	g.exec("INSERT INTO t VALUES (1, 1), (2, 2)")
	const name = "sluice_replicate_binlog_retention_headroom_seconds"
	deadline := time.Now().Add(30 * time.Second)
	var m map[string]float64
	for {
		m = gather(t, reg)
		if m["sluice_replicate_applied_changes_total"] >= 2 && m[name] == m[name] { // not NaN
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics after 30s: %v", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if h := m[name]; h > retention.Seconds() || h < retention.Seconds()-10 {
		t.Errorf("%s = %v, want %v (less at most the seconds the applied transaction is old)", name, h, retention.Seconds())
	}
	// The status line (every second here) names it too ("unknown" in the
	// lines before the first applied transaction).
	field := regexp.MustCompile(`retention_headroom=([0-9]\S*)`)
	for deadline = time.Now().Add(10 * time.Second); field.FindStringSubmatch(logs.String()) == nil; time.Sleep(200 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no retention_headroom in the status line:\n%s", logs.String())
		}
	}
	got, err := time.ParseDuration(field.FindStringSubmatch(logs.String())[1])
	if err != nil || got > retention || got < retention-10*time.Second {
		t.Errorf("status line retention_headroom=%v (%v), want about %v", got, err, retention)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n := g.count("t"); n != 2 {
		t.Errorf("%d rows replicated, want 2", n)
	}
}
