package verify

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/go-sql-driver/mysql"
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

// openSource opens a pool of source sessions with sluice's settings
// (utf8mb4, time_zone '+00:00', no time parsing), at most n connections.
func openSource(ctx context.Context, src config.MySQL, n int) (*sql.DB, error) {
	return openMySQL(ctx, "source", src, n, nil)
}

// openMySQL opens a pool of sessions with sluice's settings on a MySQL
// server (side names it in errors); tune adjusts the driver settings.
func openMySQL(ctx context.Context, side string, m config.MySQL, n int, tune func(*mysql.Config)) (*sql.DB, error) {
	cfg, err := m.DriverConfig()
	if err != nil {
		return nil, err
	}
	// Chunk digests join a chunk's row texts with GROUP_CONCAT (digest.go).
	cfg.Params["group_concat_max_len"] = strconv.Itoa(sourceGroupConcatMax)
	if tune != nil {
		tune(cfg)
	}
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", side, m.Redacted(), err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(n)
	db.SetMaxIdleConns(n)
	if err := db.PingContext(ctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%s %s: %w", side, m.Redacted(), err)
	}
	return db, nil
}

// openTarget opens a pool of target sessions with targetSessionParams.
func openTarget(ctx context.Context, tgt config.Postgres, n int) (*pgxpool.Pool, error) {
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
