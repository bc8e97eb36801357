package pipeline

import (
	"context"
	"time"
)

// checkpointLoop saves the low watermark every CheckpointInterval, and a
// last time once the workers have drained (or, best effort, on cancel).
// After each save the sink syncs its own bookkeeping (Sink.Sync).
func (a *Applier) checkpointLoop(ctx context.Context, drained <-chan struct{}) error {
	t := time.NewTicker(a.cfg.CheckpointInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := a.saveCheckpoint(ctx, false); err != nil {
				return err
			}
			if err := a.sync(ctx, false); err != nil {
				return err
			}
			if err := a.heartbeat(ctx); err != nil {
				return err
			}
		case <-drained:
			if err := a.saveCheckpoint(ctx, true); err != nil {
				return err
			}
			return a.sync(ctx, true)
		case <-ctx.Done():
			// Whatever committed is already recorded in the applied records,
			// so this save only shortens the next start's skip list.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.saveCheckpoint(fctx, true); err != nil {
				a.cfg.Log.Warn("apply: final checkpoint on stop failed (the next start is still exact)", "error", err)
			}
			if err := a.sync(fctx, true); err != nil {
				a.cfg.Log.Warn("apply: target bookkeeping (identity sequences) not brought up to the replicated rows on stop", "error", err)
			}
			return nil
		}
	}
}

// saveCheckpoint has the sink write the watermark and delete the applied
// records it covers, in one target transaction. It never moves the
// checkpoint backwards: all checkpoint writers hold ckMu. The last save of a
// run waits until it is durable, the periodic ones need not: a lost
// checkpoint only means an older one with its applied rows, which is just
// as exact.
func (a *Applier) saveCheckpoint(ctx context.Context, durable bool) error {
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	wm := a.tr.watermark()
	if wm.pos == nil || (wm.pos == a.saved.pos && wm.schemaVersion == a.saved.schemaVersion) {
		return nil
	}
	if wm.pos.Compare(a.saved.pos) < 0 {
		return a.errorf("watermark %s is behind the saved checkpoint %s (a bug)", wm.pos, a.saved.pos)
	}
	covered := a.takeCovered(wm.pos)
	err := a.sink.SaveCheckpoint(ctx, State{Position: wm.pos, SchemaVersion: wm.schemaVersion, SourceTime: wm.ts},
		covered, durable)
	if err != nil {
		a.restoreCovered(covered)
		return a.errorf("save checkpoint: %w", err)
	}
	a.setSaved(wm)
	return nil
}

// sync runs Sink.Sync under ckMu, as schema changes run: a table it names is
// never renamed or dropped under it.
func (a *Applier) sync(ctx context.Context, final bool) error {
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	return a.sink.Sync(ctx, final)
}

// Heartbeater is a sink that shows a standby replicator it is alive
// (sink/postgres standby.go); the checkpoint loop calls it every
// CheckpointInterval, also when there is nothing to save.
type Heartbeater interface {
	Heartbeat(ctx context.Context) error
}

// heartbeat calls the sink's Heartbeat, serialised with the checkpoint
// writes (both use the sink's leader session).
func (a *Applier) heartbeat(ctx context.Context) error {
	h, ok := a.sink.(Heartbeater)
	if !ok {
		return nil
	}
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	return h.Heartbeat(ctx)
}
