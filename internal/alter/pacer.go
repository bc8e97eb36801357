package alter

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// writePacer is the default throttle: it keeps the application's write
// rate to the table — the table's row changes the binlog reader sees per
// second — at or above --keep-write-rate of its rate without the copy. On a
// server whose CPU the application already uses, every chunk copied is CPU
// the application does not get; a threshold on a status variable
// (--max-load) does not say how much the application lost, its own
// rate does. The copy workers pause after each chunk; the pause doubles
// while the rate is below the target and shrinks while it is above. The
// baseline is measured with the copy and the appliers stopped before the
// copy starts, and again when the pause has sat at its longest for a while
// (the application's load may have fallen for reasons of its own; the
// appliers are stopped then too, or the backlog they work on would lower
// the baseline and with it the target). Otherwise the appliers are not
// paced: they must keep up with the writes for the run to finish.
type writePacer struct {
	keep     float64                          // target share of the baseline; 0: off
	count    func() (n int64, last time.Time) // table changes read so far, commit time of the last
	hold     func() (release func())          // stops the appliers (nil: none)
	log      *slog.Logger
	window   time.Duration // of each measurement
	maxPause time.Duration // the longest pause after a chunk

	mu       sync.Mutex
	cond     *sync.Cond
	baseline float64       // changes/s without the copy
	pause    time.Duration // after each chunk
	atMax    time.Time     // since when pause == maxPause
	atMaxSum float64       // the rates seen since, for their mean
	atMaxN   int
	probing  bool   // copy held while the baseline is measured
	inFlight int    // chunks being copied
	why      string // the progress line's note
	// futile: at the longest pause the rate stayed below the target of a
	// fresh baseline, so the copy is not what costs the application its
	// rate (the binlog apply is, which must go on): pacing would only make
	// the change last longer. The copy runs at full speed from then on.
	futile bool
}

func newWritePacer(keep float64, count func() (int64, time.Time), hold func() func(), log *slog.Logger) *writePacer {
	p := &writePacer{keep: keep, count: count, hold: hold, log: log, window: 2 * time.Second, maxPause: 5 * time.Second}
	p.cond = sync.NewCond(&p.mu)
	return p
}

// begin is called before a chunk is copied: it waits while the baseline is
// measured, then counts the chunk in flight.
func (p *writePacer) begin(ctx context.Context) error {
	if p == nil {
		return nil
	}
	stop := context.AfterFunc(ctx, func() {
		p.mu.Lock()
		p.cond.Broadcast()
		p.mu.Unlock()
	})
	defer stop()
	p.mu.Lock()
	defer p.mu.Unlock()
	for p.probing {
		if err := ctx.Err(); err != nil {
			return err
		}
		p.cond.Wait()
	}
	p.inFlight++
	return nil
}

// end is called after a chunk: it ends its flight and pauses the worker.
func (p *writePacer) end(ctx context.Context) error {
	if p == nil {
		return nil
	}
	p.mu.Lock()
	p.inFlight--
	pause := p.pause
	p.cond.Broadcast()
	p.mu.Unlock()
	if pause == 0 {
		return nil
	}
	return sleep(ctx, pause)
}

// active says whether the pacer still paces (on, and not found futile).
func (p *writePacer) active() bool {
	if p == nil || p.keep <= 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.futile
}

