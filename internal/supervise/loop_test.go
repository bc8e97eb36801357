package supervise

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"testing"
	"time"
)

var (
	errLost  = errors.New("lost")
	errOther = errors.New("lost the source")
	errTaken = errors.New("taken over")
	errStop  = errors.New("a refused row")
	errAgain = errors.New("again")
)

// fake is a clock that moves only by the loop's waits, and a record of them.
type fake struct {
	now   time.Time
	waits []time.Duration
}

func (f *fake) policy(classify func(error, bool) (Class, *Retry)) Policy {
	return Policy{Classify: classify, Now: func() time.Time { return f.now }, After: func(d time.Duration) <-chan time.Time {
		f.waits = append(f.waits, d)
		f.now = f.now.Add(d)
		c := make(chan time.Time, 1)
		c <- f.now
		return c
	}}
}

// step is one fake attempt: its error, and whether it got going first.
type step struct {
	err     error
	running bool
}

// script runs the steps in order and records each attempt's retrying flag;
// past the last step the attempt ends with errStop.
func script(steps []step, retrying *[]bool) Attempt {
	i := 0
	return func(_ context.Context, r bool, running func()) error {
		*retrying = append(*retrying, r)
		if i >= len(steps) {
			return errStop
		}
		s := steps[i]
		i++
		if s.running {
			running()
		}
		return s.err
	}
}

func classes(target, other *Retry) func(error, bool) (Class, *Retry) {
	return func(err error, _ bool) (Class, *Retry) {
		switch {
		case errors.Is(err, errLost):
			return Lost, target
		case errors.Is(err, errOther):
			return Lost, other
		case errors.Is(err, errTaken):
			return TakenOver, nil
		case errors.Is(err, errAgain):
			return Again, nil
		}
		return Stop, nil
	}
}

// giveUps records the Try of each give-up and abandon.
type giveUps struct{ tries []string }

func (g *giveUps) retry(limit time.Duration, target bool) *Retry {
	return &Retry{Limit: limit, Target: target,
		GiveUp: func(t Try, err error) error {
			g.tries = append(g.tries, fmt.Sprintf("give up %d %s", t.Attempt, t.Lost))
			return fmt.Errorf("gave up: %w", err)
		},
		Abandon: func(t Try, err error) error {
			g.tries = append(g.tries, fmt.Sprintf("abandon %d %s", t.Attempt, t.Lost))
			return fmt.Errorf("abandoned: %w", err)
		}}
}

func TestBackoff(t *testing.T) {
	var got []time.Duration
	for a := 1; a <= 8; a++ {
		got = append(got, Backoff(a))
	}
	want := []time.Duration{1, 2, 4, 8, 16, 30, 30, 30}
	for i := range want {
		want[i] *= time.Second
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("backoff %v, want %v", got, want)
	}
}

// TestLoopLimit: a loss is retried 1 s doubling until the limit is passed,
// then the give-up names the attempts and the time since the loss.
func TestLoopLimit(t *testing.T) {
	f := &fake{now: time.Unix(1000, 0)}
	g := &giveUps{}
	var retrying []bool
	steps := []step{{err: errLost}, {err: errLost}, {err: errLost}, {err: errLost}, {err: errLost}}
	err := Loop(context.Background(), f.policy(classes(g.retry(10*time.Second, true), nil)), script(steps, &retrying))
	if err == nil || err.Error() != "gave up: lost" {
		t.Fatalf("err %v, want the give-up", err)
	}
	if want := []time.Duration{time.Second, 2 * time.Second, 4 * time.Second, 8 * time.Second}; !reflect.DeepEqual(f.waits, want) {
		t.Fatalf("waits %v, want %v", f.waits, want)
	}
	if want := []string{"give up 4 15s"}; !reflect.DeepEqual(g.tries, want) {
		t.Fatalf("give-ups %q, want %q", g.tries, want)
	}
	if want := []bool{false, true, true, true, true}; !reflect.DeepEqual(retrying, want) {
		t.Fatalf("retrying %v, want %v", retrying, want)
	}
}

