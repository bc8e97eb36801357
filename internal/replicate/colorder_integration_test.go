package replicate

import (
	"bytes"
	"context"
	"database/sql"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify"
)

// syncBuffer is a log sink safe for the run's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestColumnOrderPostgreSQL: columns placed AFTER/FIRST on the source keep
// the target's order (PostgreSQL cannot reorder); the replicator warns once
// for the table naming the column and the source's order and lists it when
// it stops, the schema history records the target's order, positional
// inserts on the source land in the right columns (compared column by
// column), and verify reports the order as a difference that is not a data
// difference (result equal).
func TestColumnOrderPostgreSQL(t *testing.T) {
	g := newRig(t, "colorder", "CREATE TABLE co (id INT PRIMARY KEY, a INT, b VARCHAR(10))")
	g.exec("INSERT INTO co VALUES (1, 10, 'one'), (2, 20, 'two')")
	g.snapshot(g.stream, "")
	g.exec(
		"ALTER TABLE co ADD COLUMN c INT NOT NULL DEFAULT 0 AFTER id",
		"INSERT INTO co VALUES (3, 300, 30, 'three')",
		"ALTER TABLE co CHANGE a a2 INT AFTER b",
		"INSERT INTO co VALUES (4, 400, 'four', 40)",
		"ALTER TABLE co ADD COLUMN f VARCHAR(5) FIRST",
		"INSERT INTO co VALUES ('five', 5, 500, 'five', 50)",
		"UPDATE co SET a2 = a2 + 1, c = c + 1 WHERE id IN (1, 3)",
	)
	var logs syncBuffer
	o := g.options()
	o.Log = slog.New(slog.NewTextHandler(&logs, nil))
	g.catchUp(o)
	g.compare()

	q := "SELECT id, f, c, b, a2 FROM " + pgx.Identifier{g.db, "co"}.Sanitize() + " ORDER BY id"
	rows, err := g.pg.Query(context.Background(), q)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id, c int
		var a2 *int
		var f, b *string
		if err := rows.Scan(&id, &f, &c, &b, &a2); err != nil {
			t.Fatal(err)
		}
		got = append(got, strings.Join([]string{itoa(id), strOr(f), itoa(c), strOr(b), intOr(a2)}, " "))
	}
	want := []string{"1 NULL 1 one 11", "2 NULL 0 two 20", "3 NULL 301 three 31", "4 NULL 400 four 40", "5 five 500 five 50"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rows by column:\ngot  %q\nwant %q", got, want)
	}

	out := logs.String()
	if n := strings.Count(out, "level=WARN msg=\"schema change: column moved on the source"); n != 1 {
		t.Errorf("%d WARN lines for the moved columns of co, want 1:\n%s", n, out)
	}
	if !strings.Contains(out, `source_order="f, id, c, b, a2"`) && !strings.Contains(out, `source_order="id, c, a, b"`) {
		t.Errorf("the WARN does not name the source's order:\n%s", out)
	}
	if !strings.Contains(out, "column order differs between source and target") || !strings.Contains(out, "co (source: f, id, c, b, a2)") {
		t.Errorf("the stop report does not list co:\n%s", out)
	}

	st, err := checkpoint.Load(context.Background(), g.pg, g.stream, binlogpos.Decode)
	if err != nil {
		t.Fatal(err)
	}
	tables, err := checkpoint.LoadSchema(context.Background(), g.pg, g.stream, st.SchemaVersion)
	if err != nil {
		t.Fatal(err)
	}
	co := tables[schema.TableID{Database: g.db, Name: "co"}]
	if co == nil || strings.Join(co.TargetOrder, ",") != "id,a2,b,c,f" {
		t.Fatalf("schema history: target order %v", co)
	}
	if got, want := co.TargetOrderText(), "source (f, id, c, b, a2) target (id, a2, b, c, f)"; got != want {
		t.Errorf("recorded order: %q, want %q", got, want)
	}

	rep := g.verifyTable(t, "co")
	if rep.Result != verify.ResultEqual || rep.Tables[0].ColumnOrder != "source (f, id, c, b, a2) target (id, a2, b, c, f)" {
		var b bytes.Buffer
		rep.WriteSummary(&b)
		t.Errorf("verify: %s, column order %q\n%s", rep.Result, rep.Tables[0].ColumnOrder, b.String())
	}
	var b bytes.Buffer
	rep.WriteSummary(&b)
	if !strings.Contains(b.String(), "column order differs: source (f, id, c, b, a2) target (id, a2, b, c, f)") {
		t.Errorf("verify summary:\n%s", b.String())
	}
}

// verifyTable runs verify on one table of the rig's database.
func (g *rig) verifyTable(t *testing.T, table string) *verify.Report {
	t.Helper()
	f, err := schema.NewFilter([]string{g.db + "." + table}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), g.my, f)
	if err != nil {
		t.Fatal(err)
	}
	naming, err := schema.NewNaming(nil)
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := config.ParseTarget(g.env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	rep, err := verify.Run(context.Background(), verify.Options{Source: g.src, Engine: pgsink.NewEngine(tgt), Tables: cat.Tables, Naming: naming,
		Mapper: typemap.New(typemap.DefaultOptions(), nil), Workers: 2, Online: verify.OnlineOff, Log: testenv.Logger()})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// TestColumnOrderMySQLTarget: a MySQL target replays FIRST/AFTER, so its
// column order is the source's exactly, and positional inserts land alike.
func TestColumnOrderMySQLTarget(t *testing.T) {
	g := newMyRig(t, testenv.Get(t), "mt_colorder", "")
	g.exec(
		"CREATE TABLE co (id INT PRIMARY KEY, a INT, b VARCHAR(10))",
		"INSERT INTO co VALUES (1, 10, 'one')",
		"ALTER TABLE co ADD COLUMN c INT NOT NULL DEFAULT 0 AFTER id",
		"INSERT INTO co VALUES (3, 300, 30, 'three')",
		"ALTER TABLE co CHANGE a a2 INT AFTER b",
		"ALTER TABLE co MODIFY b VARCHAR(20) FIRST",
		"INSERT INTO co VALUES ('four', 4, 400, 40)",
	)
	g.catchUp()
	g.compare()
	order := func(db *sql.DB, database string) string {
		rows := testenv.MySQLTexts(t, db, `SELECT COLUMN_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'co' ORDER BY ORDINAL_POSITION`, database)
		var names []string
		for _, r := range rows {
			names = append(names, r[0].String)
		}
		return strings.Join(names, ",")
	}
	if src, tgt := order(g.my, g.db), order(g.tgt, g.tdb); src != "b,id,c,a2" || tgt != src {
		t.Errorf("column order: source %s, target %s", src, tgt)
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func strOr(s *string) string {
	if s == nil {
		return "NULL"
	}
	return *s
}

func intOr(n *int) string {
	if n == nil {
		return "NULL"
	}
	return strconv.Itoa(*n)
}
