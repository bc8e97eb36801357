package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
)

// The adds of a PostgreSQL target's stream live in its schema sluice.
var _ target.TableAdder = (*replica)(nil)

// TargetTableExists looks the table up under the stream's naming (schema
// map, identifier case, renames).
func (t *replica) TargetTableExists(ctx context.Context, id schema.TableID, n schema.Naming) (bool, error) {
	var found bool
	err := t.pool.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", n.QTable(id)).Scan(&found)
	if err != nil {
		return false, fmt.Errorf("target: look up table %s: %w", n.QTable(id), err)
	}
	return found, nil
}

func (t *replica) RequestAdd(ctx context.Context, stream string, ids []schema.TableID) error {
	if err := checkpoint.EnsureAdd(ctx, t.pool); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error { return checkpoint.RequestAdd(ctx, tx, stream, ids) })
}

func (t *replica) LoadAdds(ctx context.Context, stream string) ([]target.AddRecord, error) {
	return checkpoint.LoadAdds(ctx, t.pool, stream)
}

func (t *replica) SaveAdd(ctx context.Context, stream string, r target.AddRecord) error {
	if err := checkpoint.EnsureAdd(ctx, t.pool); err != nil {
		return err
	}
	return checkpoint.SaveAdd(ctx, t.pool, stream, r)
}

func (t *replica) ForgetAdds(ctx context.Context, stream string, ids []schema.TableID) error {
	return checkpoint.ForgetAdds(ctx, t.pool, stream, ids)
}
