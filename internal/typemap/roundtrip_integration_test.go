package typemap

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestRoundTrip inserts every type's edge values into MariaDB, converts
// them through both paths (text protocol via SelectExpr, and the row
// events go-mysql decodes from the binlog), requires both to agree, writes
// them into PostgreSQL with COPY (text path) and INSERT parameters (binlog
// path) and compares what PostgreSQL shows with the expected text.
func TestRoundTrip(t *testing.T) { testenv.Flavors(t, testRoundTrip) }

func testRoundTrip(t *testing.T, tenv *testenv.Env) {
	env := sandboxOn(t, tenv)
	corpus := typecorpus.For(tenv.IsMySQL())
	my, dbName := env.mysqlDB(t, "typemap_rt")
	ctx := context.Background()
	if _, err := my.Exec(corpus.CreateTable("rt")); err != nil {
		t.Fatal(err)
	}
	tbl := loadTable(t, my, dbName, "rt", "j")
	charsets, err := LoadCharsets(ctx, my)
	if err != nil {
		t.Fatal(err)
	}
	changes := NewChanges()
	opts := DefaultOptions()
	opts.Charsets = charsets
	conv, err := New(opts, changes).Compile(tbl)
	if err != nil {
		t.Fatal(err)
	}

	tail := startBinlogTail(t, env, env.open(t, ""))
	n := typecorpus.Rows
	// Non-strict for this session only: it lets zero dates and the invalid ENUM value in.
	if _, err := my.Exec("SET SESSION sql_mode = ''; " + corpus.Insert("rt")); err != nil {
		t.Fatal(err)
	}

	fromBinlog := make([][]any, 0, n)
	tail.rows(t, dbName, "rt", n, func(row []any) {
		fromBinlog = append(fromBinlog, convertRow(t, conv, row, (*ColumnConv).FromBinlog))
	})
	fromText := selectConverted(t, my, conv)

	for r := range n {
		for i, cc := range conv.Columns {
			a, b := show(fromText[r][i]), show(fromBinlog[r][i])
			x, ok1 := fromText[r][i].(string)
			y, ok2 := fromBinlog[r][i].(string)
			if a != b && cc.Kind == KindJSON && ok1 && ok2 {
				// MySQL prints a binary JSON document with spaces, go-mysql without.
				a, b = canonicalOrRaw(x), canonicalOrRaw(y)
			}
			if a != b {
				t.Errorf("row %d column %s: text path %s, binlog path %s", r, cc.Column.Name, a, b)
			}
		}
	}

	pool := env.pgSchema(t, dbName+"_pg")
	for _, name := range []string{"via_copy", "via_insert"} {
		var cols []string
		for _, cc := range conv.Columns {
			cols = append(cols, pgx.Identifier{cc.Column.Name}.Sanitize()+" "+cc.PGType)
		}
		if _, err := pool.Exec(ctx, "CREATE TABLE "+name+" ("+strings.Join(cols, ", ")+")"); err != nil {
			t.Fatal(err)
		}
	}
	colNames := make([]string, len(conv.Columns))
	for i, cc := range conv.Columns {
		colNames[i] = cc.Column.Name
	}
	if _, err := pool.CopyFrom(ctx, pgx.Identifier{"via_copy"}, colNames, pgx.CopyFromRows(fromText)); err != nil {
		t.Fatalf("COPY of text-path values: %v", err)
	}
	insertRows(t, pool, "via_insert", colNames, fromBinlog)
	for _, table := range []string{"via_copy", "via_insert"} {
		checkPGText(t, pool, table, conv, corpus)
	}

	// Each value a policy changes is counted twice: once per path.
	want := map[string]int64{"dt/zero-date→NULL": 4, "dtn/zero-date→-infinity": 4, "dtd/zero-date→-infinity": 4,
		"dt6/zero-date→NULL": 2, "dt0/zero-date→NULL": 2, "ts6/zero-date→NULL": 2, "tsn/zero-date→-infinity": 2, "tx/NUL stripped": 2, "j/NUL stripped": 2}
	got := map[string]int64{}
	for _, c := range changes.Counts() {
		got[c.Column+"/"+c.Policy] = c.Count
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("policy counts = %v, want %v", got, want)
	}
}

