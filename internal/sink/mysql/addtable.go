package mysql

import (
	"context"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// The adds of a MySQL target's stream live in its database sluice.
var _ target.TableAdder = (*replica)(nil)

// TargetTableExists: a MySQL target keeps the source's table names, in the
// URL's database (the naming has no renames here).
func (t *replica) TargetTableExists(ctx context.Context, id schema.TableID, _ schema.Naming) (bool, error) {
	var n int
	err := t.db.QueryRowContext(ctx, `SELECT COUNT(*) FROM information_schema.tables
		WHERE table_schema = ? AND table_name = ?`, t.e.cfg.Database, id.Name).Scan(&n)
	if err != nil {
		return false, fmt.Errorf("target: look up table %s: %w", id.Name, err)
	}
	return n > 0, nil
}

func (t *replica) RequestAdd(ctx context.Context, stream string, ids []schema.TableID) error {
	if err := mysqlstate.EnsureAdd(ctx, t.db, t.e.storage); err != nil {
		return err
	}
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := mysqlstate.RequestAdd(ctx, tx, stream, ids); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("target: commit the add request: %w", err)
	}
	return nil
}

func (t *replica) LoadAdds(ctx context.Context, stream string) ([]target.AddRecord, error) {
	return mysqlstate.LoadAdds(ctx, t.db, stream)
}

func (t *replica) SaveAdd(ctx context.Context, stream string, r target.AddRecord) error {
	if err := mysqlstate.EnsureAdd(ctx, t.db, t.e.storage); err != nil {
		return err
	}
	return mysqlstate.SaveAdd(ctx, t.db, stream, r)
}

func (t *replica) ForgetAdds(ctx context.Context, stream string, ids []schema.TableID) error {
	return mysqlstate.ForgetAdds(ctx, t.db, stream, ids)
}
