package board

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/notify"
)

// events records what the board notifies (the notifier is internal/notify's
// to test; here only which events the board's changes make).
type events struct{ got []notify.Event }

func (e *events) Notify(ev notify.Event) { e.got = append(e.got, ev) }

func (e *events) names() []string {
	var out []string
	for _, ev := range e.got {
		out = append(out, ev.Event+" "+ev.Stream+" "+ev.Table+ev.Step)
	}
	return out
}

// TestBoardEvents drives every card through the changes that make an
// event, and checks each event once, in order, with its fields.
func TestBoardEvents(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	rec := &events{}
	b := New(Options{Command: "replicate", Now: c.now, Notify: rec, LagThreshold: 20 * time.Second})
	s := b.Stream("shop", "replicate")
	s.SetPhase(PhaseStandby)
	lag := 30.0
	s.Attach(func() Reading { return Reading{Applied: "bin.000002:300", Lag: lag} }, nil)
	s.SetPhase(PhaseReplicating) // took over
	s.SetPhase(PhaseStandby)     // a reconnect of the same standby: no second takeover
	s.SetPhase(PhaseReplicating)
	watch := func(l float64) {
		lag = l
		b.mu.Lock()
		b.watch()
		b.mu.Unlock()
	}
	watch(30)    // over 20 s
	watch(25)    // still over: nothing
	watch(15)    // under 20 but above 10: hysteresis, nothing; and not caught up (over 10)
	watch(5)     // caught up, and under half the threshold
	watch(4)     // nothing new
	watch(20.04) // reported as 20.0 s: not over 20 s
	watch(21)    // over again
	s.Reconnecting(errors.New("dial tcp 127.0.0.1:5432: connection refused"))
	s.Attach(func() Reading { return Reading{Applied: "bin.000002:900", Lag: lag} }, nil)
	s.SetPhase(PhaseReplicating)
	watch(2) // caught up again after the reconnect; back under
	s.Stopped(errors.New("target lost for good"))

	snap := b.Snapshot("copy")
	snap.Attach(func() []TableReading {
		return []TableReading{{Name: "shop.a", Rows: 3, Done: true}, {Name: "shop.b", Rows: 4, Done: true}}
	})
	snap.Finish(nil)
	b.Snapshot("shop").Finish(errors.New("no")) // the stream card reports it: no second failed
	b.Snapshot("alone").Finish(errors.New("copy failed"))

	v := b.Verify("shop")
	v.TableDone(VerifyTable{Table: "shop.a", Result: "equal"})
	v.TableDone(VerifyTable{Table: "shop.b", Result: "differences", Differing: 2, OnlyInTarget: 1})
	v.Finish("differences")
	b.Verify("eq").Finish("equal")

	cut := b.Cutover("shop", []string{"drain", "sequences"})
	cut.Step("drain", "running", "", 0)
	cut.Step("drain", "ok", "caught up at bin.000002:900", 1.5)
	cut.Step("sequences", "failed", "permission denied", 0.1)

	a := b.Alter("shop.orders")
	a.Attach(func() AlterReading { return AlterReading{Rows: 1000} })
	a.Detach()
	a.Finish(nil)
	b.Alter("shop.items").Finish(errors.New("lock wait timeout"))

	want := []string{
		"standby_took_over shop ", "lag_over shop ", "caught_up shop ", "lag_under shop ", "lag_over shop ",
		"reconnecting shop ", "caught_up shop ", "lag_under shop ", "failed shop ",
		"snapshot_done copy ", "failed alone ",
		"verify_differences shop shop.b",
		"cutover_step shop drain", "failed shop sequences",
		"alter_copy_done shop.orders shop.orders", "alter_swapped shop.orders shop.orders", "failed shop.items shop.items",
	}
	if got := rec.names(); !reflect.DeepEqual(got, want) {
		t.Fatalf("events\n got %q\nwant %q", got, want)
	}
	byName := func(i int) notify.Event { return rec.got[i] }
	if ev := byName(1); ev.Position != "bin.000002:300" || ev.LagSeconds == nil || *ev.LagSeconds != 30 || !ev.Time.Equal(c.t) {
		t.Errorf("lag_over = %+v", ev)
	}
	if ev := byName(4); ev.LagSeconds == nil || *ev.LagSeconds != 21 {
		t.Errorf("second lag_over = %+v, want the lag of 21 s that crossed 20 s", ev)
	}
	if ev := byName(5); ev.Error != "dial tcp 127.0.0.1:5432: connection refused" {
		t.Errorf("reconnecting error = %q", ev.Error)
	}
	if ev := byName(8); ev.Error != "target lost for good" || ev.Position != "bin.000002:900" {
		t.Errorf("failed = %+v", ev)
	}
	if ev := byName(9); ev.Detail != "2 tables, 7 rows copied" {
		t.Errorf("snapshot_done detail = %q", ev.Detail)
	}
	if ev := byName(11); ev.Detail != "1 table differs, 3 rows" {
		t.Errorf("verify_differences detail = %q", ev.Detail)
	}
	if ev := byName(12); ev.Detail != "caught up at bin.000002:900" {
		t.Errorf("cutover_step detail = %q", ev.Detail)
	}
	if ev := byName(13); ev.Error != "permission denied" {
		t.Errorf("failed step error = %q", ev.Error)
	}
	if ev := byName(16); ev.Error != "lock wait timeout" {
		t.Errorf("failed alter error = %q", ev.Error)
	}
}
