package verifydb

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/config"
)

// OpenSource opens a pool of source sessions with sluice's settings
// (utf8mb4, time_zone '+00:00', no time parsing), at most n connections.
func OpenSource(ctx context.Context, src config.MySQL, n int) (*sql.DB, error) {
	return OpenMySQL(ctx, "source", src, n, nil)
}

// OpenMySQL opens a pool of sessions with sluice's settings on a MySQL
// server (side names it in errors); tune adjusts the driver settings.
func OpenMySQL(ctx context.Context, side string, m config.MySQL, n int, tune func(*mysql.Config)) (*sql.DB, error) {
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
