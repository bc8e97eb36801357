package apply

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// checkpointLoop saves the low watermark every CheckpointInterval, and a
// last time once the workers have drained (or, best effort, on cancel).
func (a *Applier) checkpointLoop(ctx context.Context, drained <-chan struct{}) error {
	t := time.NewTicker(a.cfg.CheckpointInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := a.saveCheckpoint(ctx); err != nil {
				return err
			}
		case <-drained:
			return a.saveCheckpoint(ctx)
		case <-ctx.Done():
			// Whatever committed is already recorded in sluice.applied, so
			// this save only shortens the next start's skip list.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.saveCheckpoint(fctx); err != nil {
				a.cfg.Log.Warn("apply: final checkpoint on stop failed (the next start is still exact)", "error", err)
			}
			return nil
		}
	}
}

// saveCheckpoint writes the watermark to sluice.checkpoint and deletes the
// sluice.applied rows it covers, in one transaction. It runs with
// synchronous_commit on (a pool session), and never moves the checkpoint
// backwards: all checkpoint writers hold ckMu.
func (a *Applier) saveCheckpoint(ctx context.Context) error {
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	wm := a.tr.watermark()
	if wm.pos.IsZero() || (wm.pos == a.saved.pos && wm.schemaVersion == a.saved.schemaVersion) {
		return nil
	}
	if wm.pos.Compare(a.saved.pos) < 0 {
		return a.errorf("watermark %s is behind the saved checkpoint %s (a bug)", wm.pos, a.saved.pos)
	}
	covered := a.takeCovered(wm.pos)
	err := pgx.BeginFunc(ctx, a.pool, func(tx pgx.Tx) error {
		if err := checkpoint.Save(ctx, tx, a.cfg.Stream, checkpoint.State{
			Position: wm.pos, SchemaVersion: wm.schemaVersion, SourceTime: wm.ts}); err != nil {
			return err
		}
		return checkpoint.DeleteAppliedRows(ctx, tx, a.cfg.Stream, covered)
	})
	if err != nil {
		a.restoreCovered(covered)
		return a.errorf("save checkpoint: %w", err)
	}
	a.saved = wm
	return nil
}
