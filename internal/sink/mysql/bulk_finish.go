package mysql

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
)

// Finish creates the views and routines, then records the position, exactly
// as the PostgreSQL snapshot does: the checkpoint and the schema history
// version 1 that replicate starts from, and the run's completion, in one
// target transaction. The foreign keys came with the CREATE TABLEs (the load
// ran with foreign_key_checks off).
func (r *myWriter) Finish(ctx context.Context) error {
	if err := r.copyObjects(ctx); err != nil {
		return err
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if !r.Pos.IsZero() {
		if err := withUniqueChecks(ctx, tx, func() error {
			if err := mysqlstate.Save(ctx, tx, r.Opts.Stream, checkpoint.State{Position: r.Pos, SchemaVersion: 1}); err != nil {
				return err
			}
			return mysqlstate.SaveSchema(ctx, tx, r.Opts.Stream, 1, r.Pos, "", r.Cat.Tables, nil)
		}); err != nil {
			return err
		}
	}
	if err := mysqlstate.CompleteSnapshotRun(ctx, tx, r.Opts.Stream); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: record the snapshot position: %w", err)
	}
	return nil
}
