// Package snapshot reads a MySQL/MariaDB source for the initial copy: it opens
// N reader sessions that all see one instant (the consistent point) and
// records the binlog position of that instant, splits tables into key ranges
// inside that instant, and streams the rows of one range as raw text.
//
// Everything here runs against *sql.Conn sessions of go-sql-driver/mysql
// with the text protocol (interpolated parameters), so values arrive exactly
// as typemap.ColumnConv.FromText expects them.
package consistent

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/config"
)

// Source is the connection pool of one snapshot run and what it learned
// about the server.
type Source struct {
	DB      *sql.DB
	Flavor  string // "mariadb" or "mysql"
	Version string
}

// OpenSource opens a pool to the source with the settings every snapshot
// session needs. maxConns bounds the pool (reader sessions + metadata).
//
// Parameters are interpolated by the driver (interpolateParams) so that
// every query, including the range reads with bounds, uses the text
// protocol: prepared statements would return the binary protocol, whose
// values are not what typemap's FromText converts.
func OpenSource(ctx context.Context, m config.MySQL, maxConns int) (*Source, error) {
	cfg, err := m.DriverConfig()
	if err != nil {
		return nil, err
	}
	cfg.InterpolateParams = true
	// The server may be slow to send while PostgreSQL is slow to take; reads
	// must not time out in the driver either.
	cfg.ReadTimeout = 0
	cfg.WriteTimeout = 0
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("source %s: %w", m.Redacted(), err)
	}
	db := sql.OpenDB(conn)
	db.SetMaxOpenConns(maxConns)
	db.SetMaxIdleConns(maxConns)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Source{DB: db}
	if err := db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&s.Version); err != nil {
		db.Close()
		return nil, fmt.Errorf("source %s: %w", m.Redacted(), err)
	}
	s.Flavor = "mysql"
	if strings.Contains(strings.ToLower(s.Version), "mariadb") {
		s.Flavor = "mariadb"
	}
	return s, nil
}

// Close closes the pool.
func (s *Source) Close() error { return s.DB.Close() }

// sessionTimeout is the net_read/net_write/wait timeout of reader sessions:
// a worker may wait long for PostgreSQL (an index build, a slow disk) while
// the server holds a half-sent result; the default 60 s would cut it.
const sessionTimeout = 24 * time.Hour

// initSession sets what every reader session needs. time_zone and the
// connection charset come from the DSN (config.MySQL.Config).
func (s *Source) initSession(ctx context.Context, c *sql.Conn) error {
	secs := int(sessionTimeout / time.Second)
	stmts := []string{
		// An empty sql_mode: no PAD_CHAR_TO_FULL_LENGTH (CHAR values without
		// trailing spaces, as the binlog has them), no NO_ZERO_DATE or strict
		// mode objections to the zero dates stored in tables, no ANSI_QUOTES.
		"SET SESSION sql_mode = ''",
		"SET SESSION time_zone = '+00:00'",
		fmt.Sprintf("SET SESSION net_read_timeout = %d, net_write_timeout = %d, wait_timeout = %d", secs, secs, secs),
		"SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ",
	}
	if s.Flavor == "mariadb" {
		stmts = append(stmts, "SET SESSION max_statement_time = 0")
	} else {
		stmts = append(stmts, "SET SESSION max_execution_time = 0")
	}
	for _, q := range stmts {
		if _, err := c.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("session setup %q: %w", q, err)
		}
	}
	return nil
}

// session opens and sets up one dedicated connection.
func (s *Source) session(ctx context.Context) (*sql.Conn, error) {
	c, err := s.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("open reader session: %w", err)
	}
	if err := s.initSession(ctx, c); err != nil {
		c.Close()
		return nil, err
	}
	return c, nil
}
