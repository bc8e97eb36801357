package stream

import (
	"context"
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/pipeline"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
)

// runStandby runs the stream once this process leads it (kafkasink.Lead),
// and stops when it no longer does: a standby took over (exit 2).
func runStandby(ctx context.Context, o Options) error {
	l, err := kafkasink.Lead(ctx, o.Brokers, o.Prefix, o.Stream, o.Log)
	if err != nil {
		if ctx.Err() != nil {
			return nil
		}
		return err
	}
	defer l.Close()
	err = runShards(l.Ctx, o)
	if l.Lost() || kafkasink.IsFenced(err) {
		return exitcode.ConfigError(fmt.Errorf("stream %q: this process no longer leads the stream: %w while it was not running "+
			"or not answering; it writes nothing more and exits", o.Stream, pipeline.ErrTakenOver))
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}
