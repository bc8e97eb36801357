package snapshot

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/sluice-db/sluice/internal/schema"
)

// checkTargets decides, for a new run, what happens to each target table,
// and refuses (exit 2, every problem at once) tables that exist with
// another definition or with rows, unless --drop-existing, and what the
// writer refuses for all of them (targetProblems).
func (r *runner) checkTargets(ctx context.Context) (map[schema.TableID]action, error) {
	problems, err := r.w.TargetProblems(ctx)
	if err != nil {
		return nil, err
	}
	acts := map[schema.TableID]action{}
	for _, j := range r.jobs {
		exists, m, err := r.w.Existing(ctx, j.Job)
		if err != nil {
			return nil, err
		}
		switch {
		case m != nil && r.o.DataOnly:
			problems = append(problems, m.DataOnly)
		case m != nil && r.o.DropExisting:
			acts[j.Source.TableID] = actReplace
		case m != nil:
			problems = append(problems, m.Plain)
		case !exists && r.o.DataOnly:
			problems = append(problems, fmt.Sprintf("target table %s does not exist: --data-only needs the tables; "+
				"create them with --schema-only first, or run without --data-only", j.Out.TargetName()))
		case !exists:
			acts[j.Source.TableID] = actCreate
		default:
			rows, err := r.w.HasRows(ctx, j.Job)
			if err != nil {
				return nil, err
			}
			if problem := r.existingAction(acts, j, rows); problem != "" {
				problems = append(problems, problem)
			}
		}
	}
	if err := refusal(problems); err != nil {
		return nil, err
	}
	return acts, nil
}

// existingAction decides what a new run does with a target table that
// exists as planned, by whether it holds rows; a table with rows and no
// --drop-existing is refused (the problem returned).
func (r *runner) existingAction(acts map[schema.TableID]action, j *tableJob, rows bool) (problem string) {
	switch {
	case !rows:
		acts[j.Source.TableID] = actReuse
	case r.o.DropExisting && r.o.DataOnly:
		acts[j.Source.TableID] = actTruncate
	case r.o.DropExisting:
		acts[j.Source.TableID] = actReplace
	default:
		return fmt.Sprintf("target table %s already holds rows and stream %q has no interrupted "+
			"snapshot to resume: empty or drop it, or re-run with --drop-existing to replace it", j.Out.TargetName(), r.o.Stream)
	}
	return ""
}

// runFingerprint is what a resumed run must share with the interrupted one.
func (r *runner) runFingerprint() fingerprint {
	fp := r.o.fingerprint()
	r.w.Fingerprint(&fp)
	return fp
}

func fpText(f fingerprint) string {
	b, _ := json.Marshal(f)
	return string(b)
}

// tableJSON is a table definition for comparisons; the next AUTO_INCREMENT
// value changes with every insert and is not part of the definition.
func tableJSON(t *schema.Table) string {
	c := *t
	c.AutoIncrement = 0
	b, _ := json.Marshal(&c)
	return string(b)
}
