package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// planCache holds the compiled apply plan of each table version a worker
// has seen. Row changes carry the *schema.Table they were decoded with, so
// the pointer identifies the version; the cache is dropped after every DDL.
type planCache struct {
	naming   schema.Naming
	mapper   *typemap.Mapper
	writable func(*schema.Table) []int
	m        map[*schema.Table]*ApplyPlan
	// updateMany holds the multi-row UPDATE text per table version and row
	// count; the target's column types it needs are read once per version.
	updateMany map[updateManyKey]string
	types      map[*schema.Table][]string
}

type updateManyKey struct {
	t    *schema.Table
	rows int
}

func newPlanCache(naming schema.Naming, mapper *typemap.Mapper, writable func(*schema.Table) []int) *planCache {
	return &planCache{naming: naming, mapper: mapper, writable: writable, m: map[*schema.Table]*ApplyPlan{},
		updateMany: map[updateManyKey]string{}, types: map[*schema.Table][]string{}}
}

func (c *planCache) get(t *schema.Table) (*ApplyPlan, error) {
	if p, ok := c.m[t]; ok {
		return p, nil
	}
	if t == nil {
		return nil, fmt.Errorf("row change without a table")
	}
	ident := c.naming.Ident2(t.TableID)
	conv, err := c.mapper.Compile(t)
	if err != nil {
		return nil, fmt.Errorf("compile converters for %s: %w", t.TableID, err)
	}
	// The plan names the target's columns (--identifiers, --rename) in the
	// source's order, so the changes' values line up with them.
	p, err := NewApplyPlan(c.naming.TargetView(t), ident, c.writable(t), conv)
	if err != nil {
		return nil, err
	}
	c.m[t] = p
	return p, nil
}

func (c *planCache) reset() {
	clear(c.m)
	clear(c.updateMany)
	clear(c.types)
}

// updateManySQL returns the plan's multi-row UPDATE of rows rows, reading
// the target's column types on first use.
func (c *planCache) updateManySQL(ctx context.Context, conn *pgx.Conn, p *ApplyPlan, rows int) (string, error) {
	k := updateManyKey{p.Table, rows}
	if s, ok := c.updateMany[k]; ok {
		return s, nil
	}
	types, ok := c.types[p.Table]
	if !ok {
		var err error
		if types, err = castTypes(ctx, conn, p); err != nil {
			return "", err
		}
		c.types[p.Table] = types
	}
	s := p.UpdateManySQL(rows, types)
	c.updateMany[k] = s
	return s, nil
}

// castTypes returns, per column of the plan's table, the target type to cast
// a VALUES parameter to: the column's type without its modifier (varchar,
// not varchar(20)), so that the assignment, as for a single-row UPDATE,
// applies the modifier and fails on a value too long instead of an explicit
// cast cutting it; bit becomes varbit (a bare bit is bit(1)).
func castTypes(ctx context.Context, conn *pgx.Conn, p *ApplyPlan) ([]string, error) {
	rows, err := conn.Query(ctx, `SELECT a.attname::text,
			CASE WHEN t.typname = 'bit' THEN 'pg_catalog.varbit'
			ELSE quote_ident(n.nspname) || '.' || quote_ident(t.typname) END
		FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid JOIN pg_namespace n ON n.oid = t.typnamespace
		WHERE a.attrelid = $1::regclass AND a.attnum > 0 AND NOT a.attisdropped`, p.QTable)
	if err != nil {
		return nil, fmt.Errorf("apply: column types of %s: %w", p.QTable, err)
	}
	byName := map[string]string{}
	var name, typ string
	if _, err := pgx.ForEachRow(rows, []any{&name, &typ}, func() error {
		byName[name] = typ
		return nil
	}); err != nil {
		return nil, fmt.Errorf("apply: column types of %s: %w", p.QTable, err)
	}
	types := make([]string, len(p.Table.Columns))
	for i, col := range p.Table.Columns {
		types[i] = byName[col.Name]
	}
	for _, c := range append(append([]int(nil), p.Key...), p.Cols...) {
		if types[c] == "" {
			return nil, fmt.Errorf("apply: column %s of %s is not in the target", p.Table.Columns[c].Name, p.QTable)
		}
	}
	return types, nil
}
