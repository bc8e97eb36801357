package board

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
)

// clock is a settable test clock.
type clock struct{ t time.Time }

func (c *clock) now() time.Time      { return c.t }
func (c *clock) add(d time.Duration) { c.t = c.t.Add(d) }
func newTestBoard(c *clock, h time.Duration) *Board {
	return New(Options{Command: "migrate", Every: 5 * time.Second, History: h, Now: c.now})
}

func TestNilBoardIsInert(t *testing.T) {
	var b *Board
	s := b.Stream("s", "replicate")
	s.SetPhase(PhaseReplicating)
	s.Attach(func() Reading { return Reading{} }, nil)
	s.Fail(errors.New("x"))
	s.Detach()
	b.Snapshot("s").Finish(nil)
	b.Sample()
	if st := b.Status(); len(st.Streams) != 0 || st.Command != "" {
		t.Fatalf("nil board status = %+v", st)
	}
}

func TestStreamRatesPhaseAndHistory(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := newTestBoard(c, 20*time.Second) // 4 samples of history
	s := b.Stream("shop", "replicate")
	if again := b.Stream("shop", "replicate"); again != s {
		t.Fatal("Stream returned a second card for the same name")
	}
	s.SetEndpoints("mysql://sluice:xxxxx@db1:3306/shop", "postgres://sluice:xxxxx@pg1:5432/shop")
	var changes atomic.Int64
	lag := math.NaN()
	s.Attach(func() Reading {
		return Reading{Read: "bin.000002:400", Applied: "bin.000002:300", Lag: lag, Changes: changes.Load(), Queue: 3}
	}, func() []PolicyChange {
		return []PolicyChange{{Table: "shop.t", Column: "d", Policy: "zero-date", Rows: 2}}
	})
	s.SetPhase(PhaseReplicating)

	st := b.Status().Streams[0]
	if st.Phase != PhaseCatchingUp || st.LagSeconds != nil {
		t.Fatalf("before anything applied: phase %q lag %v, want catching up, null", st.Phase, st.LagSeconds)
	}
	b.Sample()
	lag = 42.26
	changes.Store(500)
	c.add(5 * time.Second)
	b.Sample()
	st = b.Status().Streams[0]
	if st.Phase != PhaseCatchingUp || *st.LagSeconds != 42.3 || st.RowsPerSecond != 100 || st.Changes != 500 || st.Queue != 3 {
		t.Fatalf("catching up: %+v", st)
	}
	lag = 0.5
	for range 5 {
		c.add(5 * time.Second)
		b.Sample()
	}
	st = b.Status().Streams[0]
	if st.Phase != PhaseReplicating || st.RowsPerSecond != 0 {
		t.Fatalf("caught up: phase %q rows/s %v", st.Phase, st.RowsPerSecond)
	}
	if len(st.LagHistory) != 4 {
		t.Fatalf("history holds %d points, want the 4 of 20 s", len(st.LagHistory))
	}
	for i, p := range st.LagHistory {
		want := c.t.Add(time.Duration(i-3) * 5 * time.Second).Unix()
		if p.T != want || *p.Lag != 0.5 {
			t.Fatalf("history[%d] = %d/%v, want %d/0.5 (oldest first)", i, p.T, *p.Lag, want)
		}
	}
	if len(st.PolicyChanges) != 1 || st.PolicyChanges[0].Rows != 2 || st.Source != "mysql://sluice:xxxxx@db1:3306/shop" {
		t.Fatalf("policies/endpoints: %+v", st)
	}

	s.Fail(errors.New(`target: cannot connect to postgres://sluice:hunter2@pg1:5432/shop: connection refused`))
	s.SetPhase(PhaseReconnecting)
	s.Detach()
	st = b.Status().Streams[0]
	if st.Phase != PhaseReconnecting || st.LastError == nil || st.LastError.At != c.t {
		t.Fatalf("after the loss: %+v", st)
	}
	if strings.Contains(st.LastError.Message, "hunter2") || !strings.Contains(st.LastError.Message, "connection refused") {
		t.Fatalf("error message %q: want it without the password, with the cause", st.LastError.Message)
	}
	if st.Applied != "bin.000002:300" || *st.LagSeconds != 0.5 || len(st.PolicyChanges) != 1 {
		t.Fatalf("a detached stream keeps its last reading: %+v", st)
	}
}

