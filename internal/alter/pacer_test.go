package alter

import (
	"context"
	"log/slog"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func TestWritePacerSteps(t *testing.T) {
	p := newWritePacer(0.9, nil, nil, slog.New(slog.DiscardHandler))
	p.baseline = 1000
	now := time.Now()
	steps := []struct {
		rate float64
		n    int64 // changes in the window
		want time.Duration
	}{
		{800, 1600, 100 * time.Millisecond},     // below 900: pause
		{800, 1600, 200 * time.Millisecond},     // still below: doubled
		{950, 1900, 150 * time.Millisecond},     // above: shrunk by a quarter
		{0, 0, 150 * time.Millisecond},          // no change in the window (idle): unchanged
		{899, 1798, 300 * time.Millisecond},     //
		{1000, 2000, 225 * time.Millisecond},    //
		{1000, 2000, 168750 * time.Microsecond}, //
		{0.5, 1, 337500 * time.Microsecond},     //
	}
	for i, s := range steps {
		p.step(s.rate, s.n, now)
		if p.pause != s.want {
			t.Fatalf("step %d (rate %.0f): pause %s, want %s", i, s.rate, p.pause, s.want)
		}
	}
	for p.pause > 0 {
		p.step(2000, 4000, now)
	}
	if p.note() != "" {
		t.Errorf("note %q without a pause", p.note())
	}
	// At the longest pause for 15 windows: measure the baseline again.
	for i := 0; i < 20 && p.pause < p.maxPause; i++ {
		if p.step(1, 2, now) {
			t.Fatal("re-probe before the pause sat at its longest")
		}
	}
	if p.pause != p.maxPause || p.note() == "" {
		t.Fatalf("pause %s (want %s), note %q", p.pause, p.maxPause, p.note())
	}
	reprobe := false
	for i := 0; i <= 15; i++ {
		reprobe = p.step(1, 2, now.Add(time.Duration(i)*p.window))
	}
	if !reprobe {
		t.Error("no re-probe after 15 windows at the longest pause")
	}
}

// fakeMeter counts changes in n; a marker's count is n when it is marked,
// known to "the reader" once lag has passed since.
type fakeMeter struct {
	n     atomic.Int64
	lag   time.Duration
	mu    sync.Mutex
	marks map[int64]int64
}

func (m *fakeMeter) mark(context.Context) (point, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.marks == nil {
		m.marks = map[int64]int64{}
	}
	id := int64(len(m.marks) + 1)
	m.marks[id] = m.n.Load()
	return point{id: id, at: time.Now()}, nil
}

func (m *fakeMeter) before(ctx context.Context, p point, timeout time.Duration) (int64, error) {
	wait := time.Until(p.at.Add(m.lag))
	if wait > timeout {
		if err := sleep(ctx, timeout); err != nil {
			return 0, err
		}
		return 0, errAwaitTimeout
	}
	if err := sleep(ctx, wait); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.marks[p.id], nil
}

// TestWritePacerProbe: the baseline is measured with no chunk in flight,
// and workers wait while it is; it counts the changes between the window's
// markers, however late the reader reads them (it read nothing in the
// window's wall-clock time in 3 of 6 runs under sysbench).
func TestWritePacerProbe(t *testing.T) {
	for _, lag := range []time.Duration{0, 250 * time.Millisecond, 800 * time.Millisecond} {
		m := &fakeMeter{lag: lag}
		p := newWritePacer(0.9, m, nil, slog.New(slog.DiscardHandler))
		p.window = 100 * time.Millisecond
		ctx := context.Background()
		if err := p.begin(ctx); err != nil { // a chunk in flight
			t.Fatal(err)
		}
		probed := make(chan error, 1)
		go func() { probed <- p.probe(ctx) }()
		time.Sleep(50 * time.Millisecond)
		started := make(chan time.Time, 1)
		go func() { _ = p.begin(ctx); started <- time.Now() }()
		select {
		case <-started:
			t.Fatal("a chunk started while the baseline was measured")
		case <-time.After(50 * time.Millisecond):
		}
		if err := p.end(ctx); err != nil { // the chunk ends: the window starts
			t.Fatal(err)
		}
		windowAt := time.Now()
		go func() { // about 2000 changes/s throughout the window
			for i := 0; i < 60; i++ {
				m.n.Add(10)
				time.Sleep(5 * time.Millisecond)
			}
		}()
		if err := <-probed; err != nil {
			t.Fatal(err)
		}
		at := <-started
		if p.baseline < 800 || p.baseline > 2200 {
			t.Errorf("reader lag %s: baseline %.0f changes/s, want about 2000", lag, p.baseline)
		}
		// The copy waits for the reader up to readerWait (500 ms here),
		// then goes on.
		wantBy := windowAt.Add(p.window + min(lag, p.readerWait()) + 200*time.Millisecond)
		if at.After(wantBy) {
			t.Errorf("reader lag %s: the copy started %s after the window, want at most %s", lag, at.Sub(windowAt), wantBy.Sub(windowAt))
		}
		if r, ok := p.firstBaseline(); !ok || r != p.baseline {
			t.Errorf("first baseline %.0f %v, want %.0f measured", r, ok, p.baseline)
		}
	}
}

// TestWritePacerFutile: a rate at the longest pause below the target of a
// fresh baseline ends the pacing; above it, pacing goes on.
func TestWritePacerFutile(t *testing.T) {
	p := newWritePacer(0.9, nil, nil, slog.New(slog.DiscardHandler))
	p.baseline, p.pause = 1000, p.maxPause
	if p.judge(950) || p.futile || p.pause != p.maxPause {
		t.Fatalf("rate 950 against 900: pacing must go on (futile %v, pause %s)", p.futile, p.pause)
	}
	if !p.active() {
		t.Fatal("a pacer still pacing must say active (the checksum then hashes with one session)")
	}
	if !p.judge(850) || !p.futile || p.pause != 0 {
		t.Fatalf("rate 850 against 900: pacing must end (futile %v, pause %s)", p.futile, p.pause)
	}
	if p.active() {
		t.Error("a futile pacer must not say active")
	}
	var none *writePacer
	if none.active() || newWritePacer(0, nil, nil, slog.New(slog.DiscardHandler)).active() {
		t.Error("no pacer, or --keep-write-rate 0, must not say active")
	}
	p.step(1, 2, time.Now())
	if p.pause != 0 || p.note() != "" {
		t.Errorf("paced again after it ended: %s %q", p.pause, p.note())
	}
}
