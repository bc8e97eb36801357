package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
)

// action is what a new run does with one target table.
type action int

const (
	actCreate   action = iota // no such table: create it
	actReuse                  // exists with the planned columns and no rows
	actReplace                // --drop-existing: drop and create
	actTruncate               // --data-only --drop-existing: empty it
)

// mismatch is a target table that exists with another definition than
// planned: the refusal, and the one with --data-only.
type mismatch struct{ plain, dataOnly string }

// checkTargets decides, for a new run, what happens to each target table,
// and refuses (exit 2, every problem at once) tables that exist with
// another definition or with rows, unless --drop-existing, and what the
// writer refuses for all of them (targetProblems).
func (r *runner) checkTargets(ctx context.Context) (map[schema.TableID]action, error) {
	problems, err := r.w.targetProblems(ctx)
	if err != nil {
		return nil, err
	}
	acts := map[schema.TableID]action{}
	for _, j := range r.jobs {
		exists, m, err := r.w.existing(ctx, j)
		if err != nil {
			return nil, err
		}
		switch {
		case m != nil && r.o.DataOnly:
			problems = append(problems, m.dataOnly)
		case m != nil && r.o.DropExisting:
			acts[j.t.TableID] = actReplace
		case m != nil:
			problems = append(problems, m.plain)
		case !exists && r.o.DataOnly:
			problems = append(problems, fmt.Sprintf("target table %s does not exist: --data-only needs the tables; "+
				"create them with --schema-only first, or run without --data-only", j.out.targetName()))
		case !exists:
			acts[j.t.TableID] = actCreate
		default:
			rows, err := r.w.hasRows(ctx, j)
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

// refusal is a configuration error listing every problem (nil: none).
func refusal(problems []string) error {
	if len(problems) == 0 {
		return nil
	}
	return exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
}

// existingAction decides what a new run does with a target table that
// exists as planned, by whether it holds rows; a table with rows and no
// --drop-existing is refused (the problem returned).
func (r *runner) existingAction(acts map[schema.TableID]action, j *tableJob, rows bool) (problem string) {
	switch {
	case !rows:
		acts[j.t.TableID] = actReuse
	case r.o.DropExisting && r.o.DataOnly:
		acts[j.t.TableID] = actTruncate
	case r.o.DropExisting:
		acts[j.t.TableID] = actReplace
	default:
		return fmt.Sprintf("target table %s already holds rows and stream %q has no interrupted "+
			"snapshot to resume: empty or drop it, or re-run with --drop-existing to replace it", j.out.targetName(), r.o.Stream)
	}
	return ""
}

// newTableState is a new run's record of a table, created by the run or not.
func newTableState(j *tableJob, acts map[schema.TableID]action, targetSchema string) *tableState {
	a := acts[j.t.TableID]
	return &tableState{ID: j.t.TableID, TargetSchema: targetSchema, Created: a == actCreate || a == actReplace}
}

// runFingerprint is what a resumed run must share with the interrupted one.
func (r *runner) runFingerprint() fingerprint {
	fp := r.o.fingerprint()
	r.w.fingerprint(&fp)
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

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}
