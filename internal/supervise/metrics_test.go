package supervise

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
)

// TestRegisterAllOrNone: the collectors are named sluice_<subsystem>_<name>
// with the stream label; a set that cannot be registered whole leaves
// nothing behind, and unregister removes the set.
func TestRegisterAllOrNone(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := Metrics{Subsystem: "reverse", Stream: "shop"}
	a := m.Gauge("a", "a gauge", func() float64 { return 7 })
	b := m.Counter("b_total", "a counter", func() float64 { return 3 })
	if _, err := Register(reg, a, m.Gauge("a", "a gauge again", func() float64 { return 1 })); err == nil {
		t.Fatal("registered the same name twice")
	}
	unregister, err := Register(reg, a, b)
	if err != nil {
		t.Fatalf("after a failed set, registering it again: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]float64{}
	for _, mf := range mfs {
		m := mf.GetMetric()[0]
		if l := m.GetLabel(); len(l) != 1 || l[0].GetName() != "stream" || l[0].GetValue() != "shop" {
			t.Errorf("%s labels %v, want stream=shop", mf.GetName(), l)
		}
		got[mf.GetName()] = m.GetGauge().GetValue() + m.GetCounter().GetValue()
	}
	if len(got) != 2 || got["sluice_reverse_a"] != 7 || got["sluice_reverse_b_total"] != 3 {
		t.Fatalf("gathered %v, want sluice_reverse_a 7 and sluice_reverse_b_total 3", got)
	}
	unregister()
	if mfs, _ := reg.Gather(); len(mfs) != 0 {
		t.Fatalf("%d families left after unregister", len(mfs))
	}
	reach, err := RegisterReachable(reg, "replicate", "shop", "help")
	if err != nil {
		t.Fatal(err)
	}
	reach.Set(false)
	mfs, _ = reg.Gather()
	if len(mfs) != 1 || mfs[0].GetName() != "sluice_replicate_target_reachable" || mfs[0].GetMetric()[0].GetGauge().GetValue() != 0 {
		t.Fatalf("reachable gathered %v, want sluice_replicate_target_reachable 0", mfs)
	}
	reach.Unregister()
	var none *Reachable
	none.Set(true) // a command without the gauge
	none.Unregister()
}
