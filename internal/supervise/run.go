package supervise

import (
	"context"
	"errors"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source"
)

// Run is one attempt's stream and apply (Config). The stream stops first
// (a signal, a watcher's reason, or a failure); the end of its channel lets
// apply commit what it has and return, bounded by DrainTimeout.
type Run struct {
	// Source reads changes into out until ctx ends (nil) or it fails, and
	// closes out when it returns: the binlog forward, pgoutput on the way
	// back (internal/source).
	Source source.Stream
	// Apply commits what arrives on in until in is closed.
	Apply func(ctx context.Context, in <-chan *model.Txn) error
	// Watch run beside the stream (status lines, --until-caught-up, a
	// re-copy request) until Run returns; stop(why) ends the stream.
	Watch []func(ctx context.Context, stop func(why string))
	// DrainTimeout bounds apply's commit of what it received once the
	// stream stopped.
	DrainTimeout time.Duration
	// StreamFailed and StreamEnded are the reasons given to Stopping when
	// the stream returns an error or nil ("" for nil: apply ends on its own).
	StreamFailed, StreamEnded string
	// Stopping logs the first reason to stop; DrainTimedOut that apply
	// was stopped at the drain timeout. The log texts are each command's.
	Stopping      func(why string)
	DrainTimedOut func()
}

// Go runs the stream and apply until both returned. applyErr is nil when
// apply was only cancelled (the drain timeout).
func (c Run) Go(ctx context.Context) (streamErr, applyErr error) {
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	// apply must outlive a cancelled ctx to drain: it stops when its input closes.
	applyCtx, stopApply := context.WithCancel(context.WithoutCancel(ctx))
	defer stopApply()
	// Shallow: a fragment of a large transaction is up to --max-txn-memory/16,
	// and what waits here is outside the pipeline's memory bound.
	ch := make(chan *model.Txn, 4)
	streamDone, applyDone := make(chan error, 1), make(chan error, 1)
	go func() { streamDone <- c.Source.Run(streamCtx, ch) }()
	go func() { applyDone <- c.Apply(applyCtx, ch) }()
	watchCtx, stopWatch := context.WithCancel(ctx)
	defer stopWatch()
	stops := make(chan string)
	stop := func(why string) {
		select {
		case stops <- why:
		case <-watchCtx.Done():
		}
	}
	for _, w := range c.Watch {
		go w(watchCtx, stop)
	}
	streamRunning, applyRunning := true, true
	var drain <-chan time.Time
	stopping := func(why string) {
		if drain == nil {
			c.Stopping(why)
			drain = time.After(c.DrainTimeout)
		}
		stopStream()
	}
	ctxDone := ctx.Done()
	for streamRunning || applyRunning {
		select {
		case streamErr = <-streamDone:
			streamRunning = false
			if streamErr != nil {
				stopping(c.StreamFailed)
			} else if c.StreamEnded != "" {
				stopping(c.StreamEnded)
			}
		case applyErr = <-applyDone:
			applyRunning = false
			stopping("apply ended")
		case <-ctxDone:
			ctxDone = nil
			stopping("signal")
		case why := <-stops:
			stopping(why)
		case <-drain:
			c.DrainTimedOut()
			stopApply()
			drain = nil
		}
	}
	if errors.Is(applyErr, context.Canceled) {
		applyErr = nil
	}
	return streamErr, applyErr
}

// Every calls f every d until ctx ends or f says it is done: the body of a
// watcher that polls (a status line, a caught-up check).
func Every(ctx context.Context, d time.Duration, f func() (done bool)) {
	tick := time.NewTicker(d)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			if f() {
				return
			}
		}
	}
}
