package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sluice-db/sluice/internal/checkpoint"
)

// Querier is what a connection, a pool and a transaction offer (declared
// once, by the state store).
type Querier = checkpoint.Querier

// Connect opens a pool of at most maxConns connections to the target.
// Sessions run in UTC so timestamptz text (errors, logs) reads like the source.
func Connect(ctx context.Context, connString string, maxConns int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	cfg.MaxConns = int32(max(maxConns, 1))
	cfg.MinConns = 0
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.ConnConfig.RuntimeParams["application_name"] = "sluice"
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("target: %w", err)
	}
	return pool, nil
}

// TableColumn is one column of an existing target table.
type TableColumn struct {
	Name string
	Type string // format_type(), e.g. "numeric(20,0)", "timestamp(6) without time zone"
}

// TableColumns returns the columns of schema.table in order, or nil when the
// table does not exist.
func TableColumns(ctx context.Context, q Querier, schema, table string) ([]TableColumn, error) {
	rows, err := q.Query(ctx, `SELECT a.attname, format_type(a.atttypid, a.atttypmod)
		FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid
		JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2 AND c.relkind IN ('r', 'p')
		  AND a.attnum > 0 AND NOT a.attisdropped
		ORDER BY a.attnum`, schema, table)
	if err != nil {
		return nil, fmt.Errorf("read columns of %s.%s: %w", schema, table, err)
	}
	cols, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (TableColumn, error) {
		var c TableColumn
		err := r.Scan(&c.Name, &c.Type)
		return c, err
	})
	if err != nil {
		return nil, fmt.Errorf("read columns of %s.%s: %w", schema, table, err)
	}
	if len(cols) == 0 {
		return nil, nil
	}
	return cols, nil
}

// HasRows reports whether a table holds at least one row.
func HasRows(ctx context.Context, q Querier, table pgx.Identifier) (bool, error) {
	var one int
	err := q.QueryRow(ctx, "SELECT 1 FROM "+table.Sanitize()+" LIMIT 1").Scan(&one)
	if errors.Is(err, pgx.ErrNoRows) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("read %s: %w", table.Sanitize(), err)
	}
	return true, nil
}

// HasExtension reports whether an extension (e.g. postgis) is installed in
// the target database.
func HasExtension(ctx context.Context, q Querier, name string) (bool, error) {
	var ok bool
	if err := q.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = $1)", name).Scan(&ok); err != nil {
		return false, fmt.Errorf("check extension %s: %w", name, err)
	}
	return ok, nil
}
