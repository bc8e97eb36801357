package supervise

import (
	"context"
	"errors"
	"math"
	"sync/atomic"
	"time"
)

// Class is what the end of an attempt means for the loop.
type Class int

const (
	// Stop ends the loop with the attempt's error (nil: done).
	Stop Class = iota
	// Lost is a server gone away: wait and run again from the checkpoint,
	// exactly once, within the Retry's limit.
	Lost
	// TakenOver is another run owning the stream (a standby took over):
	// the loop ends with the error as it is (exit 2), never retried and
	// never turned into a give-up.
	TakenOver
	// Again runs the next attempt at once (replicate: a re-copy asked for
	// the way and is done).
	Again
)

// Forever is the Limit of a loss retried without end.
const Forever time.Duration = math.MaxInt64

// Try describes a loss being retried, for the log line and the give-up.
type Try struct {
	Attempt int           // reconnect attempts so far, counting this one
	Lost    time.Duration // since the loss began
	Wait    time.Duration // before the next attempt
}

// Retry is the policy of one kind of loss. Every kind is paced the same
// (Backoff); a loss after a run that got going starts a new count.
type Retry struct {
	// Limit is how long a loss is retried (--target-retry): negative never,
	// Forever without end.
	Limit time.Duration
	// Target marks a loss of the server the command reports reachable:
	// the gauge reads 0 while it lasts and the next attempt runs as a retry.
	Target bool
	// Warn logs the one line per attempt, in the command's own words.
	Warn func(t Try, err error)
	// GiveUp is the error once the limit is passed (nil: err as it is).
	GiveUp func(t Try, err error) error
	// Abandon, when set, is the error of an attempt that stops the loop
	// with another error while this loss is retried.
	Abandon func(t Try, err error) error
}

// Attempt is one run: retrying says a target loss is being retried;
// running is called once the run got going (the server answered).
type Attempt func(ctx context.Context, retrying bool, running func()) error

// Policy is a command's side of the loop.
type Policy struct {
	// Before runs before each attempt (replicate: wait for a re-copy).
	Before func(ctx context.Context) error
	// Classify says what an attempt's error means, and for Lost, which
	// kind of loss it is (never nil then).
	Classify func(err error, retrying bool) (Class, *Retry)
	// Again, when set, is called before an Again attempt (its log line).
	Again func()
	// Reachable, when set, reads 1 while a run goes and 0 while a target
	// loss is retried.
	Reachable *Reachable
	// Lost, when set, is told of each loss about to be retried (the status
	// page shows it while the command reconnects).
	Lost func(err error)
	// Now and After are the clock (nil: time.Now, time.After); tests fake them.
	Now   func() time.Time
	After func(time.Duration) <-chan time.Time
}

// Backoff is the pacing of every retry: 1 s doubling to 30 s.
func Backoff(attempt int) time.Duration {
	return min(time.Second<<min(max(attempt, 1)-1, 5), 30*time.Second)
}

// loss is one kind of loss being retried.
type loss struct {
	retry    *Retry
	since    time.Time
	attempts int
}

// Loop runs attempts until one stops: ctx ending is a graceful stop (nil
// unless the attempt failed otherwise), a loss is retried within its
// Retry, a takeover ends with its error.
func Loop(ctx context.Context, p Policy, attempt Attempt) error {
	now, after := p.Now, p.After
	if now == nil {
		now = time.Now
	}
	if after == nil {
		after = time.After
	}
	var losses []*loss
	for {
		if p.Before != nil {
			if err := p.Before(ctx); err != nil {
				if ctx.Err() != nil {
					return nil
				}
				return err
			}
		}
		retrying := retryingTarget(losses)
		var ran atomic.Bool
		err := attempt(ctx, retrying, func() { ran.Store(true); p.Reachable.Set(true) })
		if ran.Load() {
			// It reconnected and ran: a later loss is a new one, with the
			// whole limit again (not the time since the first).
			losses = nil
		}
		class, retry := Stop, (*Retry)(nil)
		if err != nil {
			class, retry = p.Classify(err, retrying)
		}
		if ctx.Err() != nil {
			// Stopped (a signal) before, while or after starting: nothing
			// half-done; the next start continues from the checkpoint.
			if err == nil || errors.Is(err, context.Canceled) || class == Lost {
				return nil
			}
			return err
		}
		if class == Lost && retry == nil {
			class = Stop // a classification without its Retry: nothing to pace by
		}
		switch class {
		case Again:
			if p.Again != nil {
				p.Again()
			}
			continue
		case TakenOver:
			return err
		case Stop:
			return abandon(losses, now(), err)
		}
		l := find(losses, retry)
		if l == nil {
			l = &loss{retry: retry, since: now()}
			losses = append(losses, l)
		}
		if retry.Target {
			p.Reachable.Set(false)
		}
		t := Try{Attempt: l.attempts, Lost: now().Sub(l.since)}
		if retry.Limit < 0 || t.Lost > retry.Limit {
			if retry.GiveUp == nil {
				return err
			}
			return retry.GiveUp(t, err)
		}
		l.attempts++
		t.Attempt, t.Wait = l.attempts, Backoff(l.attempts)
		if p.Lost != nil {
			p.Lost(err)
		}
		if retry.Warn != nil {
			retry.Warn(t, err)
		}
		select {
		case <-ctx.Done():
			return nil
		case <-after(t.Wait):
		}
	}
}

// find is the loss of kind retry being retried, or nil.
func find(losses []*loss, retry *Retry) *loss {
	for _, l := range losses {
		if l.retry == retry {
			return l
		}
	}
	return nil
}

// retryingTarget says a target loss is being retried.
func retryingTarget(losses []*loss) bool {
	for _, l := range losses {
		if l.retry.Target {
			return true
		}
	}
	return false
}

// abandon is the error of an attempt that stops the loop while losses are
// retried: the first one with an Abandon says so.
func abandon(losses []*loss, now time.Time, err error) error {
	if err == nil {
		return nil
	}
	for _, l := range losses {
		if l.retry.Abandon != nil {
			return l.retry.Abandon(Try{Attempt: l.attempts, Lost: now.Sub(l.since)}, err)
		}
	}
	return err
}
