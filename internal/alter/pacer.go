package alter

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// writePacer is the default throttle: it keeps the application's write
// rate to the table — the table's row changes per second committed to the
// binlog — at or above --keep-write-rate of its rate without the copy. On a
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
//
// Each rate is counted between two markers (rateMeter): the changes the
// binlog holds between them, over the time between their commits, known
// once the binlog reader has read the second one.
type writePacer struct {
	keep     float64                 // target share of the baseline; 0: off
	meter    rateMeter               // counts the table's committed changes
	hold     func() (release func()) // stops the appliers (nil: none)
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
	// first: the first baseline measured (the report's WriteRate).
	first    float64
	measured bool
}

// firstBaseline is the first baseline measured and whether there was one.
func (p *writePacer) firstBaseline() (float64, bool) {
	if p == nil {
		return 0, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.first, p.measured
}

func newWritePacer(keep float64, meter rateMeter, hold func() func(), log *slog.Logger) *writePacer {
	p := &writePacer{keep: keep, meter: meter, hold: hold, log: log, window: 2 * time.Second, maxPause: 5 * time.Second}
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
	if p == nil {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keep > 0 && !p.futile
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

// probe measures the baseline: the table's changes committed during a
// window with no chunk in flight, none started and the appliers stopped.
// The copy waits until the binlog reader has read the window, at most
// readerWait, then goes on unpaced until it has.
func (p *writePacer) probe(ctx context.Context) error {
	p.mu.Lock()
	p.probing = true
	p.mu.Unlock()
	released := false
	release := func() {
		if !released {
			released = true
			p.release()
		}
	}
	defer release()
	for deadline := time.Now().Add(30 * time.Second); p.chunksInFlight() > 0 && time.Now().Before(deadline); {
		if err := sleep(ctx, 20*time.Millisecond); err != nil {
			return err
		}
	}
	a, b, err := p.quietWindow(ctx)
	if err != nil {
		return err
	}
	rate, n, err := p.rateBetween(ctx, a, b, p.readerWait())
	if errors.Is(err, errAwaitTimeout) {
		p.log.Info("the binlog reader has not read the write rate's window yet: the copy goes on unpaced until it has",
			"waited", p.readerWait())
		release()
		rate, n, err = p.rateBetween(ctx, a, b, time.Hour)
	}
	if err != nil {
		return err
	}
	p.mu.Lock()
	// (atMaxSum/atMaxN stay for judge; the next window at the longest
	// pause starts them again.)
	p.baseline, p.atMax = rate, time.Time{}
	if !p.measured {
		p.first, p.measured = rate, true
	}
	keep := p.keep
	p.mu.Unlock()
	p.log.Info("write rate of the table without the copy", "changes_per_s", fmt.Sprintf("%.0f", rate),
		"changes", n, "over", b.at.Sub(a.at).Round(time.Millisecond), "keep", fmt.Sprintf("%.0f%%", 100*keep))
	if rate == 0 {
		p.log.Info("the table was not written while the write rate was measured: the copy is not paced")
	}
	return nil
}

// readerWait bounds the copy's wait for the binlog reader in probe.
func (p *writePacer) readerWait() time.Duration { return 5 * p.window }

// quietWindow marks the start and the end of a window with the appliers
// stopped.
func (p *writePacer) quietWindow(ctx context.Context) (a, b point, err error) {
	if p.hold != nil {
		defer p.hold()()
	}
	if a, err = p.meter.mark(ctx); err != nil {
		return a, b, err
	}
	if err = sleep(ctx, p.window); err != nil {
		return a, b, err
	}
	b, err = p.meter.mark(ctx)
	return a, b, err
}

// rateBetween is the table's changes per second committed between a and b
// (and their count), once the binlog reader has read b (at most timeout).
func (p *writePacer) rateBetween(ctx context.Context, a, b point, timeout time.Duration) (float64, int64, error) {
	nb, err := p.meter.before(ctx, b, timeout)
	if err != nil {
		return 0, 0, err
	}
	na, err := p.meter.before(ctx, a, timeout) // read before b
	if err != nil {
		return 0, 0, err
	}
	n := nb - na
	return float64(n) / max(b.at.Sub(a.at), time.Millisecond).Seconds(), n, nil
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
// ends. A marker that cannot be written ends the pacing (logged).
func (p *writePacer) run(ctx context.Context) {
	err := p.probe(ctx)
	var prev point
	if err == nil {
		prev, err = p.meter.mark(ctx)
	}
	for err == nil && sleep(ctx, p.window) == nil {
		var cur point
		if cur, err = p.meter.mark(ctx); err != nil {
			break
		}
		var rate float64
		var n int64
		if rate, n, err = p.rateBetween(ctx, prev, cur, time.Hour); err != nil {
			break
		}
		prev = cur
		if !p.step(rate, n, cur.at) {
			continue
		}
		if err = p.probe(ctx); err != nil || p.judge(p.meanAtMax()) {
			break
		}
		prev, err = p.meter.mark(ctx)
	}
	if err != nil && ctx.Err() == nil {
		p.log.Warn("the copy is not paced from here on: the write rate cannot be measured", "err", err)
		p.mu.Lock()
		p.pause, p.why = 0, ""
		p.mu.Unlock()
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

// step adjusts the pause to the rate of the last window, n changes, and
// says whether the baseline is to be measured again.
func (p *writePacer) step(rate float64, n int64, now time.Time) (reprobe bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.futile || p.keep <= 0 {
		return false
	}
	// No change in the window: the application is idle, which says
	// nothing of what the copy costs it.
	if p.baseline <= 0 || n == 0 {
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

// setKeep changes --keep-write-rate while the run goes on (a control-file
// line): the next window's step paces against the new target; 0 stops the
// pacing (the pause after each chunk ends at once).
func (p *writePacer) setKeep(keep float64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.keep = keep
	if keep <= 0 {
		p.pause, p.why = 0, ""
	}
}

// keepShare is the current --keep-write-rate.
func (p *writePacer) keepShare() float64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.keep
}
