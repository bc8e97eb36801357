package typemap

// Sandbox access for this package's integration tests, on top of
// internal/testenv (which skips without servers, and fails under CI=true).

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

type sandboxEnv struct {
	env        *testenv.Env
	mysqlAdmin config.MySQL
}

func sandboxOrSkip(t *testing.T) *sandboxEnv {
	t.Helper()
	return sandboxOn(t, testenv.Get(t))
}

// sandboxOn is sandboxOrSkip on env's source (testenv.Flavors).
func sandboxOn(t *testing.T, env *testenv.Env) *sandboxEnv {
	t.Helper()
	src, err := config.ParseSource(env.MySQLAdminURL(""))
	if err != nil {
		t.Fatal(err)
	}
	return &sandboxEnv{env: env, mysqlAdmin: src}
}

// mysqlDB creates a fresh database (dropped with its same-named PostgreSQL
// schemas at cleanup) and returns a connection to it with sluice's session
// settings (utf8mb4, time_zone +00:00, no time parsing).
func (e *sandboxEnv) mysqlDB(t *testing.T, prefix string) (*sql.DB, string) {
	t.Helper()
	name := e.env.NewDatabase(t, prefix)
	return e.open(t, name), name
}

func (e *sandboxEnv) open(t *testing.T, db string) *sql.DB {
	t.Helper()
	cfg := e.mysqlAdmin.WithDatabase(db).Config()
	cfg.MultiStatements = true
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		t.Fatal(err)
	}
	d := sql.OpenDB(conn)
	t.Cleanup(func() { d.Close() })
	return d
}

// pgSchema creates the schema name (name it after a NewDatabase database so
// testenv drops it) and returns a pool whose sessions use it and show
// timestamps in UTC.
func (e *sandboxEnv) pgSchema(t *testing.T, name string) *pgxpool.Pool {
	t.Helper()
	cfg, err := pgxpool.ParseConfig(e.env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.ConnConfig.RuntimeParams["search_path"] = name
	cfg.ConnConfig.RuntimeParams["timezone"] = "UTC"
	cfg.ConnConfig.RuntimeParams["datestyle"] = "ISO, MDY"
	cfg.ConnConfig.RuntimeParams["intervalstyle"] = "postgres"
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(context.Background(), "CREATE SCHEMA "+pgx.Identifier{name}.Sanitize()); err != nil {
		t.Fatal(err)
	}
	return pool
}

// mysqlAdminHostPort returns the admin endpoint for the binlog syncer.
func (e *sandboxEnv) mysqlAdminHostPort() (host string, port uint16, user, pass string) {
	return e.mysqlAdmin.Host, uint16(e.mysqlAdmin.Port), e.mysqlAdmin.User, e.mysqlAdmin.Password
}

// parseElements reads ENUM/SET members from information_schema COLUMN_TYPE
// ("enum('a','b”c')"), as the schema loader does.
func parseElements(columnType string) []string {
	open := strings.IndexByte(columnType, '(')
	if open < 0 || !strings.HasSuffix(columnType, ")") {
		return nil
	}
	body := columnType[open+1 : len(columnType)-1]
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case !in && ch == '\'':
			in = true
			cur.Reset()
		case in && ch == '\'' && i+1 < len(body) && body[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case in && ch == '\'':
			in = false
			out = append(out, cur.String())
		case in:
			cur.WriteByte(ch)
		}
	}
	return out
}

// loadTable reads a table's columns from information_schema the way the
// schema loader fills schema.Column (test-only: the real loader lives in
// internal/schema). jsonCols names MariaDB JSON (LONGTEXT) columns.
func loadTable(t *testing.T, db *sql.DB, database, table string, jsonCols ...string) *schema.Table {
	t.Helper()
	rows, err := db.Query(`SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,
		COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(NUMERIC_PRECISION, 0), COALESCE(NUMERIC_SCALE, 0),
		COALESCE(DATETIME_PRECISION, 0), COALESCE(CHARACTER_SET_NAME, ''), COALESCE(COLLATION_NAME, '')
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, database, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tb := &schema.Table{TableID: schema.TableID{Database: database, Name: table}}
	for rows.Next() {
		var c schema.Column
		var nullable string
		if err := rows.Scan(&c.Name, &c.Ordinal, &c.DataType, &c.ColumnType, &nullable, &c.CharMaxLength,
			&c.Precision, &c.Scale, &c.FracDigits, &c.Charset, &c.Collation); err != nil {
			t.Fatal(err)
		}
		c.Nullable = nullable == "YES"
		c.Unsigned = strings.Contains(c.ColumnType, "unsigned")
		c.Zerofill = strings.Contains(c.ColumnType, "zerofill")
		if c.DataType == "enum" || c.DataType == "set" {
			c.Elements = parseElements(c.ColumnType)
		}
		if c.DataType == "bit" && c.Precision == 0 {
			c.Precision = 1
		}
		for _, j := range jsonCols {
			c.IsJSON = c.IsJSON || j == c.Name
		}
		tb.Columns = append(tb.Columns, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tb.Columns) == 0 {
		t.Fatalf("table %s.%s not found", database, table)
	}
	return tb
}
