package snapshot

import (
	"context"
	"time"
)

// finalReport sums the run state over all passes.
func (r *runner) finalReport(ctx context.Context) (*Report, error) {
	rep := r.report
	rep.Position = r.Pos
	rep.Resumed = r.resumed
	r.stats.fill(rep)
	rep.Seconds = since(r.start)
	rep.CopiedRows, rep.CopiedBytes = r.prog.totals()
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
func (r *runner) alreadyComplete(ctx context.Context, run *runState) (*Report, error) {
	rep := r.report
	rep.AlreadyComplete = true
	rep.Position, rep.Pass, rep.Method, rep.LockHeldMS = run.Position, run.Pass, run.Method, run.LockHeldMS
	rep.Seconds = since(r.start)
	if err := r.sumChunks(ctx, rep); err != nil {
		return nil, err
	}
	r.collectWarnings()
	return rep, nil
}

// sumChunks fills the totals, per-table lines and policy counts from the
// chunk records (which cover every pass of the run).
func (r *runner) sumChunks(ctx context.Context, rep *Report) error {
	changes := map[[3]string]int64{}
	rep.Tables, rep.Rows, rep.Bytes, rep.PerTable = len(r.jobs), 0, 0, nil
	for _, j := range r.jobs {
		chunks, err := r.w.LoadChunks(ctx, j.Source.TableID)
		if err != nil {
			return err
		}
		tr := TableReport{Source: j.Source.TableID.String(), Target: j.Out.TargetName(), Chunks: len(chunks)}
		for _, c := range chunks {
			tr.Rows += c.Rows
			tr.Bytes += c.Bytes
			mergeChanges(changes, c.Changes)
		}
		j.Out.FillReport(&tr)
		rep.Rows += tr.Rows
		rep.Bytes += tr.Bytes
		rep.PerTable = append(rep.PerTable, tr)
	}
	rep.Changes = changeList(changes)
	return nil
}

// collectWarnings adds the DDL plan warnings to the report.
func (r *runner) collectWarnings() {
	for _, j := range r.jobs {
		r.report.Warnings = append(r.report.Warnings, j.Out.PlanWarnings()...)
	}
}

func since(t time.Time) float64 { return time.Since(t).Seconds() }