// TestLoopResetAfterRunning: a loss after a run that got going is a new
// one: its pacing starts at 1 s and it has the whole limit again, however
// long the loss before lasted.
func TestLoopResetAfterRunning(t *testing.T) {
	f := &fake{now: time.Unix(1000, 0)}
	g := &giveUps{}
	var retrying []bool
	var warned []Try
	target := g.retry(10*time.Second, true)
	target.Warn = func(t Try, _ error) { warned = append(warned, t) }
	reach := &Reachable{}
	reach.Set(true)
	var seen []bool
	p := f.policy(classes(target, nil))
	p.Reachable = reach
	steps := []step{{err: errLost}, {err: errLost}, {err: errLost}, {err: errLost, running: true}, {err: errLost}, {err: errStop}}
	attempt := script(steps, &retrying)
	err := Loop(context.Background(), p, func(ctx context.Context, r bool, running func()) error {
		seen = append(seen, reach.Up())
		return attempt(ctx, r, running)
	})
	if err == nil || err.Error() != "abandoned: a refused row" {
		t.Fatalf("err %v, want the refused row as an abandoned retry", err)
	}
	s := time.Second
	want := []Try{{1, 0, s}, {2, s, 2 * s}, {3, 3 * s, 4 * s}, {1, 0, s}, {2, s, 2 * s}}
	if !reflect.DeepEqual(warned, want) {
		t.Fatalf("tries %v, want %v", warned, want)
	}
	if want := []string{"abandon 2 3s"}; !reflect.DeepEqual(g.tries, want) {
		t.Fatalf("give-ups %q, want %q", g.tries, want)
	}
	if want := []bool{false, true, true, true, true, true}; !reflect.DeepEqual(retrying, want) {
		t.Fatalf("retrying %v, want %v", retrying, want)
	}
	// The gauge: 0 from the first loss on (the fourth run got going, 1,
	// and lost the target again, 0).
	if want := []bool{true, false, false, false, false, false}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("reachable before each attempt %v, want %v", seen, want)
	}
}

// TestLoopReachable: the gauge reads 1 while a run goes, 0 while a target
// loss is retried, and a loss of another kind leaves it alone.
func TestLoopReachable(t *testing.T) {
	f := &fake{now: time.Unix(1000, 0)}
	g := &giveUps{}
	reach := &Reachable{}
	reach.Set(true)
	p := f.policy(classes(g.retry(time.Minute, true), g.retry(Forever, false)))
	p.Reachable = reach
	var seen []bool
	var retrying []bool
	steps := []step{{running: true, err: errLost}, {running: true, err: errOther}, {err: errOther}, {running: true}}
	attempt := script(steps, &retrying)
	err := Loop(context.Background(), p, func(ctx context.Context, r bool, running func()) error {
		seen = append(seen, reach.Up())
		return attempt(ctx, r, func() { running(); seen = append(seen, reach.Up()) })
	})
	if err != nil {
		t.Fatalf("err %v, want nil (the last run ended)", err)
	}
	if want := []bool{true, true, false, true, true, true, true}; !reflect.DeepEqual(seen, want) {
		t.Fatalf("reachable %v, want %v", seen, want)
	}
	if want := []bool{false, true, false, false}; !reflect.DeepEqual(retrying, want) {
		t.Fatalf("retrying %v, want %v (a source loss is no target retry)", retrying, want)
	}
	if want := []time.Duration{time.Second, time.Second, 2 * time.Second}; !reflect.DeepEqual(f.waits, want) {
		t.Fatalf("waits %v, want %v", f.waits, want)
	}
}

