package realworld

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/testenv"
)

// col is one compared column: the same value written as MySQL and as
// PostgreSQL SQL text, so both sides print it identically. kind "json"
// compares documents by value (jsonb reorders keys).
type col struct {
	name   string // the source column (compareTable maps it to the target's name)
	my, pg string
	json   bool
	float  bool // FLOAT/DOUBLE: compared as the float64 value
	// zeroAnySign: -0 and 0 compare equal (a keyless table's rows are
	// found by SQL equality, where -0 = 0: TestFuzzDifferential).
	zeroAnySign bool
}

// plain is a column whose text form is the same in both databases
// (integers, DECIMAL, text, ENUM, SET, YEAR, DATE).
func plain(name string) col {
	return col{name: name, my: "`" + name + "`", pg: pgx.Identifier{name}.Sanitize() + "::text"}
}

// nulStripped is a text column under sluice's default --nul-char strip:
// PostgreSQL text cannot hold U+0000, so the target has the text without it.
func nulStripped(name string) col {
	return col{name: name, my: "REPLACE(`" + name + "`, CHAR(0), '')", pg: pgx.Identifier{name}.Sanitize() + "::text"}
}

// ts is a TIMESTAMP/DATETIME with up to 6 fractional digits; MySQL's zero
// value and PostgreSQL's -infinity (sluice's NOT NULL zero-date policy)
// print alike.
func ts(name string) col {
	q := pgx.Identifier{name}.Sanitize()
	return col{
		name: name,
		my:   fmt.Sprintf("CASE WHEN `%s` = 0 THEN 'ZERO' ELSE DATE_FORMAT(`%s`, '%%Y-%%m-%%d %%H:%%i:%%s.%%f') END", name, name),
		pg:   fmt.Sprintf("CASE WHEN %s = '-infinity' THEN 'ZERO' ELSE to_char(%s AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.US') END", q, q),
	}
}

// datetime is like ts for zone-less DATETIME columns (PostgreSQL timestamp).
func datetime(name string) col {
	q := pgx.Identifier{name}.Sanitize()
	return col{
		name: name,
		my:   fmt.Sprintf("CASE WHEN `%s` = 0 THEN 'ZERO' ELSE DATE_FORMAT(`%s`, '%%Y-%%m-%%d %%H:%%i:%%s.%%f') END", name, name),
		pg:   fmt.Sprintf("CASE WHEN %s = '-infinity' THEN 'ZERO' ELSE to_char(%s, 'YYYY-MM-DD HH24:MI:SS.US') END", q, q),
	}
}

// hexed compares bytes: BLOB, BINARY, geometry (bytea holds MySQL's SRID+WKB).
func hexed(name string) col {
	return col{name: name, my: "HEX(`" + name + "`)", pg: "upper(encode(" + pgx.Identifier{name}.Sanitize() + ", 'hex'))"}
}

// timeCol compares TIME as [-]HH:MM:SS.ffffff with the hours beyond 24:
// PostgreSQL's interval may hold them as days ('1 day 01:00:00').
func timeCol(name string) col {
	q := pgx.Identifier{name}.Sanitize()
	return col{
		name: name,
		my:   fmt.Sprintf("TIME_FORMAT(`%s`, '%%H:%%i:%%s.%%f')", name),
		pg: fmt.Sprintf(`(SELECT CASE WHEN e < 0 THEN '-' ELSE '' END || CASE WHEN h < 10 THEN '0' ELSE '' END || h ||
			to_char(make_interval(secs => (abs(e) - h * 3600)::float8), ':MI:SS.US')
			FROM (SELECT extract(epoch FROM %s) AS e) s, LATERAL (SELECT floor(abs(e) / 3600)::bigint AS h) t)`, q),
	}
}

// bit compares BIT(n) as a number.
func bit(name string) col {
	return col{name: name, my: "CAST(`" + name + "` AS UNSIGNED)", pg: pgx.Identifier{name}.Sanitize() + "::bigint::text"}
}

// float compares FLOAT and DOUBLE by value: both widened to double, printed
// by Go (the databases print exponents differently).
func float(name string) col {
	return col{name: name, my: "CAST(`" + name + "` AS DOUBLE)", pg: pgx.Identifier{name}.Sanitize() + "::float8::text", float: true}
}

