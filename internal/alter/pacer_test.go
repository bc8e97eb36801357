package alter

import (
	"context"
	"log/slog"
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
		last time.Time
		want time.Duration
	}{
		{800, now, 100 * time.Millisecond},                   // below 900: pause
		{800, now, 200 * time.Millisecond},                   // still below: doubled
		{950, now, 150 * time.Millisecond},                   // above: shrunk by a quarter
		{100, now.Add(-time.Minute), 150 * time.Millisecond}, // nothing read lately: unchanged
		{899, now, 300 * time.Millisecond},                   //
		{1000, now, 225 * time.Millisecond},                  //
		{1000, now, 168750 * time.Microsecond},               //
		{0, now, 337500 * time.Microsecond},                  //
	}
	for i, s := range steps {
		p.step(s.rate, s.last, now)
		if p.pause != s.want {
			t.Fatalf("step %d (rate %.0f): pause %s, want %s", i, s.rate, p.pause, s.want)
		}
	}
	for p.pause > 0 {
		p.step(2000, now, now)
	}
	if p.note() != "" {
		t.Errorf("note %q without a pause", p.note())
	}
	// At the longest pause for 15 windows: measure the baseline again.
	for i := 0; i < 20 && p.pause < p.maxPause; i++ {
		if p.step(1, now, now) {
			t.Fatal("re-probe before the pause sat at its longest")
		}
	}
	if p.pause != p.maxPause || p.note() == "" {
		t.Fatalf("pause %s (want %s), note %q", p.pause, p.maxPause, p.note())
	}
	reprobe := false
	for i := 0; i <= 15; i++ {
		reprobe = p.step(1, now.Add(time.Duration(i)*p.window), now.Add(time.Duration(i)*p.window))
	}
	if !reprobe {
		t.Error("no re-probe after 15 windows at the longest pause")
	}
}

// TestWritePacerProbe: the baseline is measured with no chunk in flight,
// and workers wait while it is.
func TestWritePacerProbe(t *testing.T) {
	var n atomic.Int64
	p := newWritePacer(0.9, func() (int64, time.Time) { return n.Load(), time.Now() }, nil, slog.New(slog.DiscardHandler))
	p.window = 100 * time.Millisecond
	ctx := context.Background()
	if err := p.begin(ctx); err != nil { // a chunk in flight
		t.Fatal(err)
	}
	probed := make(chan error, 1)
	go func() { probed <- p.probe(ctx) }()
	time.Sleep(50 * time.Millisecond)
	started := make(chan struct{})
	go func() { _ = p.begin(ctx); close(started) }()
	select {
	case <-started:
		t.Fatal("a chunk started while the baseline was measured")
	case <-time.After(50 * time.Millisecond):
	}
	if err := p.end(ctx); err != nil { // the chunk ends: the window starts
		t.Fatal(err)
	}
	go func() { // about 2000 changes/s throughout the window
		for i := 0; i < 60; i++ {
			n.Add(10)
			time.Sleep(5 * time.Millisecond)
		}
	}()
	if err := <-probed; err != nil {
		t.Fatal(err)
	}
	<-started
	if p.baseline < 800 || p.baseline > 2200 {
		t.Errorf("baseline %.0f changes/s, want about 2000", p.baseline)
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
	now := time.Now()
	p.step(1, now, now)
	if p.pause != 0 || p.note() != "" {
		t.Errorf("paced again after it ended: %s %q", p.pause, p.note())
	}
}