// TestLoopClasses: a takeover ends with its error even while a loss is
// retried; Again runs at once; a negative limit never retries; a stop
// without a pending loss is the error as it is.
func TestLoopClasses(t *testing.T) {
	g := &giveUps{}
	cases := []struct {
		name  string
		limit time.Duration
		steps []step
		err   string
		waits int
		tries []string
	}{
		{"taken over while retrying", time.Minute, []step{{err: errLost}, {err: errTaken}}, "taken over", 1, nil},
		{"again", time.Minute, []step{{err: errAgain}, {err: errAgain}, {}}, "", 0, nil},
		{"never retried", -1, []step{{err: errLost}}, "gave up: lost", 0, []string{"give up 0 0s"}},
		{"stop", time.Minute, []step{{err: errStop}}, "a refused row", 0, nil},
		{"stop after a source loss", time.Minute, []step{{err: errOther}, {err: errStop}}, "a refused row", 1, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := &fake{now: time.Unix(1000, 0)}
			g.tries = nil
			var retrying []bool
			other := &Retry{Limit: Forever}
			err := Loop(context.Background(), f.policy(classes(g.retry(c.limit, true), other)), script(c.steps, &retrying))
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != c.err || len(f.waits) != c.waits || !reflect.DeepEqual(g.tries, c.tries) {
				t.Fatalf("err %q, %d waits, give-ups %q; want %q, %d, %q", got, len(f.waits), g.tries, c.err, c.waits, c.tries)
			}
		})
	}
}

// TestLoopCancelled: a stop (a signal) is nil when the attempt ended
// cancelled or lost, and the attempt's own error otherwise.
func TestLoopCancelled(t *testing.T) {
	for _, c := range []struct {
		err  error
		want error
	}{{nil, nil}, {context.Canceled, nil}, {fmt.Errorf("connect: %w", context.Canceled), nil}, {errLost, nil}, {errStop, errStop}} {
		ctx, cancel := context.WithCancel(context.Background())
		f := &fake{}
		g := &giveUps{}
		err := Loop(ctx, f.policy(classes(g.retry(time.Minute, true), nil)), func(context.Context, bool, func()) error {
			cancel()
			return c.err
		})
		if !errors.Is(err, c.want) || (c.want == nil && err != nil) || len(f.waits) != 0 || len(g.tries) != 0 {
			t.Errorf("attempt ended %v after a signal: Loop returned %v (%d waits, %q), want %v", c.err, err, len(f.waits), g.tries, c.want)
		}
	}
}

// TestLoopBefore: Before runs before each attempt; its error ends the loop
// (nil when ctx ended).
func TestLoopBefore(t *testing.T) {
	f := &fake{}
	g := &giveUps{}
	var calls int
	p := f.policy(classes(g.retry(time.Minute, true), nil))
	p.Before = func(context.Context) error {
		calls++
		if calls == 3 {
			return errStop
		}
		return nil
	}
	var retrying []bool
	err := Loop(context.Background(), p, script([]step{{err: errAgain}, {err: errAgain}}, &retrying))
	if !errors.Is(err, errStop) || calls != 3 || len(retrying) != 2 {
		t.Fatalf("err %v after %d Before calls and %d attempts, want errStop, 3, 2", err, calls, len(retrying))
	}
}

// TestEvery: f runs on each tick until it says done, or until ctx ends.
func TestEvery(t *testing.T) {
	n := 0
	Every(context.Background(), time.Millisecond, func() bool { n++; return n == 3 })
	if n != 3 {
		t.Fatalf("f ran %d times, want 3 (done at the third)", n)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	Every(ctx, time.Hour, func() bool { t.Fatal("f ran after ctx ended"); return true })
}

// TestLoopTellsLost: Lost hears of each loss that is retried, once per
// wait, and not of the stop that ends the loop.
func TestLoopTellsLost(t *testing.T) {
	f := &fake{now: time.Unix(1000, 0)}
	g := &giveUps{}
	p := f.policy(classes(g.retry(time.Minute, true), g.retry(Forever, false)))
	var told []error
	p.Lost = func(err error) { told = append(told, err) }
	var retrying []bool
	steps := []step{{running: true, err: errLost}, {err: errLost}, {running: true, err: errOther}, {running: true}}
	if err := Loop(context.Background(), p, script(steps, &retrying)); err != nil {
		t.Fatalf("err %v, want nil (the last run ended)", err)
	}
	if len(told) != len(f.waits) || len(told) == 0 {
		t.Fatalf("Lost told %d times (%v), want once per wait (%d)", len(told), told, len(f.waits))
	}
}
