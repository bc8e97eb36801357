package apply

import (
	"context"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// checkpointLoop saves the low watermark every CheckpointInterval, and a
// last time once the workers have drained (or, best effort, on cancel).
func (a *Applier) checkpointLoop(ctx context.Context, conn *pgxpool.Conn, drained <-chan struct{}) error {
	t := time.NewTicker(a.cfg.CheckpointInterval)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			if err := a.saveCheckpoint(ctx, conn, false); err != nil {
				return err
			}
			if err := a.syncSequences(ctx, conn, false); err != nil {
				return err
			}
		case <-drained:
			if err := a.saveCheckpoint(ctx, conn, true); err != nil {
				return err
			}
			return a.syncSequences(ctx, conn, true)
		case <-ctx.Done():
			// Whatever committed is already recorded in sluice.applied, so
			// this save only shortens the next start's skip list.
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
			defer cancel()
			if err := a.saveCheckpoint(fctx, conn, true); err != nil {
				a.cfg.Log.Warn("apply: final checkpoint on stop failed (the next start is still exact)", "error", err)
			}
			if err := a.syncSequences(fctx, conn, true); err != nil {
				a.cfg.Log.Warn("apply: identity sequences not moved past the replicated rows on stop", "error", err)
			}
			return nil
		}
	}
}

// saveCheckpoint writes the watermark to sluice.checkpoint and deletes the
// sluice.applied rows it covers, in one transaction on the run's fenced
// session. It never moves the checkpoint backwards: all checkpoint writers
// hold ckMu. The last save of a run waits for its WAL flush (durable), the
// periodic ones need not: a lost checkpoint only means an older one with
// its applied rows, which is just as exact.
func (a *Applier) saveCheckpoint(ctx context.Context, conn *pgxpool.Conn, durable bool) error {
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
	err := pgx.BeginFunc(ctx, conn, func(tx pgx.Tx) error {
		if durable {
			if _, err := tx.Exec(ctx, `SET LOCAL synchronous_commit = on`); err != nil {
				return err
			}
		}
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
