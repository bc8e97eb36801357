package ddl_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// generatedFixture has one STORED generated column per supported construct;
// PostgreSQL must compute exactly the values MariaDB computed.
const generatedFixture = `CREATE TABLE gen (
  id INT PRIMARY KEY, a INT, b INT, d DECIMAL(10,2), s VARCHAR(20), dt DATETIME(6), dd DATE,
  g1 INT AS (a + b * 2) STORED,
  g2 DECIMAL(20,4) AS (a / b) STORED,
  g3 INT AS (a DIV b) STORED,
  g4 INT AS (a MOD b) STORED,
  g5 VARCHAR(50) AS (CONCAT(s, '-', a)) STORED,
  g6 VARCHAR(20) AS (UPPER(LEFT(s, 3))) STORED,
  g7 INT AS (IF(a > b, a, b)) STORED,
  g8 INT AS (CASE WHEN a IS NULL THEN -1 WHEN a < 0 THEN 0 ELSE 1 END) STORED,
  g9 INT AS (YEAR(dt)) STORED,
  g10 INT AS (DATEDIFF(dt, dd)) STORED,
  g11 DECIMAL(12,2) AS (ROUND(d * 1.5, 1)) STORED,
  g12 INT AS (COALESCE(a, b, 0)) STORED,
  g13 INT AS (CHAR_LENGTH(s)) STORED,
  g14 VARCHAR(20) AS (SUBSTRING(s, 2, 3)) STORED,
  g15 INT AS (a > 0 AND b > 0) STORED,
  g16 DECIMAL(14,2) AS (ABS(a) + FLOOR(d)) STORED,
  g17 VARCHAR(30) AS (TRIM(s)) STORED,
  g18 INT AS (SECOND(dt)) STORED,
  g19 VARCHAR(40) AS (REPLACE(s, 'a', 'xy')) STORED,
  g20 INT AS (-a) STORED,
  g21 INT AS (g1 + 1) STORED,
  g22 DECIMAL(12,3) AS (TRUNCATE(d, 1)) STORED,
  g23 INT AS (a <=> b) STORED,
  g24 INT AS (b IN (0, 2, 3)) STORED,
  g25 INT AS (MONTH(dd) + DAY(dd)) STORED,
  g26 VARCHAR(40) AS (LPAD(s, 8, '*')) STORED,
  g27 BIGINT AS (a * 1000000000 + b) STORED
)`

const generatedRows = `SET SESSION sql_mode = ''; INSERT INTO gen (id, a, b, d, s, dt, dd) VALUES
  (1, 1, 2, 1.25, 'abc', '2020-05-06 07:08:09.5', '2020-01-01'),
  (2, -7, 0, -3.45, '  padded  ', '1999-12-31 23:59:59', '2000-03-01'),
  (3, NULL, 3, NULL, NULL, NULL, NULL),
  (4, 10, -3, 99.99, 'aAaé', '2024-02-29 00:00:00.000001', '2024-02-28'),
  (5, 7, 2, 0.05, '', '2000-01-01 00:00:00', '1970-01-01'),
  (6, -9, 4, -0.05, 'x', '2000-01-01 00:00:00', '2000-01-02')`

// driftFixture has one STORED generated column per construct on which the
// two expression translators sluice had (ddl's and objects') disagreed:
// each was refused, failed on PostgreSQL or computed another value before
// they became one (internal/sqlexpr).
const driftFixture = `CREATE TABLE gen (
  id INT PRIMARY KEY, a INT, b INT, d DECIMAL(10,2), s VARCHAR(20), dd DATE,
  q1 DECIMAL(12,4) AS (a / b) STORED,
  w1 BIGINT AS (a * a) STORED,
  p1 INT AS (QUARTER(dd)) STORED,
  h1 INT AS (HOUR(dd)) STORED,
  t1 VARCHAR(20) AS (TRIM(BOTH 'é' FROM s)) STORED,
  c1 VARCHAR(20) AS (COALESCE(a, 'none')) STORED,
  l1 VARCHAR(20) AS (LOWER(a)) STORED,
  sp VARCHAR(20) AS (CONCAT('[', SPACE(b), ']')) STORED,
  si VARCHAR(20) AS (SUBSTRING_INDEX(s, 'a', 1)) STORED,
  cs BIGINT AS (CAST(d AS SIGNED)) STORED,
  r1 DECIMAL(10,2) AS (d / 3) STORED,
  r2 DECIMAL(12,4) AS (r1 * 3) STORED
)`

const driftRows = `SET SESSION sql_mode = ''; INSERT INTO gen (id, a, b, d, s, dd) VALUES
  (1, 1, 3, 1.25, 'éaé', '2020-05-06'),
  (2, 100000, 7, -3.45, 'banana', '1999-12-31'),
  (3, NULL, NULL, NULL, NULL, NULL),
  (4, -7, 2, 2.50, 'xyz', '2024-02-29'),
  (5, 5, 0, 0.05, '', '2000-01-01')`

func TestGeneratedColumnsComputeTheSameValues(t *testing.T) {
	testGeneratedValues(t, generatedFixture, generatedRows, 7, 6)
}

// TestGeneratedResolvedDriftsComputeTheSameValues: what the one translator
// resolved, PostgreSQL computes as MariaDB does.
func TestGeneratedResolvedDriftsComputeTheSameValues(t *testing.T) {
	testGeneratedValues(t, driftFixture, driftRows, 6, 5)
}

// TestGeneratedQuotientsFollowTheSource: a DECIMAL quotient stored in a
// generated column has the source's digits, which differ between the two
// flavors (MySQL rounds to the dividend's scale + 4, MariaDB truncates at
// words of 9 digits), including quotients of computed dividends.
func TestGeneratedQuotientsFollowTheSource(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		testGeneratedValuesOn(t, env, quotientFixture, quotientRows, 4, 5)
	})
}

