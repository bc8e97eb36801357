package snapshot

import (
	"context"
	"fmt"
	"reflect"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
)

// checkResume makes sure an interrupted run can be continued: the same
// options and the same source tables (DDL in between would make the copied
// chunks and the new ones disagree), a record of every table, and the
// target tables as the run left them (the writer's check).
func (r *runner) checkResume(ctx context.Context, run *runState) error {
	if fp := r.runFingerprint(); !reflect.DeepEqual(fp, run.Fingerprint) {
		return exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot started with other options "+
			"(then %s, now %s): re-run with the same options to resume it, or %s",
			r.o.Stream, fpText(run.Fingerprint), fpText(fp), r.startOver("add --restart to start over")))
	}
	if changed := changedTables(run.Tables, r.Cat.Tables); len(changed) > 0 {
		return exitcode.ConfigError(fmt.Errorf("the source schema changed since the interrupted snapshot of stream %q "+
			"(tables %s): the copied part no longer matches; %s", r.o.Stream, strings.Join(changed, ", "), r.startOver("re-run with --restart")))
	}
	states, err := r.w.TableStates(ctx)
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		if j.State = states[j.Source.TableID]; j.State == nil {
			return exitcode.ConfigError(fmt.Errorf("the interrupted snapshot of stream %q has no record of table %s: %s",
				r.o.Stream, j.Source.TableID, r.startOver("re-run with --restart")))
		}
	}
	if err := r.w.CheckResume(ctx); err != nil {
		return err
	}
	r.resumed = true
	r.Pass = run.Pass
	return nil
}

// startOver is the advice to start an interrupted snapshot over: the
// command's own (Options.StartOver), or def, snapshot's.
func (r *runner) startOver(def string) string {
	if r.o.StartOver != "" {
		return r.o.StartOver
	}
	return def
}

// restart forgets the stream's snapshot (--restart): what its tables and
// state are, the writer knows (forget). Starting over under a running
// replicator would pull its state from under it: refused at once, naming it.
func (r *runner) restart(ctx context.Context) error {
	who, err := r.w.Replicator(ctx)
	if err != nil {
		return err
	}
	if who != "" {
		return exitcode.ConfigError(fmt.Errorf("snapshot --restart: stream %q is being replicated into this target by %s: "+
			"stop that replicator first (or use another --stream)", r.o.Stream, who))
	}
	n, err := r.w.Forget(ctx)
	if err != nil {
		return err
	}
	r.Log.Info("restart: previous snapshot state removed", "stream", r.o.Stream, "tables", n)
	return nil
}

// schemaOnly creates the tables and what belongs to them, and copies
// nothing; no run state or position is recorded.
func (r *runner) schemaOnly(ctx context.Context, run *runState) (*Report, error) {
	if run != nil && run.Status != "complete" {
		return nil, exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot: resume it (run without --schema-only) "+
			"or add --restart to start over", r.o.Stream))
	}
	acts, err := r.checkTargets(ctx)
	if err != nil {
		return nil, err
	}
	if err := r.w.SchemaOnly(ctx, acts); err != nil {
		return nil, err
	}
	r.report.Tables = len(r.jobs)
	r.collectWarnings()
	r.report.Seconds = since(r.start)
	return r.report, nil
}