func convertRow(t *testing.T, conv *TableConv, row []any, f func(*ColumnConv, any) (any, error)) []any {
	t.Helper()
	out := make([]any, len(row))
	for i, v := range row {
		var err error
		if out[i], err = f(conv.Columns[i], v); err != nil {
			t.Errorf("convert: %v", err)
		}
	}
	return out
}

// selectConverted reads the table the way the snapshot reader does:
// SelectExpr per column, raw bytes, FromText.
func selectConverted(t *testing.T, my *sql.DB, conv *TableConv) [][]any {
	t.Helper()
	exprs := make([]string, len(conv.Columns))
	for i, cc := range conv.Columns {
		exprs[i] = SelectExpr(cc.Column, "`"+cc.Column.Name+"`")
	}
	rows, err := my.Query("SELECT " + strings.Join(exprs, ", ") + " FROM rt ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]any
	raw := make([]sql.RawBytes, len(exprs))
	ptrs := make([]any, len(exprs))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(raw))
		for i, b := range raw {
			var err error
			if row[i], err = conv.Columns[i].FromText(b); err != nil {
				t.Errorf("FromText: %v", err)
			}
		}
		out = append(out, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func insertRows(t *testing.T, pool *pgxpool.Pool, table string, cols []string, rows [][]any) {
	t.Helper()
	ph := make([]string, len(cols))
	quoted := make([]string, len(cols))
	for i := range cols {
		ph[i] = fmt.Sprintf("$%d", i+1)
		quoted[i] = pgx.Identifier{cols[i]}.Sanitize()
	}
	q := "INSERT INTO " + table + " (" + strings.Join(quoted, ", ") + ") VALUES (" + strings.Join(ph, ", ") + ")"
	for _, r := range rows {
		if _, err := pool.Exec(context.Background(), q, r...); err != nil {
			t.Fatalf("INSERT of binlog-path values: %v", err)
		}
	}
}

// checkPGText compares every cell's PostgreSQL text form with the expected one.
func checkPGText(t *testing.T, pool *pgxpool.Pool, table string, conv *TableConv, corpus typecorpus.Corpus) {
	t.Helper()
	exprs := make([]string, len(conv.Columns))
	for i, cc := range conv.Columns {
		exprs[i] = pgx.Identifier{cc.Column.Name}.Sanitize() + "::text"
		if cc.Kind == KindInet {
			// inet::text always shows the netmask; host() is the address.
			exprs[i] = "host(" + pgx.Identifier{cc.Column.Name}.Sanitize() + ")"
		}
	}
	rows, err := pool.Query(context.Background(), "SELECT "+strings.Join(exprs, ", ")+" FROM "+table+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	r := 0
	for rows.Next() {
		vals := make([]*string, len(exprs))
		ptrs := make([]any, len(exprs))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, cc := range conv.Columns[1:] {
			c := corpus[i]
			if c.Name != cc.Column.Name {
				t.Fatalf("column %d is %s, the corpus has %s there", i+1, cc.Column.Name, c.Name)
			}
			want := c.PG(r)
			got := typecorpus.Null
			if v := vals[i+1]; v != nil {
				got = *v
			}
			if got != want {
				t.Errorf("%s row %d column %s (%s): PostgreSQL shows %q, want %q", table, r, cc.Column.Name, cc.PGType, got, want)
			}
		}
		r++
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if r != typecorpus.Rows {
		t.Errorf("%s: %d rows, want %d", table, r, typecorpus.Rows)
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}

// canonicalOrRaw is CanonicalJSON of a shown JSON value, or the value itself.
func canonicalOrRaw(s string) string {
	if c, err := CanonicalJSON([]byte(s), false, ""); err == nil {
		return c
	}
	return s
}
