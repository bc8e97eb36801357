package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// TargetProblems: none beyond each table's.
func (r *pgWriter) TargetProblems(context.Context) ([]string, error) { return nil, nil }

// Existing compares a target table with its plan (ddl.CheckExisting: the
// planned columns).
func (r *pgWriter) Existing(ctx context.Context, j *bulkrun.Job) (bool, *bulkrun.Mismatch, error) {
	exists, err := ddl.CheckExisting(ctx, r.pg, j.Out.(*pgTable).plan, r.Naming)
	switch {
	case err != nil && !exists:
		return false, nil, fmt.Errorf("target: %w", err)
	case err != nil:
		return true, &bulkrun.Mismatch{Plain: err.Error(),
			DataOnly: err.Error() + " (--data-only copies into the tables as they are; create them with --schema-only)"}, nil
	}
	return exists, nil, nil
}

func (r *pgWriter) HasRows(ctx context.Context, j *bulkrun.Job) (bool, error) {
	rows, err := HasRows(ctx, r.pg, j.Out.(*pgTable).ident)
	if err != nil {
		return false, fmt.Errorf("target: %w", err)
	}
	return rows, nil
}

// CreateTables applies the actions and records the run, in one
// transaction: either every table exists and the run is recorded, or
// nothing changed.
func (r *pgWriter) CreateTables(ctx context.Context, acts map[schema.TableID]bulkrun.Action) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.applyActions(ctx, tx, acts, true); err != nil {
		return err
	}
	if r.Opts.DataOnly {
		// The foreign keys sluice planned (created by --schema-only) would
		// reject child rows copied before their parents: drop them now,
		// finish() adds them back after all data.
		for _, j := range r.Jobs {
			for _, fk := range j.Source.ForeignKeys {
				q := "ALTER TABLE " + j.Out.TargetName() + " DROP CONSTRAINT IF EXISTS " + pgx.Identifier{ddl.ConstraintName(r.Naming.Ident(fk.Name))}.Sanitize()
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("target: %s: %w", q, err)
				}
			}
		}
	}
	tables := make([]*schema.Table, len(r.Cat.Tables))
	copy(tables, r.Cat.Tables)
	if err := insertRun(ctx, tx, r.Opts.Stream, r.RunFingerprint(), tables); err != nil {
		return err
	}
	if err := checkpoint.RecordNaming(ctx, tx, r.Opts.Stream, r.Naming.Options()); err != nil {
		return err
	}
	for _, j := range r.Jobs {
		j.State = bulkrun.NewTableState(j, acts, r.Naming.Schema(j.Source.Database))
		if err := insertTable(ctx, tx, r.Opts.Stream, *j.State); err != nil {
			return err
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("target: create tables: %w", err)
	}
	return nil
}

// applyActions creates the schemas and tables; keyless leaves the primary
// keys out of CREATE TABLE (a data run: finishTable adds them after the data).
func (r *pgWriter) applyActions(ctx context.Context, tx pgx.Tx, acts map[schema.TableID]bulkrun.Action, keyless bool) error {
	var stmts []string
	if !r.Opts.DataOnly {
		done := map[string]bool{}
		for _, d := range r.Cat.Databases {
			if s := ddl.CreateSchema(d.Name, r.Naming); !done[s] {
				done[s] = true
				stmts = append(stmts, s)
			}
		}
	}
	for _, j := range r.Jobs {
		plan := j.Out.(*pgTable).plan
		create := plan.Create
		if keyless {
			create = plan.CreateKeyless
		}
		switch acts[j.Source.TableID] {
		case bulkrun.ActCreate:
			stmts = append(stmts, create...)
		case bulkrun.ActReplace:
			stmts = append(stmts, ddl.DropTable(j.Source.TableID, r.Naming)...)
			stmts = append(stmts, create...)
		case bulkrun.ActTruncate:
			stmts = append(stmts, "TRUNCATE "+plan.QName)
		}
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("target: %s: %w", bulkrun.FirstLine(s), err)
		}
	}
	return nil
}

// Replicator names the replicators of the stream into this target.
func (r *pgWriter) Replicator(ctx context.Context) (string, error) {
	holders, err := checkpoint.StreamHolders(ctx, r.pg, r.Opts.Stream)
	if err != nil || len(holders) == 0 {
		return "", err
	}
	return checkpoint.Describe(holders), nil
}

// Forget drops the tables the run created, empties the ones it reused,
// deletes the run state, the checkpoint and the schema history of the
// stream. One transaction.
func (r *pgWriter) Forget(ctx context.Context) (int, error) {
	states, err := loadTableStates(ctx, r.pg, r.Opts.Stream)
	if err != nil {
		return 0, err
	}
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	for _, st := range states {
		tname := r.Naming.Table(st.ID)
		ident := pgx.Identifier{st.TargetSchema, tname}.Sanitize()
		var stmts []string
		if st.Created {
			stmts = []string{"DROP TABLE IF EXISTS " + ident + " CASCADE",
				"DROP FUNCTION IF EXISTS " + pgx.Identifier{st.TargetSchema, ddl.OnUpdateFunction(tname)}.Sanitize() + "() CASCADE"}
		} else {
			cols, err := TableColumns(ctx, tx, st.TargetSchema, tname)
			if err != nil {
				return 0, err
			}
			if cols != nil {
				stmts = []string{"TRUNCATE " + ident}
			}
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s); err != nil {
				return 0, fmt.Errorf("restart: %s: %w", s, err)
			}
		}
	}
	if err := DeleteSnapshotRun(ctx, tx, r.Opts.Stream); err != nil {
		return 0, err
	}
	if err := checkpoint.Delete(ctx, tx, r.Opts.Stream); err != nil {
		return 0, err
	}
	if err := checkpoint.DeleteRecopy(ctx, tx, r.Opts.Stream); err != nil {
		return 0, err
	}
	if err := tx.Commit(ctx); err != nil {
		return 0, fmt.Errorf("restart: %w", err)
	}
	return len(states), nil
}

// detectForeignKeys finds foreign keys on or to the target tables that
// this run did not plan to drop (tables the user created): TRUNCATE would
// fail on them, so chunks are cleared with DELETE.
func (r *pgWriter) detectForeignKeys(ctx context.Context) error {
	var names []string
	for _, j := range r.Jobs {
		names = append(names, j.Out.(*pgTable).ident.Sanitize())
	}
	var n int
	err := r.pg.QueryRow(ctx, `SELECT count(*) FROM pg_constraint
		WHERE contype = 'f' AND (conrelid = ANY($1::regclass[]) OR confrelid = ANY($1::regclass[]))`, names).Scan(&n)
	if err != nil {
		return fmt.Errorf("target: look for foreign keys: %w", err)
	}
	r.replicaRole = n > 0
	if r.replicaRole {
		r.Log.Info("target tables have foreign keys: clearing with DELETE, not TRUNCATE", "foreign_keys", n)
	}
	return nil
}

// SchemaOnly creates the tables, indexes, foreign keys and sequences.
func (r *pgWriter) SchemaOnly(ctx context.Context, acts map[schema.TableID]bulkrun.Action) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.applyActions(ctx, tx, acts, false); err != nil {
		return err
	}
	for _, j := range r.Jobs {
		plan := j.Out.(*pgTable).plan
		for _, s := range append(append([]string{}, plan.PostData...), plan.Finish...) {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("target: %s: %s: %w", j.Source.TableID, bulkrun.FirstLine(s), err)
			}
		}
	}
	if err := r.addForeignKeys(ctx, tx); err != nil {
		return err
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	return nil
}
