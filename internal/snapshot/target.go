package snapshot

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
)

// action is what a new run does with one target table.
type action int

const (
	actCreate   action = iota // no such table: create it
	actReuse                  // exists with the planned columns and no rows
	actReplace                // --drop-existing: drop and create
	actTruncate               // --data-only --drop-existing: empty it
)

// checkTargets decides, for a new run, what happens to each target table,
// and refuses (exit 2, every problem at once) tables that exist with other
// columns or with rows, unless --drop-existing.
func (r *runner) checkTargets(ctx context.Context) (map[schema.TableID]action, error) {
	acts := map[schema.TableID]action{}
	var problems []string
	for _, j := range r.jobs {
		exists, err := ddl.CheckExisting(ctx, r.pg, j.plan, r.naming)
		switch {
		case err != nil && !exists:
			return nil, fmt.Errorf("target: %w", err)
		case err != nil && r.o.DataOnly:
			problems = append(problems, err.Error()+" (--data-only copies into the tables as they are; create them with --schema-only)")
			continue
		case err != nil && r.o.DropExisting:
			acts[j.t.TableID] = actReplace
			continue
		case err != nil:
			problems = append(problems, err.Error())
			continue
		case !exists && r.o.DataOnly:
			problems = append(problems, fmt.Sprintf("target table %s does not exist: --data-only needs the tables; "+
				"create them with --schema-only first, or run without --data-only", j.plan.QName))
			continue
		case !exists:
			acts[j.t.TableID] = actCreate
			continue
		}
		rows, err := postgres.HasRows(ctx, r.pg, j.ident)
		if err != nil {
			return nil, fmt.Errorf("target: %w", err)
		}
		switch {
		case !rows:
			acts[j.t.TableID] = actReuse
		case r.o.DropExisting && r.o.DataOnly:
			acts[j.t.TableID] = actTruncate
		case r.o.DropExisting:
			acts[j.t.TableID] = actReplace
		default:
			problems = append(problems, fmt.Sprintf("target table %s already holds rows and stream %q has no interrupted "+
				"snapshot to resume: empty or drop it, or re-run with --drop-existing to replace it", j.plan.QName, r.o.Stream))
		}
	}
	if len(problems) > 0 {
		return nil, exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
	}
	return acts, nil
}

// createTargets applies the actions and records the run, in one
// transaction: either every table exists and the run is recorded, or
// nothing changed.
func (r *runner) createTargets(ctx context.Context, acts map[schema.TableID]action) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.applyActions(ctx, tx, acts, true); err != nil {
		return err
	}
	if r.o.DataOnly {
		// The foreign keys sluice planned (created by --schema-only) would
		// reject child rows copied before their parents: drop them now,
		// finish() adds them back after all data.
		for _, j := range r.jobs {
			for _, fk := range j.t.ForeignKeys {
				q := "ALTER TABLE " + j.plan.QName + " DROP CONSTRAINT IF EXISTS " + pgx.Identifier{ddl.ConstraintName(r.naming.Ident(fk.Name))}.Sanitize()
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("target: %s: %w", q, err)
				}
			}
		}
	}
	tables := make([]*schema.Table, len(r.cat.Tables))
	copy(tables, r.cat.Tables)
	if err := insertRun(ctx, tx, r.o.Stream, r.o.fingerprint(), tables); err != nil {
		return err
	}
	if err := checkpoint.RecordNaming(ctx, tx, r.o.Stream, r.naming.Options()); err != nil {
		return err
	}
	for _, j := range r.jobs {
		a := acts[j.t.TableID]
		j.state = &tableState{ID: j.t.TableID, TargetSchema: r.naming.Schema(j.t.Database), Created: a == actCreate || a == actReplace}
		if err := insertTable(ctx, tx, r.o.Stream, *j.state); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("target: create tables: %w", err)
	}
	return nil
}

// applyActions creates the schemas and tables; keyless leaves the primary
// keys out of CREATE TABLE (a data run: postData adds them after the data).
func (r *runner) applyActions(ctx context.Context, tx pgx.Tx, acts map[schema.TableID]action, keyless bool) error {
	var stmts []string
	if !r.o.DataOnly {
		done := map[string]bool{}
		for _, d := range r.cat.Databases {
			if s := ddl.CreateSchema(d.Name, r.naming); !done[s] {
				done[s] = true
				stmts = append(stmts, s)
			}
		}
	}
	for _, j := range r.jobs {
		create := j.plan.Create
		if keyless {
			create = j.plan.CreateKeyless
		}
		switch acts[j.t.TableID] {
		case actCreate:
			stmts = append(stmts, create...)
		case actReplace:
			stmts = append(stmts, ddl.DropTable(j.t.TableID, r.naming)...)
			stmts = append(stmts, create...)
		case actTruncate:
			stmts = append(stmts, "TRUNCATE "+j.plan.QName)
		}
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("target: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " ..."
	}
	return s
}

// checkResume makes sure an interrupted run can be continued: the same
// options and the same source tables (DDL in between would make the copied
// chunks and the new ones disagree).
func (r *runner) checkResume(ctx context.Context, run *runState) error {
	if fp := r.o.fingerprint(); !reflect.DeepEqual(fp, run.Fingerprint) {
		return exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot started with other options "+
			"(then %s, now %s): re-run with the same options to resume it, or add --restart to start over",
			r.o.Stream, fpText(run.Fingerprint), fpText(fp)))
	}
	if changed := changedTables(run.Tables, r.cat.Tables); len(changed) > 0 {
		return exitcode.ConfigError(fmt.Errorf("the source schema changed since the interrupted snapshot of stream %q "+
			"(tables %s): the copied part no longer matches; re-run with --restart", r.o.Stream, strings.Join(changed, ", ")))
	}
	states, err := loadTableStates(ctx, r.pg, r.o.Stream)
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		if j.state = states[j.t.TableID]; j.state == nil {
			return exitcode.ConfigError(fmt.Errorf("the interrupted snapshot of stream %q has no record of table %s: re-run with --restart",
				r.o.Stream, j.t.TableID))
		}
	}
	r.resumed = true
	r.pass = run.Pass
	return nil
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