func TestSnapshotProgressAndETA(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := newTestBoard(c, time.Hour)
	snap := b.Snapshot("shop")
	tables := []TableReading{{Name: "shop.a", EstimatedRows: 1000}, {Name: "shop.b", EstimatedRows: 100}}
	snap.Attach(func() []TableReading { return append([]TableReading{}, tables...) })
	b.Sample()
	tables[0].Rows = 250
	tables[1].Rows, tables[1].Done = 120, true // estimates are low at times
	c.add(10 * time.Second)
	b.Sample()
	st := b.Status().Snapshots[0]
	a, bt := st.Tables[0], st.Tables[1]
	if a.Percent != 25 || a.ETASeconds == nil || *a.ETASeconds != 30 || a.Done {
		t.Fatalf("table a: %+v (eta %v)", a, a.ETASeconds)
	}
	if bt.Percent != 100 || bt.ETASeconds != nil || bt.EstimatedRows != 120 || !bt.Done {
		t.Fatalf("table b: %+v", bt)
	}
	if st.Rows != 370 || st.EstimatedRows != 1120 || st.TablesDone != 1 || st.Phase != SnapshotCopying || *st.ETASeconds != 30 {
		t.Fatalf("snapshot: %+v eta %v", st, *st.ETASeconds)
	}
	tables[0].Rows = 1000 // the estimate reached, not yet done
	if p := b.Status().Snapshots[0].Tables[0].Percent; p != 99.9 {
		t.Fatalf("unfinished table at its estimate reads %v %%, want 99.9", p)
	}
	tables[0].Done = true
	snap.Finish(nil)
	tables[0].Rows = 5 // the probe is no longer read
	st = b.Status().Snapshots[0]
	if st.Phase != SnapshotDone || st.Percent != 100 || st.Tables[0].Percent != 100 || st.Tables[0].Rows != 1000 || st.ETASeconds != nil {
		t.Fatalf("done: %+v", st)
	}
}

func TestStatusJSONShape(t *testing.T) {
	c := &clock{t: time.Unix(1_700_000_000, 0).UTC()}
	b := newTestBoard(c, time.Hour)
	b.Stream("s1", "replicate")
	raw, err := json.Marshal(b.Status())
	if err != nil {
		t.Fatal(err)
	}
	want := `{"command":"migrate","started":"2023-11-14T22:13:20Z","now":"2023-11-14T22:13:20Z","sample_seconds":5,` +
		`"streams":[{"name":"s1","kind":"replicate","phase":"starting","phase_since":"2023-11-14T22:13:20Z","source":"","target":"",` +
		`"read_position":"","applied_position":"","lag_seconds":null,"rows_per_second":0,"changes":0,"queue":0,"last_error":null,` +
		`"policy_changes":[],"lag_history":[]}],"snapshots":[],"verifies":[],"cutovers":[],"alters":[],"merged_topics":[]}`
	if string(raw) != want {
		t.Fatalf("JSON\n got %s\nwant %s", raw, want)
	}
}

// TestErrorsShowNoRowContent: an apply error keeps the table, the
// position and the cause on the board, not the row's key, the SQL or the
// target's detail line (PostgreSQL quotes the failing row there), also
// when wrapped.
func TestErrorsShowNoRowContent(t *testing.T) {
	pe := &pipeline.Error{Table: schema.TableID{Database: "shop", Name: "users"}, Op: model.Insert,
		Key: "id=42", SQL: "INSERT INTO shop.users VALUES ('alice@example.com')",
		Err: errors.New("violates check constraint \"email_ok\""), Detail: "Failing row contains (42, alice@example.com)"}
	err := fmt.Errorf("replicate: %w", pe)
	if !strings.Contains(err.Error(), "alice@example.com") {
		t.Fatalf("the test's error does not carry the row: %v", err)
	}
	c := &clock{t: time.Unix(1_700_000_000, 0)}
	b := newTestBoard(c, time.Hour)
	b.Stream("s", "replicate").Fail(err)
	b.Snapshot("s").Finish(err)
	st := b.Status()
	for _, msg := range []string{st.Streams[0].LastError.Message, st.Snapshots[0].LastError.Message} {
		if strings.Contains(msg, "alice") || strings.Contains(msg, "42") {
			t.Errorf("the board shows the row: %q", msg)
		}
		if !strings.HasPrefix(msg, "replicate: apply: ") || !strings.Contains(msg, "shop.users") || !strings.Contains(msg, `violates check constraint "email_ok"`) {
			t.Errorf("the board's message lost the table or the cause: %q", msg)
		}
	}
}

// TestConcurrentUse: publishers, the sampler and readers at once (run
// with -race); the counts read back are the ones published.
func TestConcurrentUse(t *testing.T) {
	b := New(Options{Command: "replicate", Every: time.Millisecond, History: time.Second})
	var changes atomic.Int64
	s := b.Stream("s", "replicate")
	s.Attach(func() Reading { return Reading{Lag: 1, Changes: changes.Load()} }, nil)
	s.SetPhase(PhaseReplicating)
	snap := b.Snapshot("s")
	snap.Attach(func() []TableReading { return []TableReading{{Name: "d.t", Rows: changes.Load(), EstimatedRows: 1000}} })
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { b.Run(ctx); close(done) }()
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				switch w {
				case 0:
					changes.Add(1)
				case 1:
					s.Fail(fmt.Errorf("loss %d", i))
				default:
					_ = b.Status()
				}
			}
		}()
	}
	wg.Wait()
	cancel()
	<-done
	st := b.Status()
	if st.Streams[0].Changes != 200 || st.Snapshots[0].Rows != 200 || st.Streams[0].LastError.Message != "loss 199" {
		t.Fatalf("after the concurrent updates: %+v / %+v", st.Streams[0], st.Snapshots[0])
	}
	if n := len(st.Streams[0].LagHistory); n > 1000 {
		t.Fatalf("the history holds %d points, bounded by 1000 (1 s of 1 ms samples)", n)
	}
}
