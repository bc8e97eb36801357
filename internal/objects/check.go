package objects

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
)

// Check runs every translated statement on the target inside one
// transaction that is rolled back, each object under its own savepoint: an
// object PostgreSQL refuses needs a human (with PostgreSQL's message), and
// so does a view that reads it. The file then runs as a whole.
func (r *Result) Check(ctx context.Context, pool *pgxpool.Pool) error {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("check objects on the target: %w", err)
	}
	defer func() { _ = tx.Rollback(ctx) }()
	// Locks for CREATE TRIGGER must not wait behind a long transaction.
	if _, err := tx.Exec(ctx, "SET LOCAL lock_timeout = '5s'"); err != nil {
		return fmt.Errorf("check objects on the target: %w", err)
	}
	for _, sc := range r.schemas {
		if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+sc); err != nil {
			return fmt.Errorf("check objects on the target: create schema %s: %w", sc, err)
		}
	}
	views := map[string]*Object{}
	for _, o := range r.Objects {
		if o.Kind == KindView {
			views[o.Database+"."+o.Name] = o
		}
		if !o.Translated() {
			continue
		}
		for _, d := range o.deps {
			if v, ok := views[d]; ok && !v.Translated() {
				o.needsHuman("reads view %s, which needs a human", d)
			}
		}
		if !o.Translated() {
			continue
		}
		if err := runSaved(ctx, tx, o.PG); err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("check objects on the target: %w", ctx.Err())
			}
			o.needsHuman("PostgreSQL refused the translation: %v", err)
		}
	}
	r.Checked = true
	return nil
}

func runSaved(ctx context.Context, tx pgx.Tx, stmts []string) error {
	if _, err := tx.Exec(ctx, "SAVEPOINT sluice_object"); err != nil {
		return err
	}
	for _, st := range stmts {
		if _, err := tx.Exec(ctx, st); err != nil {
			if _, rerr := tx.Exec(ctx, "ROLLBACK TO SAVEPOINT sluice_object"); rerr != nil {
				return fmt.Errorf("%v (and rolling back: %v)", err, rerr)
			}
			return fmt.Errorf("%s", strings.TrimSpace(err.Error()))
		}
	}
	_, err := tx.Exec(ctx, "RELEASE SAVEPOINT sluice_object")
	return err
}
