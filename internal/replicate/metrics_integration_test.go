package replicate

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
)

// gather returns the value of every sluice_replicate_* series.
func gather(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			switch mf.GetType() {
			case dto.MetricType_GAUGE:
				out[mf.GetName()] = m.GetGauge().GetValue()
			case dto.MetricType_COUNTER:
				out[mf.GetName()] = m.GetCounter().GetValue()
			}
		}
	}
	return out
}

// TestMetricsLagAndThroughput replicates a few hundred changes with metrics
// on a registry and checks the counters, the positions, and that the lag
// of a caught-up stream stays near 0 (heartbeats and source time of the
// last applied transaction) instead of growing.
func TestMetricsLagAndThroughput(t *testing.T) {
	g := newRig(t, "rp_metrics", `CREATE TABLE t (id INT PRIMARY KEY, v INT, d DATE NULL)`)
	g.snapshot(g.stream, "")
	reg := prometheus.NewRegistry()
	o := g.options()
	o.Registry = reg
	run := g.start(o)
	for i := 0; i < 10; i++ {
		g.exec("INSERT INTO t SELECT seq + " + strconv.Itoa(i*30) + ", seq, NULL FROM seq_1_to_30")
	}
	// Two zero dates, changed to NULL by the default --zero-date policy.
	g.exec("SET STATEMENT sql_mode = '' FOR INSERT INTO t VALUES (1001, 0, '0000-00-00'), (1002, 0, '2020-00-01')")
	deadline := time.Now().Add(30 * time.Second)
	var m map[string]float64
	for {
		m = gather(t, reg)
		if m["sluice_replicate_applied_changes_total"] >= 302 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("metrics after 30s: %v", m)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if m["sluice_replicate_applied_transactions_total"] < 10 || m["sluice_replicate_applied_bytes_total"] <= 0 ||
		m["sluice_replicate_binlog_events_total"] < 20 || m["sluice_replicate_applied_binlog_file"] < 1 ||
		m["sluice_replicate_read_binlog_position"] <= 0 || m["sluice_replicate_policy_changed_values_total"] != 2 {
		t.Errorf("metrics: %v", m)
	}
	// Idle (for this database) for 3 s: the lag must not grow with it.
	time.Sleep(3 * time.Second)
	m = gather(t, reg)
	if lag := m["sluice_replicate_lag_seconds"]; math.IsNaN(lag) || lag > 2 {
		t.Errorf("lag of a caught-up stream: %v s", lag)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatal(err)
	}
	if n := g.count("t"); n != 302 {
		t.Errorf("%d rows replicated, want 302", n)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	if len(mfs) != 0 {
		t.Errorf("%d metric families still registered after Run returned", len(mfs))
	}
}
