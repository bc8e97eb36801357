package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
)

// targetSessionParams fix how PostgreSQL prints values, so the texts of the
// normalisation expressions never depend on server or role defaults.
var targetSessionParams = map[string]string{
	"datestyle":          "ISO, YMD",
	"intervalstyle":      "postgres",
	"timezone":           "UTC",
	"extra_float_digits": "1", // shortest round-trip output of float4/float8
	"application_name":   "sluice verify",
	// Chunks are short and verify runs its own workers: parallel query
	// workers would only add process start-ups and compete for the CPUs.
	"max_parallel_workers_per_gather": "0",
	// JIT compiles the row expressions of a chunk query once its estimated
	// cost passes jit_above_cost: hundreds of milliseconds of compiling
	// for a query that runs about as long, on every chunk.
	"jit": "off",
}

// OpenVerifyPool opens a pool of at most n sessions for verify, with
// targetSessionParams.
func OpenVerifyPool(ctx context.Context, tgt config.Postgres, n int) (*pgxpool.Pool, error) {
	cfg, err := pgxpool.ParseConfig(tgt.ConnString())
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", tgt.Redacted(), err)
	}
	for k, v := range targetSessionParams {
		cfg.ConnConfig.RuntimeParams[k] = v
	}
	cfg.MaxConns = int32(max(n, 1))
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("target %s: %w", tgt.Redacted(), err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("target %s: %w", tgt.Redacted(), err)
	}
	return pool, nil
}

// targetColumns returns the column names of a target table, or nil when it
// does not exist.
func targetColumns(ctx context.Context, pool *pgxpool.Pool, schemaName, table string) (map[string]bool, error) {
	rows, err := pool.Query(ctx, `SELECT a.attname FROM pg_attribute a
		JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped`, schemaName, table)
	if err != nil {
		return nil, fmt.Errorf("target table %s.%s: %w", schemaName, table, err)
	}
	defer rows.Close()
	var cols map[string]bool
	for rows.Next() {
		var n string
		if err := rows.Scan(&n); err != nil {
			return nil, err
		}
		if cols == nil {
			cols = map[string]bool{}
		}
		cols[n] = true
	}
	return cols, rows.Err()
}
