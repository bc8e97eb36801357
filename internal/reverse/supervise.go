package reverse

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
)

// supervise runs the stream and the applier: the stream stops first
// (signal, caught up, or a failure), then apply commits what it received.
func supervise(ctx context.Context, o Options, applier *pipeline.Applier, stream *pgoutput.Stream, until pglogrepl.LSN) error {
	streamCtx, stopStream := context.WithCancel(ctx)
	defer stopStream()
	applyCtx, stopApply := context.WithCancel(context.WithoutCancel(ctx))
	defer stopApply()
	// Shallow: a fragment of a large transaction is up to --max-txn-memory/16,
	// and what waits here is outside the pipeline's memory bound.
	ch := make(chan *model.Txn, 4)
	streamDone, applyDone := make(chan error, 1), make(chan error, 1)
	go func() {
		err := stream.Run(streamCtx, ch)
		close(ch)
		streamDone <- err
	}()
	go func() { applyDone <- applier.Run(applyCtx, ch) }()
	status := time.NewTicker(o.StatusEvery)
	defer status.Stop()
	poll := time.NewTicker(200 * time.Millisecond)
	defer poll.Stop()
	var streamErr, applyErr error
	streamRunning, applyRunning := true, true
	var drain <-chan time.Time
	stopping := func(why string) {
		if drain == nil {
			o.Log.Info("reverse: stopping; apply commits what it received", "why", why)
			drain = time.After(o.DrainTimeout)
		}
		stopStream()
	}
	ctxDone := ctx.Done()
	for streamRunning || applyRunning {
		select {
		case streamErr = <-streamDone:
			streamRunning = false
			if streamErr != nil {
				stopping("PostgreSQL stream failed")
			} else {
				stopping("stream ended")
			}
		case applyErr = <-applyDone:
			applyRunning = false
			stopping("apply ended")
		case <-ctxDone:
			ctxDone = nil
			stopping("signal")
		case <-poll.C:
			if o.UntilCaughtUp {
				if at, _ := lsnpos.From(applier.SavedPosition()); at > until {
					stopping("caught up")
				}
			}
		case <-status.C:
			o.Log.Info("reverse: status", "applied", model.PositionString(applier.Position()),
				"checkpoint", model.PositionString(applier.SavedPosition()), "received", stream.Received().String(),
				"queue", applier.QueueDepth(), "skipped_sluice_origin", stream.Skipped())
		case <-drain:
			o.Log.Warn("reverse: apply did not finish within the drain timeout; stopping it (the checkpoint stays at what is committed)")
			stopApply()
			drain = nil
		}
	}
	o.Log.Info("reverse: stopped", "applied", model.PositionString(applier.Position()))
	if applyErr != nil && !errors.Is(applyErr, context.Canceled) {
		return applyErr
	}
	return streamErr
}
