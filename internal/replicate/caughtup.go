package replicate

import (
	"context"
	"time"

	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// noteIdle is the stream's OnIdle hook (a heartbeat of the idle source). It
// must not block the stream.
func (r *runner) noteIdle(binlogpos.Position) {
	select {
	case r.idle <- struct{}{}:
	default:
	}
}

// watchCaughtUp implements --until-caught-up: when the stream first goes
// idle it reads the source's position (SHOW MASTER STATUS), then closes
// done once apply has committed up to it.
func (r *runner) watchCaughtUp(ctx context.Context, done chan<- struct{}) {
	select {
	case <-ctx.Done():
		return
	case <-r.idle:
	}
	var target binlogpos.Position
	for {
		var err error
		if target, err = r.src.MasterStatus(ctx, r.info); err == nil {
			break
		}
		r.log.Warn("--until-caught-up: cannot read the source position, retrying", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
	}
	r.log.Info("the source is idle; waiting until apply reaches its position", "source_position", target.String())
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if applied := appliedBinlog(r.applier.Position()); reached(applied, target) {
			r.log.Info("caught up with the source", "applied", applied.String(), "source_position", target.String())
			close(done)
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// reached reports whether the applied position covers the target. When the
// target carries no file (a GTID-only start has none until the first event)
// nothing is known to be reached.
func reached(applied, target binlogpos.Position) bool {
	if applied.File == "" || target.File == "" {
		return false
	}
	return applied.Compare(target) >= 0
}
