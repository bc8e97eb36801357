package reverse

import (
	"context"
	"time"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/source/postgres/lsnpos"
	"github.com/sluice-db/sluice/internal/source/postgres/pgoutput"
	"github.com/sluice-db/sluice/internal/supervise"
)

// superviseRun runs the stream and the applier (supervise.Run): the stream
// stops first (signal, caught up, or a failure), then apply commits what it
// received.
func superviseRun(ctx context.Context, o Options, applier *pipeline.Applier, stream *pgoutput.Stream, until pglogrepl.LSN) error {
	watch := []func(context.Context, func(string)){func(ctx context.Context, _ func(string)) {
		supervise.Every(ctx, o.StatusEvery, func() bool {
			o.Log.Info("reverse: status", "applied", model.PositionString(applier.Position()),
				"checkpoint", model.PositionString(applier.SavedPosition()), "received", stream.Received().String(),
				"queue", applier.QueueDepth(), "skipped_sluice_origin", stream.Skipped())
			return false
		})
	}}
	if o.UntilCaughtUp {
		watch = append(watch, func(ctx context.Context, stop func(string)) { caughtUp(ctx, applier, until, stop) })
	}
	streamErr, applyErr := supervise.Run{
		Source: stream, Apply: applier.Run, Watch: watch, DrainTimeout: o.DrainTimeout,
		StreamFailed: "PostgreSQL stream failed", StreamEnded: "stream ended",
		Stopping: func(why string) { o.Log.Info("reverse: stopping; apply commits what it received", "why", why) },
		DrainTimedOut: func() {
			o.Log.Warn("reverse: apply did not finish within the drain timeout; stopping it (the checkpoint stays at what is committed)")
		}}.Go(ctx)
	o.Log.Info("reverse: stopped", "applied", model.PositionString(applier.Position()))
	if applyErr != nil {
		return applyErr
	}
	return streamErr
}

// caughtUp is --until-caught-up: it stops the stream once MySQL's
// checkpoint is past until (the marker of what PostgreSQL had committed).
func caughtUp(ctx context.Context, applier *pipeline.Applier, until pglogrepl.LSN, stop func(string)) {
	supervise.Every(ctx, 200*time.Millisecond, func() bool {
		if at, _ := lsnpos.From(applier.SavedPosition()); at > until {
			stop("caught up")
			return true
		}
		return false
	})
}