// note is the pacer's state for the progress line ("" when not pacing).
func (p *writePacer) note() string {
	if p == nil {
		return ""
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.why
}

// probe measures the baseline with no chunk in flight and none started.
func (p *writePacer) probe(ctx context.Context) error {
	p.mu.Lock()
	p.probing = true
	p.mu.Unlock()
	defer p.release()
	for deadline := time.Now().Add(30 * time.Second); p.chunksInFlight() > 0 && time.Now().Before(deadline); {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	if p.hold != nil {
		defer p.hold()()
	}
	n0, _ := p.count()
	start := time.Now()
	if err := sleep(ctx, p.window); err != nil {
		return err
	}
	n1, _ := p.count()
	rate := float64(n1-n0) / time.Since(start).Seconds()
	p.mu.Lock()
	// (atMaxSum/atMaxN stay for judge; the next window at the longest
	// pause starts them again.)
	p.baseline, p.atMax = rate, time.Time{}
	p.mu.Unlock()
	p.log.Info("write rate of the table without the copy", "changes_per_s", fmt.Sprintf("%.0f", rate),
		"keep", fmt.Sprintf("%.0f%%", 100*p.keep))
	return nil
}

func (p *writePacer) chunksInFlight() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.inFlight
}

func (p *writePacer) release() {
	p.mu.Lock()
	p.probing = false
	p.cond.Broadcast()
	p.mu.Unlock()
}

// run measures the baseline, then adjusts the pause every window until ctx
// ends.
func (p *writePacer) run(ctx context.Context) {
	if err := p.probe(ctx); err != nil {
		return
	}
	n0, _ := p.count()
	t0 := time.Now()
	for sleep(ctx, p.window) == nil {
		n1, last := p.count()
		rate := float64(n1-n0) / time.Since(t0).Seconds()
		n0, t0 = n1, time.Now()
		if p.step(rate, last, t0) {
			if err := p.probe(ctx); err != nil {
				return
			}
			if p.judge(p.meanAtMax()) {
				return
			}
			n0, _ = p.count()
			t0 = time.Now()
		}
	}
}

// meanAtMax is the mean rate of the windows at the longest pause.
func (p *writePacer) meanAtMax() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.atMaxN == 0 {
		return 0
	}
	return p.atMaxSum / float64(p.atMaxN)
}

// judge compares the rate seen at the longest pause with the target of the
// baseline just measured: below it, pacing is futile and ends (true).
func (p *writePacer) judge(rateAtMax float64) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if rateAtMax >= p.keep*p.baseline {
		return false // the application's load fell on its own: pace on against the new baseline
	}
	p.futile, p.pause, p.why = true, 0, ""
	p.log.Info("pacing the copy does not keep the table's write rate (at the longest pause it stayed below the target): "+
		"the cost is the binlog apply, which must go on; the copy runs at full speed to finish sooner",
		"changes_per_s", fmt.Sprintf("%.0f", rateAtMax), "target", fmt.Sprintf("%.0f", p.keep*p.baseline))
	return true
}

// step adjusts the pause to the rate of the last window and says whether
// the baseline is to be measured again.
func (p *writePacer) step(rate float64, last, now time.Time) (reprobe bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.futile {
		return false
	}
	// No change read lately: the application is idle or the reader is
	// behind (a resumed run replays); neither says what the copy costs.
	if p.baseline <= 0 || now.Sub(last) > 2*p.window {
		return false
	}
	target := p.keep * p.baseline
	switch {
	case rate < target:
		p.pause = min(max(2*p.pause, 100*time.Millisecond), p.maxPause)
	case rate >= target:
		p.pause = p.pause * 3 / 4
		if p.pause < 20*time.Millisecond {
			p.pause = 0
		}
	}
	p.why = ""
	if p.pause > 0 {
		p.why = fmt.Sprintf("copy paced: %.0f table changes/s, target %.0f (%.0f%% of %.0f); %s after each chunk",
			rate, target, 100*p.keep, p.baseline, p.pause.Round(time.Millisecond))
	}
	if p.pause < p.maxPause {
		p.atMax, p.atMaxSum, p.atMaxN = time.Time{}, 0, 0
		return false
	}
	if p.atMax.IsZero() {
		p.atMax, p.atMaxSum, p.atMaxN = now, 0, 0
	}
	p.atMaxSum, p.atMaxN = p.atMaxSum+rate, p.atMaxN+1
	return now.Sub(p.atMax) >= 15*p.window
}
