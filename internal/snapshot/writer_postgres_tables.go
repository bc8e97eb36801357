package snapshot

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
)

// targetProblems: none beyond each table's.
func (r *pgWriter) targetProblems(context.Context) ([]string, error) { return nil, nil }

// existing compares a target table with its plan (ddl.CheckExisting: the
// planned columns).
func (r *pgWriter) existing(ctx context.Context, j *tableJob) (bool, *mismatch, error) {
	exists, err := ddl.CheckExisting(ctx, r.pg, j.out.(*pgTable).plan, r.naming)
	switch {
	case err != nil && !exists:
		return false, nil, fmt.Errorf("target: %w", err)
	case err != nil:
		return true, &mismatch{plain: err.Error(),
			dataOnly: err.Error() + " (--data-only copies into the tables as they are; create them with --schema-only)"}, nil
	}
	return exists, nil, nil
}

func (r *pgWriter) hasRows(ctx context.Context, j *tableJob) (bool, error) {
	rows, err := postgres.HasRows(ctx, r.pg, j.out.(*pgTable).ident)
	if err != nil {
		return false, fmt.Errorf("target: %w", err)
	}
	return rows, nil
}

// createTables applies the actions and records the run, in one
// transaction: either every table exists and the run is recorded, or
// nothing changed.
func (r *pgWriter) createTables(ctx context.Context, acts map[schema.TableID]action) error {
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
				q := "ALTER TABLE " + j.out.targetName() + " DROP CONSTRAINT IF EXISTS " + pgx.Identifier{ddl.ConstraintName(r.naming.Ident(fk.Name))}.Sanitize()
				if _, err := tx.Exec(ctx, q); err != nil {
					return fmt.Errorf("target: %s: %w", q, err)
				}
			}
		}
	}
	tables := make([]*schema.Table, len(r.cat.Tables))
	copy(tables, r.cat.Tables)
	if err := insertRun(ctx, tx, r.o.Stream, r.runFingerprint(), tables); err != nil {
		return err
	}
	if err := checkpoint.RecordNaming(ctx, tx, r.o.Stream, r.naming.Options()); err != nil {
		return err
	}
	for _, j := range r.jobs {
		j.state = newTableState(j, acts, r.naming.Schema(j.t.Database))
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
// keys out of CREATE TABLE (a data run: finishTable adds them after the data).
func (r *pgWriter) applyActions(ctx context.Context, tx pgx.Tx, acts map[schema.TableID]action, keyless bool) error {
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
		plan := j.out.(*pgTable).plan
		create := plan.Create
		if keyless {
			create = plan.CreateKeyless
		}
		switch acts[j.t.TableID] {
		case actCreate:
			stmts = append(stmts, create...)
		case actReplace:
			stmts = append(stmts, ddl.DropTable(j.t.TableID, r.naming)...)
			stmts = append(stmts, create...)
		case actTruncate:
			stmts = append(stmts, "TRUNCATE "+plan.QName)
		}
	}
	for _, s := range stmts {
		if _, err := tx.Exec(ctx, s); err != nil {
			return fmt.Errorf("target: %s: %w", firstLine(s), err)
		}
	}
	return nil
}

// replicator names the replicators of the stream into this target.
func (r *pgWriter) replicator(ctx context.Context) (string, error) {
	holders, err := checkpoint.StreamHolders(ctx, r.pg, r.o.Stream)
	if err != nil || len(holders) == 0 {
		return "", err
	}
	return checkpoint.Describe(holders), nil
}

// forget drops the tables the run created, empties the ones it reused,
// deletes the run state, the checkpoint and the schema history of the
// stream. One transaction.
func (r *pgWriter) forget(ctx context.Context) (int, error) {
	states, err := loadTableStates(ctx, r.pg, r.o.Stream)
	if err != nil {
		return 0, err
	}
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return 0, fmt.Errorf("target: %w", err)
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
	if err := deleteRun(ctx, tx, r.o.Stream); err != nil {
		return 0, err
	}
	if err := checkpoint.Delete(ctx, tx, r.o.Stream); err != nil {
		return 0, err
	}
	if err := checkpoint.DeleteRecopy(ctx, tx, r.o.Stream); err != nil {
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
	for _, j := range r.jobs {
		names = append(names, j.out.(*pgTable).ident.Sanitize())
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

// schemaOnly creates the tables, indexes, foreign keys and sequences.
func (r *pgWriter) schemaOnly(ctx context.Context, acts map[schema.TableID]action) error {
	tx, err := r.pg.Begin(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	defer tx.Rollback(ctx)
	if err := r.applyActions(ctx, tx, acts, false); err != nil {
		return err
	}
	for _, j := range r.jobs {
		plan := j.out.(*pgTable).plan
		for _, s := range append(append([]string{}, plan.PostData...), plan.Finish...) {
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("target: %s: %s: %w", j.t.TableID, firstLine(s), err)
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
