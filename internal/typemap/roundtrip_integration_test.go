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
)

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// e2eColumn is one MariaDB column with its edge values: the SQL literal
// inserted and the text PostgreSQL shows for the converted value ("NULL"
// for NULL). Rows beyond a column's values hold NULL.
type e2eColumn struct {
	name, ddl string
	values    [][2]string
}

const nullText = "NULL"

var all64 = strings.Repeat("1", 64)

var e2eColumns = []e2eColumn{
	{"ti", "TINYINT", [][2]string{{"-128", "-128"}, {"127", "127"}, {"0", "0"}}},
	{"tb", "TINYINT(1)", [][2]string{{"82", "82"}, {"1", "1"}}},
	{"tu", "TINYINT UNSIGNED", [][2]string{{"255", "255"}, {"0", "0"}}},
	{"si", "SMALLINT", [][2]string{{"-32768", "-32768"}, {"32767", "32767"}}},
	{"su", "SMALLINT UNSIGNED", [][2]string{{"65535", "65535"}}},
	{"mi", "MEDIUMINT", [][2]string{{"-8388608", "-8388608"}, {"8388607", "8388607"}}},
	{"mu", "MEDIUMINT UNSIGNED", [][2]string{{"16777215", "16777215"}}},
	{"i", "INT", [][2]string{{"-2147483648", "-2147483648"}, {"2147483647", "2147483647"}}},
	{"iu", "INT UNSIGNED", [][2]string{{"4294967295", "4294967295"}}},
	{"iz", "INT(5) ZEROFILL", [][2]string{{"42", "42"}}},
	{"bi", "BIGINT", [][2]string{{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775807", "9223372036854775807"}}},
	{"bu", "BIGINT UNSIGNED", [][2]string{{"18446744073709551615", "18446744073709551615"}, {"0", "0"}}},
	{"d65", "DECIMAL(65,30)", [][2]string{
		{"99999999999999999999999999999999999.999999999999999999999999999999", "99999999999999999999999999999999999.999999999999999999999999999999"},
		{"-99999999999999999999999999999999999.999999999999999999999999999999", "-99999999999999999999999999999999999.999999999999999999999999999999"},
		{"0.000000000000000000000000000001", "0.000000000000000000000000000001"},
		{"0", "0.000000000000000000000000000000"},
	}},
	{"d52", "DECIMAL(5,2)", [][2]string{{"-999.99", "-999.99"}, {"1.5", "1.50"}}},
	{"f", "FLOAT", [][2]string{{"0.1", "0.1"}, {"123456789", "1.2345679e+08"}, {"3.4028234e38", "3.4028235e+38"}, {"-1.17549435e-38", "-1.1754944e-38"}}},
	{"f73", "FLOAT(7,3)", [][2]string{{"1.2345", "1.234"}}},
	{"db", "DOUBLE", [][2]string{{"0.1e0+0.2e0", "0.30000000000000004"}, {"5e-324", "5e-324"}, {"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1e0/3", "0.3333333333333333"}}},
	{"d102", "DOUBLE(10,2)", [][2]string{{"1.23456", "1.23"}}},
	{"b1", "BIT(1)", [][2]string{{"b'1'", "1"}, {"b'0'", "0"}}},
	{"b10", "BIT(10)", [][2]string{{"b'1000000001'", "1000000001"}}},
	{"b64", "BIT(64)", [][2]string{{"b'" + all64 + "'", all64}, {"1", strings.Repeat("0", 63) + "1"}}},
	{"y", "YEAR", [][2]string{{"0", "0"}, {"2155", "2155"}, {"1901", "1901"}}},
	{"dt", "DATE", [][2]string{{"'2024-02-29'", "2024-02-29"}, {"'0000-00-00'", nullText}, {"'2020-00-15'", nullText}, {"'9999-12-31'", "9999-12-31"}}},
	{"dtn", "DATE NOT NULL", [][2]string{{"'0000-00-00'", "-infinity"}, {"'2020-05-00'", "-infinity"}, {"'1000-01-01'", "1000-01-01"}, {"'2000-01-01'", "2000-01-01"}}},
	{"dt6", "DATETIME(6)", [][2]string{
		{"'2020-01-02 03:04:05.123456'", "2020-01-02 03:04:05.123456"},
		{"'9999-12-31 23:59:59.999999'", "9999-12-31 23:59:59.999999"},
		{"'1000-01-01 00:00:00'", "1000-01-01 00:00:00"},
		{"'0000-00-00 00:00:00.000000'", nullText},
	}},
	{"dt0", "DATETIME", [][2]string{{"'2020-00-15 01:02:03'", nullText}, {"'2001-02-03 04:05:06'", "2001-02-03 04:05:06"}}},
	{"ts6", "TIMESTAMP(6) NULL", [][2]string{
		{"'1970-01-01 00:00:01.000001'", "1970-01-01 00:00:01.000001+00"},
		{"'2038-01-19 03:14:07.999999'", "2038-01-19 03:14:07.999999+00"},
		{"'0000-00-00 00:00:00'", nullText},
	}},
	{"tsn", "TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00'", [][2]string{
		{"'0000-00-00 00:00:00'", "-infinity"}, {"'2001-02-03 04:05:06'", "2001-02-03 04:05:06+00"},
		{"'2000-01-01 00:00:00'", "2000-01-01 00:00:00+00"}, {"'2020-06-30 23:59:59'", "2020-06-30 23:59:59+00"},
	}},
	{"tm6", "TIME(6)", [][2]string{
		{"'-838:59:59.000000'", "-838:59:59"}, {"'838:59:59'", "838:59:59"},
		{"'-00:00:00.5'", "-00:00:00.5"}, {"'12:34:56.000001'", "12:34:56.000001"},
	}},
	{"tm1", "TIME(1)", [][2]string{{"'-00:00:01.1'", "-00:00:01.1"}, {"'838:59:59.9'", "838:59:59.9"}}},
	{"vc", "VARCHAR(20) CHARACTER SET utf8mb4", [][2]string{{"''", ""}, {"'ab  '", "ab  "}, {"'😀 four bytes'", "😀 four bytes"}}},
	{"ch", "CHAR(5) CHARACTER SET latin1", [][2]string{{"'ab  '", "ab"}, {"'é€'", "é€"}, {"x'81'", "\u0081"}}},
	{"tx", "TEXT CHARACTER SET utf8mb4", [][2]string{{"'a\\0b'", "ab"}, {"REPEAT('x', 1000)", strings.Repeat("x", 1000)}}},
	{"t16", "TEXT CHARACTER SET utf16", [][2]string{{"'a😀'", "a😀"}}},
	{"tsj", "VARCHAR(10) CHARACTER SET sjis", [][2]string{{"'日本'", "日本"}, {"'ｱ\\\\'", "ｱ\\"}}},
	{"c16", "CHAR(4) CHARACTER SET utf16", [][2]string{{"'ab  '", "ab"}, {"'😀'", "😀"}}},
	{"tis", "VARCHAR(10) CHARACTER SET tis620", [][2]string{{"'ภาษาไทย'", "ภาษาไทย"}}},
	{"uj", "VARCHAR(10) CHARACTER SET ujis", [][2]string{{"'丂日本'", "丂日本"}}},
	{"gr", "VARCHAR(10) CHARACTER SET greek", [][2]string{{"'αβγ'", "αβγ"}}},
	{"b5", "TEXT CHARACTER SET big5", [][2]string{{"'中文'", "中文"}}},
	{"bn", "BINARY(4)", [][2]string{{"'a\\0'", `\x61000000`}, {"x'00000000'", `\x00000000`}, {"x'00ff0001'", `\x00ff0001`}}},
	{"vb", "VARBINARY(10)", [][2]string{{"x'00ff00'", `\x00ff00`}, {"''", `\x`}}},
	{"lb", "LONGBLOB", [][2]string{{"x'610062'", `\x610062`}}},
	{"en", "ENUM('a','b','ü')", [][2]string{{"'zz'", ""}, {"'ü'", "ü"}, {"'a'", "a"}}},
	{"st", "SET('x','y','z')", [][2]string{{"''", ""}, {"'x,z'", "x,z"}, {"'z,y,x'", "x,y,z"}}},
	{"j", "LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin CHECK (json_valid(j))", [][2]string{
		{`'{"b": {"c": null}, "a": [1, "ü😀"]}'`, `{"a": [1, "ü😀"], "b": {"c": null}}`},
		{`'[]'`, `[]`},
		{`'"\\u0000x"'`, `"x"`},
	}},
	{"g", "GEOMETRY", [][2]string{{"ST_GeomFromText('POINT(1 2)', 4326)", `\xe61000000101000000000000000000f03f0000000000000040`}}},
	{"u", "UUID", [][2]string{
		{"'123e4567-e89b-12d3-a456-426655440000'", "123e4567-e89b-12d3-a456-426655440000"},
		{"'ffffffff-ffff-1fff-bfff-ffffffffffff'", "ffffffff-ffff-1fff-bfff-ffffffffffff"},
		{"'00000000-0000-0000-0000-000000000000'", "00000000-0000-0000-0000-000000000000"},
	}},
	{"i4", "INET4", [][2]string{{"'1.2.0.0'", "1.2.0.0"}, {"'255.255.255.255'", "255.255.255.255"}, {"'0.0.0.0'", "0.0.0.0"}}},
	{"i6", "INET6", [][2]string{{"'::ffff:1.2.3.4'", "::ffff:1.2.3.4"}, {"'2001:db8::'", "2001:db8::"}, {"'::'", "::"}}},
}

func e2eRowCount() int {
	n := 0
	for _, c := range e2eColumns {
		n = max(n, len(c.values))
	}
	return n
}

// TestRoundTrip inserts every type's edge values into MariaDB, converts
// them through both paths (text protocol via SelectExpr, and the row
// events go-mysql decodes from the binlog), requires both to agree, writes
// them into PostgreSQL with COPY (text path) and INSERT parameters (binlog
// path) and compares what PostgreSQL shows with the expected text.
func TestRoundTrip(t *testing.T) {
	env := sandboxOrSkip(t)
	my, dbName := env.mysqlDB(t, "typemap_rt")
	ctx := context.Background()
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE rt (id INT PRIMARY KEY")
	for _, c := range e2eColumns {
		fmt.Fprintf(&ddl, ", `%s` %s", c.name, c.ddl)
	}
	ddl.WriteString(") CHARACTER SET utf8mb4")
	if _, err := my.Exec(ddl.String()); err != nil {
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
	n := e2eRowCount()
	insertE2ERows(t, my, n)

	fromBinlog := make([][]any, 0, n)
	tail.rows(t, dbName, "rt", n, func(row []any) {
		fromBinlog = append(fromBinlog, convertRow(t, conv, row, (*ColumnConv).FromBinlog))
	})
	fromText := selectConverted(t, my, conv)

	for r := range n {
		for i, cc := range conv.Columns {
			if a, b := show(fromText[r][i]), show(fromBinlog[r][i]); a != b {
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
		checkPGText(t, pool, table, conv)
	}

	want := map[string]int64{"dt/zero-date→NULL": 4, "dtn/zero-date→-infinity": 4, "dt6/zero-date→NULL": 2,
		"dt0/zero-date→NULL": 2, "ts6/zero-date→NULL": 2, "tsn/zero-date→-infinity": 2, "tx/NUL stripped": 2, "j/NUL stripped": 2}
	got := map[string]int64{}
	for _, c := range changes.Counts() {
		got[c.Column+"/"+c.Policy] = c.Count
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("policy counts = %v, want %v", got, want)
	}
}

func insertE2ERows(t *testing.T, my *sql.DB, n int) {
	t.Helper()
	var b strings.Builder
	// Non-strict for this session only: it lets zero dates and the invalid ENUM value in.
	b.WriteString("SET SESSION sql_mode = ''; INSERT INTO rt (id")
	for _, c := range e2eColumns {
		b.WriteString(", `" + c.name + "`")
	}
	b.WriteString(") VALUES ")
	for r := range n {
		if r > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "(%d", r)
		for _, c := range e2eColumns {
			v := "NULL"
			if r < len(c.values) {
				v = c.values[r][0]
			}
			b.WriteString(", " + v)
		}
		b.WriteString(")")
	}
	if _, err := my.Exec(b.String()); err != nil {
		t.Fatal(err)
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
func checkPGText(t *testing.T, pool *pgxpool.Pool, table string, conv *TableConv) {
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
			want := nullText
			if c := e2eColumns[i]; r < len(c.values) {
				want = c.values[r][1]
			}
			got := nullText
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
	if r != e2eRowCount() {
		t.Errorf("%s: %d rows, want %d", table, r, e2eRowCount())
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
