package supervise

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/sluice-db/sluice/internal/board"
)

// One Command's loop: a loss is retried (the card shows it reconnecting,
// the gauge reads 0), the run that follows gets going (1), and the end is
// on the card; the gauge is gone afterwards.
func TestCommandLoopCardAndGauge(t *testing.T) {
	b := board.New(board.Options{})
	reg := prometheus.NewRegistry()
	card := Card(b, "shop", "reverse", "postgres://pg/app", "mysql://my/shop", true)
	if got := b.Status().Streams[0].Phase; got != board.PhaseStandby {
		t.Fatalf("a standby's card starts as %q, want %q", got, board.PhaseStandby)
	}
	lostErr, endErr := errors.New("connection reset"), errors.New("a refused row")
	lost := &Retry{Limit: time.Minute, Target: true}
	var phases []board.Phase
	var gauges []float64
	attempts := 0
	err := Command{Subsystem: "reverse", Stream: "shop", ReachableHelp: "h", Registry: reg, Card: card, TxnMemory: 1 << 20,
		Policy: func(r *Reachable) Policy {
			return Policy{Reachable: r, After: func(time.Duration) <-chan time.Time { return time.After(0) },
				Classify: func(err error, _ bool) (Class, *Retry) {
					if errors.Is(err, lostErr) {
						return Lost, lost
					}
					return Stop, nil
				}}
		}}.Loop(context.Background(), func(_ context.Context, retrying bool, running func()) error {
		attempts++
		phases = append(phases, b.Status().Streams[0].Phase)
		gauges = append(gauges, reachable(t, reg))
		if attempts == 1 {
			return lostErr
		}
		if !retrying {
			t.Error("the attempt after a target loss is not a retry")
		}
		running()
		gauges = append(gauges, reachable(t, reg))
		return endErr
	})
	if !errors.Is(err, endErr) || attempts != 2 {
		t.Fatalf("Loop = %v after %d attempts, want %v after 2", err, attempts, endErr)
	}
	if want := []board.Phase{board.PhaseStandby, board.PhaseReconnecting}; phases[0] != want[0] || phases[1] != want[1] {
		t.Errorf("phases at each attempt = %v, want %v", phases, want)
	}
	if want := []float64{1, 0, 1}; len(gauges) != 3 || gauges[0] != want[0] || gauges[1] != want[1] || gauges[2] != want[2] {
		t.Errorf("sluice_reverse_target_reachable at each attempt = %v, want %v", gauges, want)
	}
	st := b.Status().Streams[0]
	if st.Phase != board.PhaseFailed || st.LastError == nil || st.LastError.Message != endErr.Error() {
		t.Errorf("card after the loop: phase %q, last error %+v; want %q with %q", st.Phase, st.LastError, board.PhaseFailed, endErr)
	}
	if st.Source != "postgres://pg/app" || st.Target != "mysql://my/shop" || st.Kind != "reverse" {
		t.Errorf("card endpoints/kind = %q %q %q", st.Source, st.Target, st.Kind)
	}
	if mfs, err := reg.Gather(); err != nil || len(mfs) != 0 {
		t.Errorf("after the loop %d metric families are registered (%v), want 0", len(mfs), err)
	}
}

// reachable reads the one registered gauge, sluice_reverse_target_reachable{stream="shop"}.
func reachable(t *testing.T, reg *prometheus.Registry) float64 {
	t.Helper()
	mfs, err := reg.Gather()
	if err != nil || len(mfs) != 1 || mfs[0].GetName() != "sluice_reverse_target_reachable" {
		t.Fatalf("gathered %d metric families (%v), want sluice_reverse_target_reachable", len(mfs), err)
	}
	return mfs[0].GetMetric()[0].GetGauge().GetValue()
}
