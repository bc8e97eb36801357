package replicate

import (
	"context"
	"database/sql"
	"fmt"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/testenv"
)

// myRig is one source test database replicated into a database of the
// sandbox's MySQL target under its own stream, starting at the source's
// current binlog position (no snapshot: the tables are created after it).
type myRig struct {
	t      *testing.T
	env    *testenv.Env
	db     string // source database
	tdb    string // target database
	my     *sql.DB
	tgt    *sql.DB // root on the target server
	src    config.MySQL
	dst    config.MySQL
	stream string
	engine string
	start  string // file:pos where the stream starts
}

func newMyRig(t *testing.T, env *testenv.Env, prefix, engine string) *myRig {
	t.Helper()
	target := env.MySQLTarget(t)
	if engine == "ROCKSDB" && !target.HasRocksDB(t) {
		t.Skip("the MySQL target has no ROCKSDB engine")
	}
	db := env.NewDatabase(t, prefix)
	g := &myRig{t: t, env: env, db: db, tdb: db + "_r", my: env.MySQL(t, db), tgt: target.Admin(t),
		stream: testenv.UniqueName("mt"), engine: engine}
	target.DropAtEnd(t, g.tdb)
	var err error
	if g.src, err = config.ParseSource(env.SourceURL(db)); err != nil {
		t.Fatal(err)
	}
	tu, err := config.ParseMySQLTarget(target.URL(g.tdb))
	if err != nil {
		t.Fatalf("target URL: %v", err)
	}
	g.dst = tu
	rows := testenv.MySQLTexts(t, g.my, env.BinlogStatusSQL())
	if len(rows) != 1 {
		t.Fatalf("%s: %v", env.BinlogStatusSQL(), rows)
	}
	g.start = rows[0][0].String + ":" + rows[0][1].String
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), g.tgt, g.stream) })
	// Record the start (schema version 1: the database is still empty) so
	// that the tables the test creates arrive as schema changes.
	g.catchUp()
	return g
}

func (g *myRig) exec(stmts ...string) {
	g.t.Helper()
	for _, s := range stmts {
		if _, err := g.my.Exec(g.env.SQL(s)); err != nil {
			g.t.Fatalf("%s: %v", s, err)
		}
	}
}

func (g *myRig) options() Options {
	return Options{Source: g.src, Target: mysink.NewEngine(g.dst, g.engine), Include: []string{g.db}, Stream: g.stream,
		StartPosition: g.start, Workers: 4, Log: testenv.Logger(), StatusEvery: time.Second, DrainTimeout: 20 * time.Second}
}

func (g *myRig) catchUp() {
	g.t.Helper()
	o := g.options()
	o.UntilCaughtUp = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		g.t.Fatalf("replicate --until-caught-up: %v", err)
	}
	if ctx.Err() != nil {
		g.t.Fatal("replicate --until-caught-up did not catch up within 2 minutes")
	}
}

func (g *myRig) start2() *background {
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{cancel: cancel, done: make(chan error, 1)}
	o := g.options()
	go func() { b.done <- Run(ctx, o) }()
	g.t.Cleanup(func() { _ = b.stop(30 * time.Second) })
	return b
}

// compare checks that every table of the source database has the same rows
// on the target, byte for byte: each value as HEX(CAST(col AS BINARY)) in
// UTC on both sides, rows compared as multisets.
func (g *myRig) compare() {
	g.t.Helper()
	for _, d := range g.differences() {
		g.t.Error(d)
	}
}

func (g *myRig) differences() []string {
	g.t.Helper()
	tables := testenv.MySQLTexts(g.t, g.my, `SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_TYPE = 'BASE TABLE' ORDER BY 1`, g.db)
	if len(tables) == 0 {
		g.t.Fatal("compare: no tables")
	}
	var out []string
	for _, tr := range tables {
		name := tr[0].String
		cols := testenv.MySQLTexts(g.t, g.my, `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, g.db, name)
		var exprs []string
		for _, c := range cols {
			exprs = append(exprs, "IFNULL(HEX(CAST(`"+c[0].String+"` AS BINARY)), 'NULL')")
		}
		q := "SELECT CONCAT_WS('|', " + strings.Join(exprs, ", ") + ") FROM `%s`.`" + name + "`"
		a := hexRows(g.t, g.my, fmt.Sprintf(q, g.db))
		b := hexRows(g.t, g.tgt, fmt.Sprintf(q, g.tdb))
		if !slices.Equal(a, b) {
			d := fmt.Sprintf("table %s: source %d rows, target %d rows", name, len(a), len(b))
			for i := range max(len(a), len(b)) {
				var x, y string
				if i < len(a) {
					x = a[i]
				}
				if i < len(b) {
					y = b[i]
				}
				if x != y {
					d += fmt.Sprintf("; first difference: source %q, target %q (columns %v)", x, y, cols)
					break
				}
			}
			out = append(out, d)
		}
	}
	return out
}

func hexRows(t *testing.T, db *sql.DB, q string) []string {
	t.Helper()
	ctx := context.Background()
	conn, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "SET time_zone = '+00:00'"); err != nil {
		t.Fatal(err)
	}
	rows, err := conn.QueryContext(ctx, q)
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
	slices.Sort(out)
	return out
}

// count returns the rows of a target table.
func (g *myRig) count(table string) int {
	g.t.Helper()
	var n int
	if err := g.tgt.QueryRow("SELECT COUNT(*) FROM `" + g.tdb + "`.`" + table + "`").Scan(&n); err != nil {
		g.t.Fatal(err)
	}
	return n
}

// tableCount runs a COUNT query on the target server.
func (g *myRig) tableCount(q string, args ...any) int {
	g.t.Helper()
	var n int
	if err := g.tgt.QueryRow(q, args...).Scan(&n); err != nil {
		g.t.Fatalf("%s: %v", q, err)
	}
	return n
}
