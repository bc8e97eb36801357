package realworld

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// mysqlInto makes a scenario migrate into the sandbox's MySQL/MariaDB target
// (testenv.MySQLTarget) instead of PostgreSQL.
type mysqlInto struct {
	engine string // --target-engine; "" keeps each source table's engine
}

// intoMySQL is a MySQL target with every table in engine.
func intoMySQL(engine string) *mysqlInto { return &mysqlInto{engine: engine} }

// side prepares the target database (the source's name + "_my", dropped at
// the end) and forgets the stream's state there when the test ends.
func (i *mysqlInto) side(t *testing.T, db, stream string) targetSide {
	tgt := testenv.Get(t).MySQLTarget(t)
	if strings.EqualFold(i.engine, "ROCKSDB") && !tgt.HasRocksDB(t) {
		t.Skip("the MySQL target server has no ROCKSDB engine")
	}
	tdb := db + "_my"
	tgt.DropAtEnd(t, tdb)
	admin := tgt.Admin(t)
	t.Cleanup(func() {
		ctx := context.Background()
		if err := mysqlstate.Delete(ctx, admin, stream); err != nil {
			t.Errorf("cleanup: %v", err)
		}
		if err := mysqlstate.DeleteSnapshotRun(ctx, admin, stream); err != nil {
			t.Errorf("cleanup: %v", err)
		}
	})
	side := targetSide{url: tgt.URL(tdb), tdb: tdb, tgt: admin, replicating: func() bool {
		var n int64
		_ = admin.QueryRow(`SELECT count(*) FROM sluice.checkpoint WHERE stream = ? AND schema_version >= 1`, stream).Scan(&n)
		return n == 1
	}}
	if i.engine != "" {
		side.writeArgs = []string{"--target-engine", i.engine}
	}
	return side
}

// q is a table of the MySQL target's database, quoted.
func (m migrated) q(table string) string { return "`" + m.tdb + "`.`" + table + "`" }

// compareBytes requires every base table of the source database to be on the
// MySQL target with the same columns (names and types, in order) and the same
// rows, byte for byte: each value as HEX(CAST(col AS BINARY)) in UTC sessions,
// rows compared as sorted lists (no collation or NULL order involved); the
// columns' defaults, nullability, collations and generation expressions too.
// The target must have no other tables.
func compareBytes(t *testing.T, m migrated) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	src, dst := utcConn(t, ctx, m.my), utcConn(t, ctx, m.tgt)
	srcTables := textColumn(t, ctx, src, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, m.db)
	dstTables := textColumn(t, ctx, dst, `SELECT TABLE_NAME FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY TABLE_NAME`, m.tdb)
	if !slices.Equal(srcTables, dstTables) {
		t.Errorf("tables: source %v, target %v", srcTables, dstTables)
	}
	// Definitions too: a default or charset changed on the way changes the
	// rows written after a cut-over (or by a replayed ADD COLUMN).
	const colsQ = `SELECT CONCAT_WS(' | ', COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, IFNULL(COLUMN_DEFAULT, 'no default'),
			IFNULL(COLLATION_NAME, '-'), EXTRA, IFNULL(GENERATION_EXPRESSION, '-'))
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`
	total := 0
	for _, table := range srcTables {
		cols := textColumn(t, ctx, src, colsQ, m.db, table)
		if tc := textColumn(t, ctx, dst, colsQ, m.tdb, table); !slices.Equal(cols, tc) {
			t.Errorf("%s: columns: source %v, target %v", table, cols, tc)
			continue
		}
		names := textColumn(t, ctx, src, `SELECT COLUMN_NAME FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, m.db, table)
		exprs := make([]string, len(names))
		for i, n := range names {
			exprs[i] = "HEX(CAST(`" + strings.ReplaceAll(n, "`", "``") + "` AS BINARY))"
		}
		list := strings.Join(exprs, ", ")
		sr := hexRows(t, ctx, src, fmt.Sprintf("SELECT %s FROM `%s`.`%s`", list, m.db, table))
		dr := hexRows(t, ctx, dst, fmt.Sprintf("SELECT %s FROM %s", list, m.q(table)))
		total += len(sr)
		if len(sr) != len(dr) {
			t.Errorf("%s: %d source rows, %d target rows", table, len(sr), len(dr))
		}
		bad := 0
		for i := 0; i < min(len(sr), len(dr)); i++ {
			if sr[i] != dr[i] {
				if bad++; bad <= 3 {
					t.Errorf("%s row %d (sorted, hex):\n source %s\n target %s", table, i, sr[i], dr[i])
				}
			}
		}
	}
	if total == 0 {
		t.Errorf("no source rows compared")
	}
	t.Logf("compared %d tables, %d rows byte for byte", len(srcTables), total)
}

// utcConn is one session of db in UTC: TIMESTAMP values print alike on both sides.
func utcConn(t *testing.T, ctx context.Context, db *sql.DB) *sql.Conn {
	t.Helper()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := c.ExecContext(ctx, "SET time_zone = '+00:00'"); err != nil {
		t.Fatal(err)
	}
	return c
}

func textColumn(t *testing.T, ctx context.Context, c *sql.Conn, q string, args ...any) []string {
	t.Helper()
	rows, err := c.QueryContext(ctx, q, args...)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		out = append(out, s)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// hexRows returns the rows of q (hex or NULL values) as sorted lines.
func hexRows(t *testing.T, ctx context.Context, c *sql.Conn, q string) []string {
	t.Helper()
	rows, err := c.QueryContext(ctx, q)
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		t.Fatal(err)
	}
	vals := make([]sql.NullString, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	var out []string
	parts := make([]string, len(cols))
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, v := range vals {
			parts[i] = "NULL"
			if v.Valid {
				parts[i] = "x" + v.String
			}
		}
		out = append(out, strings.Join(parts, ","))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// requireEngine requires every table of the MySQL target's database to be on
// engine (--target-engine rewrites the snapshot's and the replayed DDL's ENGINE=).
func requireEngine(t *testing.T, m migrated, engine string) {
	t.Helper()
	var bad []string
	for _, r := range testenv.MySQLRows(t, m.tgt, `SELECT TABLE_NAME, ENGINE FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' AND UPPER(ENGINE) <> UPPER(?)`, m.tdb, engine) {
		bad = append(bad, r)
	}
	if len(bad) > 0 {
		t.Errorf("target tables not on %s: %v", engine, bad)
	}
}