const quotientFixture = `CREATE TABLE gen (
  id INT PRIMARY KEY, a INT, b INT, d DECIMAL(10,2),
  q1 DECIMAL(20,8) AS ((d + 0.125) / 7) STORED,
  q2 DECIMAL(20,6) AS (d * a * (100 - b) / 100) STORED,
  q3 DECIMAL(30,12) AS (a / b) STORED,
  q4 DECIMAL(20,6) AS (-d / 3) STORED,
  q5 DECIMAL(30,14) AS (d / 7 / 3) STORED
)`

const quotientRows = `SET SESSION sql_mode = ''; INSERT INTO gen (id, a, b, d) VALUES
  (1, 1, 3, 1.25), (2, 100000, 7, -3.45), (3, NULL, NULL, NULL), (4, -7, 2, 2.50), (5, 5, 0, 0.05)`

// testGeneratedValues creates table gen from fixture on the source, inserts
// rows, plans it for PostgreSQL (every expression must translate), copies
// the base columns and compares every generated value.
func testGeneratedValues(t *testing.T, fixture, rows string, baseCols, nRows int) {
	testGeneratedValuesOn(t, testenv.Get(t), fixture, rows, baseCols, nRows)
}

func testGeneratedValuesOn(t *testing.T, env *testenv.Env, fixture, rows string, baseCols, nRows int) {
	ctx := context.Background()
	dbName := env.NewDatabase(t, "ddl_gen")
	my := env.MySQL(t, dbName)
	for _, s := range []string{fixture, rows} {
		if _, err := my.ExecContext(ctx, s); err != nil {
			t.Fatalf("%v\n%s", err, s)
		}
	}
	f, _ := schema.NewFilter(nil, nil, dbName)
	cat, err := schema.Load(ctx, my, f)
	if err != nil {
		t.Fatal(err)
	}
	tb := cat.Tables[0]
	n, _ := schema.NewNaming(nil)
	opts := typemap.DefaultOptions()
	opts.SourceFlavor = string(env.Flavor()) // MariaDB and MySQL differ in a DECIMAL quotient's digits
	plan, err := ddl.CreateTable(tb, typemap.New(opts, nil), n)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range plan.Warnings {
		t.Errorf("unexpected warning (every expression here must translate): %s", w)
	}
	writable := ddl.WritableColumns(tb)
	if len(writable) != baseCols {
		t.Fatalf("WritableColumns = %v, want the %d base columns", writable, baseCols)
	}
	pg := env.PG(t)
	run(t, pg, ddl.CreateSchema(dbName, n))
	for _, s := range plan.Create {
		run(t, pg, s)
	}
	copyBaseRows(t, my, tb, plan, writable, pg)
	var gens []string
	for _, c := range tb.Columns {
		if c.GenerationExpr != "" {
			gens = append(gens, c.Name)
		}
	}
	mySQL := "SELECT " + strings.Join(gens, ", ") + " FROM gen ORDER BY id"
	pgCols := make([]string, len(gens))
	for i, g := range gens {
		pgCols[i] = schema.QuoteIdent(g) + "::text"
	}
	pgSQL := "SELECT " + strings.Join(pgCols, ", ") + " FROM " + plan.QName + " ORDER BY id"
	myRows := readStrings(t, my, mySQL, len(gens))
	pgRows, err := pg.Query(ctx, pgSQL)
	if err != nil {
		t.Fatal(err)
	}
	row := 0
	for pgRows.Next() {
		vals := make([]*string, len(gens))
		ptrs := make([]any, len(gens))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := pgRows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		for i, g := range gens {
			if show(vals[i]) != show(myRows[row][i]) {
				c := tb.Column(g)
				t.Errorf("row %d %s AS (%s): PostgreSQL %s, MariaDB %s", row+1, g, c.GenerationExpr, show(vals[i]), show(myRows[row][i]))
			}
		}
		row++
	}
	if row != nRows {
		t.Errorf("%d rows on PostgreSQL, want %d", row, nRows)
	}
}

func show(p *string) string {
	if p == nil {
		return "NULL"
	}
	return *p
}

func readStrings(t *testing.T, db *sql.DB, q string, n int) [][]*string {
	t.Helper()
	rows, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][]*string
	for rows.Next() {
		vals := make([]sql.NullString, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		r := make([]*string, n)
		for i, v := range vals {
			if v.Valid {
				s := v.String
				r[i] = &s
			}
		}
		out = append(out, r)
	}
	return out
}

// copyBaseRows copies the writable columns as PostgreSQL literals.
func copyBaseRows(t *testing.T, my *sql.DB, tb *schema.Table, plan *ddl.TablePlan, writable []int, pg *pgxpool.Pool) {
	t.Helper()
	names := make([]string, len(writable))
	for i, w := range writable {
		names[i] = tb.Columns[w].Name
	}
	rows := readStrings(t, my, "SELECT "+strings.Join(names, ", ")+" FROM gen ORDER BY id", len(names))
	for _, r := range rows {
		vals := make([]string, len(r))
		for i, v := range r {
			if v == nil {
				vals[i] = "NULL"
				continue
			}
			vals[i] = "'" + strings.ReplaceAll(*v, "'", "''") + "'::" + plan.Columns[writable[i]].PGType
		}
		run(t, pg, "INSERT INTO "+plan.QName+" ("+schema.QuoteIdents(names)+") VALUES ("+strings.Join(vals, ", ")+")")
	}
}
