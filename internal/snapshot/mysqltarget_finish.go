package snapshot

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
)

// finish records the position, exactly as the PostgreSQL snapshot does: the
// checkpoint and the schema history version 1 that replicate starts from,
// and the run's completion, in one target transaction. The foreign keys came
// with the CREATE TABLEs (the load ran with foreign_key_checks off).
func (r *myRunner) finish(ctx context.Context) error {
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback()
	if !r.pos.IsZero() {
		if err := withUniqueChecks(ctx, tx, func() error {
			if err := mysqlstate.Save(ctx, tx, r.o.Stream, checkpoint.State{Position: r.pos, SchemaVersion: 1}); err != nil {
				return err
			}
			return mysqlstate.SaveSchema(ctx, tx, r.o.Stream, 1, r.pos, "", r.b.cat.Tables, nil)
		}); err != nil {
			return err
		}
	}
	if err := mysqlstate.CompleteSnapshotRun(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: record the snapshot position: %w", err)
	}
	return nil
}

// finalReport sums the run state over all passes.
func (r *myRunner) finalReport(ctx context.Context) (*Report, error) {
	rep := r.b.report
	rep.Position = r.pos
	rep.Resumed = r.resumed
	r.stats.fill(rep)
	rep.Seconds = since(r.b.start)
	rep.CopiedRows, rep.CopiedBytes = r.b.prog.totals()
	if rep.Seconds > 0 {
		rep.MBPerSec = float64(rep.CopiedBytes) / 1e6 / rep.Seconds
	}
	if err := r.sumChunks(ctx, rep); err != nil {
		return nil, err
	}
	r.collectWarnings()
	return rep, nil
}

// alreadyComplete reports a finished run without touching anything.
func (r *myRunner) alreadyComplete(ctx context.Context, run *runState) (*Report, error) {
	rep := r.b.report
	rep.AlreadyComplete = true
	rep.Position, rep.Pass, rep.Method, rep.LockHeldMS = run.Position, run.Pass, run.Method, run.LockHeldMS
	rep.Seconds = since(r.b.start)
	if err := r.sumChunks(ctx, rep); err != nil {
		return nil, err
	}
	r.collectWarnings()
	return rep, nil
}

// sumChunks fills the totals and the per-table lines from the chunk rows
// (every pass of the run), with this run's copy rate per table.
func (r *myRunner) sumChunks(ctx context.Context, rep *Report) error {
	rep.Tables, rep.Rows, rep.Bytes, rep.PerTable = len(r.b.jobs), 0, 0, nil
	for _, j := range r.b.jobs {
		chunks, err := mysqlstate.LoadSnapshotChunks(ctx, r.db, r.o.Stream, j.t.Database, j.t.Name)
		if err != nil {
			return err
		}
		tr := TableReport{Source: j.t.TableID.String(), Target: j.my.qname, Chunks: len(chunks)}
		for _, c := range chunks {
			tr.Rows += c.Rows
			tr.Bytes += c.Bytes
		}
		j.my.mu.Lock()
		tr.Seconds = j.my.seconds
		if j.my.seconds > 0 {
			tr.MBPerSec = float64(j.my.bytes) / 1e6 / j.my.seconds
		}
		j.my.mu.Unlock()
		rep.Rows += tr.Rows
		rep.Bytes += tr.Bytes
		rep.PerTable = append(rep.PerTable, tr)
	}
	return nil
}