func jsonCol(name string) col {
	return col{name: name, my: "`" + name + "`", pg: pgx.Identifier{name}.Sanitize() + "::text", json: true}
}

// compareTable requires the rows of db.table to be equal on both sides,
// column by column, and the source to have at least minRows rows. Rows are
// compared as sorted lists of their rendered text: ORDER BY would sort by
// each database's collation and NULL order.
func compareTable(t *testing.T, m migrated, table string, minRows int, cols ...col) {
	t.Helper()
	myExprs, pgExprs := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		myExprs[i], pgExprs[i] = c.my, c.pg
		if to := m.pgColumn(table, c.name); c.name != "" && to != c.name {
			pgExprs[i] = strings.ReplaceAll(c.pg, pgx.Identifier{c.name}.Sanitize(), pgx.Identifier{to}.Sanitize())
		}
	}
	myQ := fmt.Sprintf("SELECT %s FROM `%s`", strings.Join(myExprs, ", "), table)
	pgQ := fmt.Sprintf("SELECT %s FROM %s", strings.Join(pgExprs, ", "), m.pgq(table))
	src := mysqlText(t, m.my, myQ, cols)
	dst := pgText(t, m, pgQ, cols)
	slices.Sort(src)
	slices.Sort(dst)
	if len(src) < minRows {
		t.Errorf("%s: %d source rows, want at least %d", table, len(src), minRows)
	}
	if len(src) != len(dst) {
		t.Errorf("%s: %d source rows, %d target rows", table, len(src), len(dst))
	}
	bad := 0
	for i := 0; i < min(len(src), len(dst)); i++ {
		if src[i] != dst[i] {
			if bad++; bad <= 5 {
				t.Errorf("%s row %d:\n source %s\n target %s", table, i, src[i], dst[i])
			}
		}
	}
}

func mysqlText(t *testing.T, my *sql.DB, q string, cols []col) []string {
	t.Helper()
	var out []string
	for _, vals := range testenv.MySQLTexts(t, my, q) {
		parts := make([]string, len(cols))
		for i, v := range vals {
			parts[i] = renderText(t, v.String, v.Valid, cols[i])
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

func pgText(t *testing.T, m migrated, q string, cols []col) []string {
	t.Helper()
	var out []string
	for _, vals := range testenv.PGTexts(t, m.pg, q) {
		parts := make([]string, len(cols))
		for i, v := range vals {
			s := ""
			if v != nil {
				s = *v
			}
			parts[i] = renderText(t, s, v != nil, cols[i])
		}
		out = append(out, strings.Join(parts, " | "))
	}
	return out
}

// renderText prints NULL as NULL, JSON documents canonically (keys sorted,
// no spaces), floats as Go's shortest form, everything else quoted as is.
func renderText(t *testing.T, s string, valid bool, c col) string {
	if !valid {
		return "NULL"
	}
	if c.float {
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Errorf("float %q: %v", s, err)
			return s
		}
		if c.zeroAnySign && f == 0 {
			f = 0
		}
		return strconv.FormatFloat(f, 'g', -1, 64)
	}
	if !c.json {
		return fmt.Sprintf("%q", s)
	}
	var v any
	d := json.NewDecoder(strings.NewReader(s))
	d.UseNumber()
	if err := d.Decode(&v); err != nil {
		t.Errorf("invalid JSON %q: %v", s, err)
		return s
	}
	v = canonicalNumbers(v)
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	_ = e.Encode(v)
	return strings.TrimSpace(b.String())
}

// canonicalNumbers replaces every number of a decoded JSON document by its
// exact value as a fraction (1.5e300 and jsonb's 15000…0 are one number).
func canonicalNumbers(v any) any {
	switch x := v.(type) {
	case json.Number:
		if r, ok := new(big.Rat).SetString(string(x)); ok {
			return "number:" + r.RatString()
		}
	case map[string]any:
		for k, e := range x {
			x[k] = canonicalNumbers(e)
		}
	case []any:
		for i, e := range x {
			x[i] = canonicalNumbers(e)
		}
	}
	return v
}

// count returns SELECT count(*) of a source table.
func count(t *testing.T, my *sql.DB, table string) int {
	t.Helper()
	var n int
	if err := my.QueryRow("SELECT count(*) FROM `" + table + "`").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}