// restart forgets the stream's snapshot: drops the tables the run created,
// empties the ones it reused, deletes the run state, the checkpoint and
// the schema history of the stream. One transaction.
func (r *runner) restart(ctx context.Context) error {
	// Starting over under a running replicator would pull its state from
	// under it: refuse at once, naming it.
	holders, err := checkpoint.StreamHolders(ctx, r.pg, r.o.Stream)
	if err != nil {
		return err
	}
	if len(holders) > 0 {
		return exitcode.ConfigError(fmt.Errorf("snapshot --restart: stream %q is being replicated into this target by %s: "+
			"stop that replicator first (or use another --stream)", r.o.Stream, checkpoint.Describe(holders)))
	}
	states, err := loadTableStates(ctx, r.pg, r.o.Stream)
	if err != nil {
		return err
	}
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	for _, st := range states {
		tname := r.naming.Table(st.ID)
		ident := pgx.Identifier{st.TargetSchema, tname}.Sanitize()
		var stmts []string
		if st.Created {
			stmts = []string{"DROP TABLE IF EXISTS " + ident + " CASCADE",
				"DROP FUNCTION IF EXISTS " + pgx.Identifier{st.TargetSchema, ddl.OnUpdateFunction(tname)}.Sanitize() + "() CASCADE"}
		} else {
			cols, err := postgres.TableColumns(ctx, tx, st.TargetSchema, tname)
			if err != nil {
				return err
			}
			if cols != nil {
				stmts = []string{"TRUNCATE " + ident}
			}
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("restart: %s: %w", s, err)
			}
		}
	}
	if err := deleteRun(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := checkpoint.Delete(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := checkpoint.DeleteRecopy(ctx, tx, r.o.Stream); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("restart: %w", err)
	}
	r.log.Info("restart: previous snapshot state removed", "stream", r.o.Stream, "tables", len(states))
	return nil
}

// detectForeignKeys finds foreign keys on or to the target tables that
// this run did not plan to drop (tables the user created): TRUNCATE would
// fail on them, so chunks are cleared with DELETE.
func (r *runner) detectForeignKeys(ctx context.Context) error {
	var names []string
	for _, j := range r.jobs {
		names = append(names, j.ident.Sanitize())
	}
	var n int
	err := r.pg.QueryRow(ctx, `SELECT count(*) FROM pg_constraint
		WHERE contype = 'f' AND (conrelid = ANY($1::regclass[]) OR confrelid = ANY($1::regclass[]))`, names).Scan(&n)
	if err != nil {
		return fmt.Errorf("target: look for foreign keys: %w", err)
	}
	r.replicaRole = n > 0
	if r.replicaRole {
		r.log.Info("target tables have foreign keys: clearing with DELETE, not TRUNCATE", "foreign_keys", n)
	}
	return nil
}

// schemaOnly creates the tables, indexes, foreign keys and sequences, and
// copies nothing; no run state or position is recorded.
func (r *runner) schemaOnly(ctx context.Context, run *runState) (*Report, error) {
	if run != nil && run.Status != "complete" {
		return nil, exitcode.ConfigError(fmt.Errorf("stream %q has an interrupted snapshot: resume it (run without --schema-only) "+
			"or add --restart to start over", r.o.Stream))
	}
	acts, err := r.checkTargets(ctx)
	if err != nil {
		return nil, err
	}
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.applyActions(ctx, tx, acts, false); err != nil {
		return nil, err
	}
	for _, j := range r.jobs {
		for _, s := range append(append([]string{}, j.plan.PostData...), j.plan.Finish...) {
			if _, err := tx.Exec(ctx, s); err != nil {
				return nil, fmt.Errorf("target: %s: %s: %w", j.t.TableID, firstLine(s), err)
			}
		}
	}
	if err := r.addForeignKeys(ctx, tx); err != nil {
		return nil, err
	}
	if err := tx.Commit(ctx); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	r.report.Tables = len(r.jobs)
	r.collectWarnings()
	r.report.Seconds = since(r.start)
	return r.report, nil
}
