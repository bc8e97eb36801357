package realworld

import (
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
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
// the end) on env's MySQL target (the MariaDB one, or MySQL 9.7 under
// testenv.MySQLToMySQL9) and forgets the stream's state there when the test ends.
func (i *mysqlInto) side(t *testing.T, env *testenv.Env, db, stream string) targetSide {
	tgt := env.MySQLTarget(t)
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

// intoMySQLFlavors runs fn as testenv.Flavors does (both sources into the MariaDB
// target), and MySQL 9.7 → MySQL 9.7 (testenv.MySQLToMySQL9) only when
// SLUICE_TEST_MYSQL9_ALL is set: the scenarios whose schemas vary most run that
// subtest always (testenv.MySQLTargetFlavors), the rest would add about a minute
// to CI for little more coverage.
func intoMySQLFlavors(t *testing.T, fn func(t *testing.T, env *testenv.Env)) {
	t.Helper()
	testenv.Flavors(t, fn)
	if v := os.Getenv("SLUICE_TEST_MYSQL9_ALL"); v != "" && v != "0" && v != "false" {
		testenv.MySQLToMySQL9(t, fn)
	}
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
	slices.Sort(srcTables) // in Go: the servers' information_schema collations differ
	slices.Sort(dstTables)
	if !slices.Equal(srcTables, dstTables) {
		t.Errorf("tables: source %v, target %v", srcTables, dstTables)
	}
	// Definitions too: a default or charset changed on the way changes the
	// rows written after a cut-over (or by a replayed ADD COLUMN).
	const colsQ = `SELECT CONCAT_WS(' | ', COLUMN_NAME, COLUMN_TYPE, IS_NULLABLE, IFNULL(COLUMN_DEFAULT, 'no default'),
			IFNULL(COLLATION_NAME, '-'), EXTRA, IFNULL(GENERATION_EXPRESSION, '-'))
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`
	// A MySQL source into a MariaDB target: the definitions as both can
	// print them alike (crossFlavorColumns).
	cross := isMySQL(t, ctx, src) && !isMySQL(t, ctx, dst)
	var has map[string]bool
	if cross {
		has = map[string]bool{}
		for _, c := range textColumn(t, ctx, dst, `SELECT LOWER(FULL_COLLATION_NAME) FROM information_schema.COLLATION_CHARACTER_SET_APPLICABILITY`) {
			has[c] = true
		}
	}
	total := 0
	for _, table := range srcTables {
		cols := textColumn(t, ctx, src, colsQ, m.db, table)
		tc := textColumn(t, ctx, dst, colsQ, m.tdb, table)
		if cross {
			cols, tc = crossFlavorColumns(cols, has), crossFlavorColumns(tc, nil)
		}
		cols, tc = hexBinaryDefaults(cols), hexBinaryDefaults(tc)
		if !slices.Equal(cols, tc) {
			t.Errorf("%s: columns: source %v, target %v", table, cols, tc)
			continue
		}
		names := textColumn(t, ctx, src, `SELECT CONCAT(DATA_TYPE, ' ', COLUMN_NAME) FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, m.db, table)
		exprs := make([]string, len(names))
		floats := make([]bool, len(names))
		for i, n := range names {
			typ, name, _ := strings.Cut(n, " ")
			q := "`" + strings.ReplaceAll(name, "`", "``") + "`"
			exprs[i] = "HEX(CAST(" + q + " AS BINARY))"
			if cross && (typ == "double" || typ == "float") {
				// MySQL prints 1.4e-15 where MariaDB prints
				// 0.0000000000000014: compared as the double.
				exprs[i], floats[i] = "CAST("+q+" AS DOUBLE)", true
			}
		}
		list := strings.Join(exprs, ", ")
		sr := hexRows(t, ctx, src, fmt.Sprintf("SELECT %s FROM `%s`.`%s`", list, m.db, table), floats)
		dr := hexRows(t, ctx, dst, fmt.Sprintf("SELECT %s FROM %s", list, m.q(table)), floats)
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

// hexRows returns the rows of q (hex or NULL values) as sorted lines; the
// columns floats marks are doubles, printed as Go's shortest form.
func hexRows(t *testing.T, ctx context.Context, c *sql.Conn, q string, floats []bool) []string {
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
				if floats[i] {
					f, err := strconv.ParseFloat(v.String, 64)
					if err != nil {
						t.Fatalf("%s: column %d: %v", q, i, err)
					}
					parts[i] = "f" + strconv.FormatFloat(f, 'g', -1, 64)
				}
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

// isMySQL says whether the server of c is a MySQL (not a MariaDB).
func isMySQL(t *testing.T, ctx context.Context, c *sql.Conn) bool {
	t.Helper()
	v := textColumn(t, ctx, c, "SELECT VERSION()")
	return len(v) == 1 && !strings.Contains(strings.ToLower(v[0]), "mariadb")
}

// intWidth is an integer type's display width, which MySQL 8 no longer prints.
var intWidth = regexp.MustCompile(`^(tinyint|smallint|mediumint|int|bigint)\([0-9]+\)`)

// crossFlavorColumns reduces compareBytes's column definitions to what a
// MySQL source and a MariaDB target print alike: name, type (integer display
// widths dropped unless ZEROFILL, YEAR(4) as YEAR, JSON as MariaDB's LONGTEXT), nullability
// and collation (the source's mapped as snapshot and replication map it, binary as none,
// when has lists the target's collations). Defaults, EXTRA and generation
// expressions are printed in each server's own dialect.
func crossFlavorColumns(cols []string, has map[string]bool) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		f := strings.Split(c, " | ")
		if len(f) < 5 {
			out[i] = c
			continue
		}
		typ := f[1]
		if !strings.Contains(typ, "zerofill") && !strings.HasPrefix(typ, "tinyint(1)") {
			typ = intWidth.ReplaceAllString(typ, "$1")
		}
		if typ == "year(4)" {
			typ = "year"
		}
		coll := f[4]
		if coll == "binary" {
			// An ENUM or SET of a binary charset: MariaDB names the
			// collation, MySQL prints NULL (as both do for VARBINARY).
			coll = "-"
		}
		if typ == "json" {
			typ, coll = "longtext", "utf8mb4_bin"
		}
		if has != nil && coll != "-" {
			if m, ok := mysink.TargetCollation(coll, func(c string) bool { return has[c] }); ok {
				coll = m
			}
		}
		out[i] = strings.Join([]string{f[0], typ, f[2], coll}, " | ")
	}
	return out
}

// hexBinaryDefaults spells the defaults of BINARY and VARBINARY columns (in colsQ's lines) as
// x'...': MariaDB 11.8 prints x'6200', 10.11 the same bytes as 'b\0'.
func hexBinaryDefaults(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		f := strings.Split(l, " | ")
		if len(f) > 3 && strings.Contains(f[1], "binary(") && len(f[3]) >= 2 && strings.HasPrefix(f[3], "'") && strings.HasSuffix(f[3], "'") {
			f[3] = "x'" + strings.ToUpper(hex.EncodeToString(unquoteMySQL(f[3][1:len(f[3])-1]))) + "'"
		} else if len(f) > 3 && strings.HasPrefix(f[3], "x'") {
			f[3] = "x'" + strings.ToUpper(f[3][2:])
		}
		out[i] = strings.Join(f, " | ")
	}
	return out
}

// unquoteMySQL is the bytes of a string literal's body as information_schema prints it.
func unquoteMySQL(s string) []byte {
	esc := map[byte]byte{'0': 0, 'n': '\n', 'r': '\r', 't': '\t', 'Z': 26, 'b': '\b'}
	var b []byte
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			if c, ok := esc[s[i]]; ok {
				b = append(b, c)
			} else {
				b = append(b, s[i])
			}
		case s[i] == '\'' && i+1 < len(s) && s[i+1] == '\'':
			b = append(b, '\'')
			i++
		default:
			b = append(b, s[i])
		}
	}
	return b
}
