package verify

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// normCase is one column of the normalisation corpus: the MySQL type, the
// values inserted on the source (SQL literals, one per row; rows beyond hold
// NULL), and "near" values: per row, a PostgreSQL literal one step away from
// what the snapshot wrote (one ulp, digit, bit, microsecond, member...),
// which must print differently.
type normCase struct {
	name, ddl string
	values    []string
	near      map[int]string
}

var all64 = strings.Repeat("1", 64)

var normCorpus = []normCase{ // corpusFor leaves out what the source flavor lacks
	{"ti", "TINYINT", []string{"-128", "127", "0"}, map[int]string{0: "-127"}},
	{"tb", "TINYINT(1)", []string{"82", "1"}, map[int]string{1: "0"}},
	{"su", "SMALLINT UNSIGNED", []string{"65535"}, map[int]string{0: "65534"}},
	{"mu", "MEDIUMINT UNSIGNED", []string{"16777215"}, nil},
	{"iu", "INT UNSIGNED", []string{"4294967295", "0"}, map[int]string{0: "4294967294"}},
	{"iz", "INT(5) ZEROFILL", []string{"42", "0"}, map[int]string{0: "43"}},
	{"bi", "BIGINT", []string{"-9223372036854775808", "9223372036854775807"}, map[int]string{0: "-9223372036854775807"}},
	{"bu", "BIGINT UNSIGNED", []string{"18446744073709551615", "0"}, map[int]string{0: "18446744073709551614"}},
	{"bz", "BIGINT UNSIGNED ZEROFILL", []string{"18446744073709551615", "7"}, map[int]string{1: "8"}},
	{"d65", "DECIMAL(65,30)", []string{
		"99999999999999999999999999999999999.999999999999999999999999999999",
		"-99999999999999999999999999999999999.999999999999999999999999999999",
		"0.000000000000000000000000000001", "0", "-0.5"},
		map[int]string{0: "99999999999999999999999999999999999.999999999999999999999999999998",
			2: "0.000000000000000000000000000002", 3: "0.000000000000000000000000000001"}},
	{"d52", "DECIMAL(5,2)", []string{"-999.99", "1.5", "0"}, map[int]string{1: "1.51"}},
	{"dz", "DECIMAL(6,2) ZEROFILL", []string{"1.5", "0"}, map[int]string{0: "1.49"}},
	{"f", "FLOAT", []string{"0.1", "123456789", "3.4028234e38", "-1.17549435e-38", "1.4e-45", "16777217", "-0.0", "100000", "1e-10"},
		map[int]string{0: "0.10000001", 1: "123456800", 2: "3.4028232e38", 4: "2.8e-45", 5: "16777218"}},
	{"f73", "FLOAT(7,3)", []string{"1.2345", "-0.001"}, map[int]string{0: "1.2340001"}},
	{"db", "DOUBLE", []string{"0.1e0+0.2e0", "5e-324", "1.7976931348623157e308", "1e0/3", "1e20", "1e-7",
		"123456789012345680000", "100000", "1e15", "1e16", "0.000123", "-2.5e-5", "1234567890123456", "-0.0", "1e22", "123.456",
		// Shortest decimals exactly half-way to the next double (PostgreSQL
		// prints one digit more: 5.0338927417975757e+17, 7.731297084326081e+18).
		"5.033892741797576e17", "-6.503372078601166e16", "1.7976931348623155e308", "7.73129708432608e18"},
		map[int]string{0: "0.30000000000000009", 1: "1e-323", 2: "1.7976931348623155e308", 3: "0.33333333333333337",
			4: "100000000000000010000", 5: "1.0000000000000001e-07", 8: "1000000000000000.1", 10: "0.00012300000000000004",
			13: "5e-324", 15: "123.45600000000002", 16: "5.033892741797577e17", 17: "-6.503372078601167e16", 19: "7.73129708432609e18"}},
	{"d102", "DOUBLE(10,2)", []string{"1.23456"}, map[int]string{0: "1.2300000000000002"}},
	{"b1", "BIT(1)", []string{"b'1'", "b'0'"}, map[int]string{0: "B'0'"}},
	{"b10", "BIT(10)", []string{"b'1000000001'"}, map[int]string{0: "B'1000000000'"}},
	{"b64", "BIT(64)", []string{"b'" + all64 + "'", "1"},
		map[int]string{0: "B'" + all64[:63] + "0'", 1: "B'" + strings.Repeat("0", 62) + "10'"}},
	{"y", "YEAR", []string{"0", "2155", "1901"}, map[int]string{1: "2154"}},
	{"dt", "DATE", []string{"'2024-02-29'", "'0000-00-00'", "'2020-00-15'", "'9999-12-31'", "'0000-01-01'", "'2021-02-29'", "'0099-03-04'"},
		map[int]string{0: "'2024-02-28'", 1: "'-infinity'", 3: "'9999-12-30'", 4: "'0001-01-01'"}},
	{"dtn", "DATE NOT NULL", []string{"'0000-00-00'", "'2020-05-00'", "'1000-01-01'", "'2000-01-01'", "'2019-04-31'", "'2000-02-29'", "'1900-02-29'"},
		map[int]string{0: "'0001-01-01'", 2: "'1000-01-02'", 5: "'2000-03-01'"}},
	{"dt6", "DATETIME(6)", []string{"'2020-01-02 03:04:05.123456'", "'9999-12-31 23:59:59.999999'", "'1000-01-01 00:00:00'",
		"'0000-00-00 00:00:00.000000'", "'0000-01-01 10:11:12.5'"},
		map[int]string{0: "'2020-01-02 03:04:05.123457'", 1: "'9999-12-31 23:59:59.999998'", 2: "'1000-01-01 00:00:00.000001'",
			3: "'-infinity'", 4: "'0001-01-01 10:11:12.5'"}},
	{"dt0", "DATETIME", []string{"'2020-00-15 01:02:03'", "'2001-02-03 04:05:06'"}, map[int]string{1: "'2001-02-03 04:05:07'"}},
	{"ts6", "TIMESTAMP(6) NULL", []string{"'1970-01-01 00:00:01.000001'", "'2038-01-19 03:14:07.999999'", "'0000-00-00 00:00:00'"},
		map[int]string{0: "'1970-01-01 00:00:01+00'", 1: "'2038-01-19 03:14:07.999999+01'"}},
	{"tsn", "TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00'", []string{"'0000-00-00 00:00:00'", "'2001-02-03 04:05:06'",
		"'2000-01-01 00:00:00'", "'2020-06-30 23:59:59'"}, map[int]string{0: "'1970-01-01 00:00:00+00'", 1: "'2001-02-03 04:05:07+00'"}},
	{"tm6", "TIME(6)", []string{"'-838:59:59.000000'", "'838:59:59'", "'-00:00:00.5'", "'12:34:56.000001'", "'00:00:00'"},
		map[int]string{0: "'-838:59:58.999999'", 1: "'838:59:59.000001'", 2: "'00:00:00.5'", 3: "'12:34:56'", 4: "'00:00:00.000001'"}},
	{"tm1", "TIME(1)", []string{"'-00:00:01.1'", "'838:59:59.9'"}, map[int]string{0: "'-00:00:01'"}},
	{"vc", "VARCHAR(20) CHARACTER SET utf8mb4", []string{"''", "'ab  '", "'😀 four bytes'", "'a|b'", "'~'"},
		map[int]string{0: "NULL", 1: "'ab '", 2: "'😀 four byteS'", 3: "'a|c'", 4: "'~~'"}},
	{"vc2", "VARCHAR(20) CHARACTER SET utf8mb4", []string{"NULL", "'|'", "''", "'b'", "'~'"},
		map[int]string{0: "''", 4: "NULL"}},
	{"ch", "CHAR(5) CHARACTER SET latin1", []string{"'ab  '", "'é€'", "x'81'", "'x'"}, map[int]string{0: "'ab '", 1: "'e€'"}},
	{"u3", "VARCHAR(10) CHARACTER SET utf8mb3", []string{"'äöü'"}, map[int]string{0: "'äöu'"}},
	{"tx", "TEXT CHARACTER SET utf8mb4", []string{"'a\\0b'", "REPEAT('x', 1000)", "'Ünïcödé'"}, map[int]string{0: "'a b'", 1: "repeat('x', 999)"}},
	{"t16", "TEXT CHARACTER SET utf16", []string{"'a😀'"}, map[int]string{0: "'a😁'"}},
	{"tsj", "VARCHAR(10) CHARACTER SET sjis", []string{"'日本'", "'ｱ\\\\'"}, map[int]string{0: "'日木'"}},
	{"gr", "VARCHAR(10) CHARACTER SET greek", []string{"'αβγ'"}, nil},
	{"bn", "BINARY(4)", []string{"'a\\0'", "x'00000000'", "x'00ff0001'"}, map[int]string{0: `'\x61000001'`, 1: `'\x000000'`}},
	{"vb", "VARBINARY(10)", []string{"x'00ff00'", "''"}, map[int]string{0: `'\x00ff'`, 1: "NULL"}},
	{"lb", "LONGBLOB", []string{"x'610062'", "REPEAT('ab', 100000)"}, map[int]string{0: `'\x610063'`}},
	{"en", "ENUM('a','b','ü')", []string{"'zz'", "'ü'", "'a'"}, map[int]string{0: "NULL", 1: "'b'", 2: "'b'"}},
	{"st", "SET('x','y','z')", []string{"''", "'x,z'", "'z,y,x'"}, map[int]string{0: "NULL", 1: "'x'", 2: "'x,y'"}},
	{"g", "GEOMETRY", []string{"ST_GeomFromText('POINT(1 2)', 4326)"}, map[int]string{0: `'\xe61000000101000000000000000000f03f0000000000000840'`}},
	{"u", "UUID", []string{"'123e4567-e89b-12d3-a456-426655440000'", "'ffffffff-ffff-1fff-bfff-ffffffffffff'"},
		map[int]string{0: "'123e4567-e89b-12d3-a456-426655440001'"}},
	{"i4", "INET4", []string{"'1.2.0.0'", "'255.255.255.255'", "'0.0.0.0'"}, map[int]string{0: "'1.2.0.1'"}},
	{"i6", "INET6", []string{"'::ffff:1.2.3.4'", "'2001:db8::'", "'::'", "'2001:db8:0:0:1:0:0:1'"}, map[int]string{1: "'2001:db8::1'", 2: "'::1'"}},
}

// mariadbOnlyTypes are the corpus columns of MariaDB-only types.
var mariadbOnlyTypes = map[string]bool{"UUID": true, "INET4": true, "INET6": true}

// corpusFor is the corpus without the types the source's flavor lacks.
func corpusFor(env *testenv.Env) []normCase {
	if !env.IsMySQL() {
		return normCorpus
	}
	var out []normCase
	for _, c := range normCorpus {
		if !mariadbOnlyTypes[c.ddl] {
			out = append(out, c)
		}
	}
	return out
}

func corpusRows(corpus []normCase) int {
	n := 0
	for _, c := range corpus {
		n = max(n, len(c.values))
	}
	return n
}

// TestNormalisationAgrees inserts the corpus into MariaDB, copies it the
// way the snapshot does, and requires every column's MySQL and PostgreSQL
// expressions to print identical text for every row; then it moves each
// "near" value one step on the target and requires the texts to differ.
func TestNormalisationAgrees(t *testing.T) { testenv.Flavors(t, testNormalisationAgrees) }

func testNormalisationAgrees(t *testing.T, env *testenv.Env) {
	s := newSide(t, env, "verify_norm")
	ctx := context.Background()
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE nt (id INT PRIMARY KEY")
	for _, c := range corpusFor(s.env) {
		fmt.Fprintf(&ddl, ", `%s` %s", c.name, c.ddl)
	}
	ddl.WriteString(") CHARACTER SET utf8mb4")
	s.mustMy(t, ddl.String())
	var ins strings.Builder
	ins.WriteString("SET SESSION sql_mode = 'ALLOW_INVALID_DATES'; INSERT INTO nt VALUES ")
	for r := range corpusRows(corpusFor(s.env)) {
		if r > 0 {
			ins.WriteString(", ")
		}
		fmt.Fprintf(&ins, "(%d", r)
		for _, c := range corpusFor(s.env) {
			v := "NULL"
			if r < len(c.values) {
				v = c.values[r]
			}
			ins.WriteString(", " + v)
		}
		ins.WriteString(")")
	}
	s.mustMy(t, ins.String())

	charsets, err := typemap.LoadCharsets(ctx, s.my)
	if err != nil {
		t.Fatal(err)
	}
	opts := typemap.DefaultOptions()
	opts.Charsets = charsets
	tb := loadTable(t, s.my, s.db, "nt")
	s.snapshot(t, opts, "nt")
	conv, err := typemap.New(opts, nil).Compile(tb)
	if err != nil {
		t.Fatal(err)
	}
	cols := make([]*verifydb.NormColumn, len(conv.Columns))
	for i, cc := range conv.Columns {
		if cols[i], err = verifydb.NewNormColumn(cc, cc.Column.Name, opts); err != nil {
			t.Fatal(err)
		}
	}

	myText := s.myTexts(t, cols, false)
	pgText := s.pgTexts(t, cols)
	for r := range myText {
		for i, c := range cols {
			if a, b := myText[r][i], pgText[r][i]; a != b {
				t.Errorf("row %d column %s (%s): MySQL %q, PostgreSQL %q", r, c.Name, c.Kind, a, b)
			}
		}
	}
	// The checksum form differs only where the NUL policy applies.
	for r, row := range s.myTexts(t, cols, true) {
		for i, c := range cols {
			a, b := row[i], pgText[r][i]
			if nul := strings.Contains(a, "\x00"); (a != b) != nul {
				t.Errorf("row %d column %s (%s): checksum text %q, PostgreSQL %q", r, c.Name, c.Kind, a, b)
			}
		}
	}
	if t.Failed() {
		return
	}

	// One step away on the target must print differently.
	for i, c := range corpusFor(s.env) {
		for r, lit := range c.near {
			s.mustPG(t, fmt.Sprintf("UPDATE %s.nt SET %s = %s WHERE id = %d", verifydb.QuotePG(s.pgSchm), verifydb.QuotePG(c.name), lit, r))
			got := s.pgTexts(t, cols)[r][i+1]
			if got == myText[r][i+1] {
				t.Errorf("column %s row %d: target value %s prints like the source value: %q", c.name, r, lit, got)
			}
		}
	}
}

// myTexts returns the normalised text of every cell, NULL as nullText.
func (s *side) myTexts(t *testing.T, cols []*verifydb.NormColumn, fast bool) [][]string {
	t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "COALESCE(" + c.MySQL + ", '" + verifydb.NullText + "')"
		if fast {
			exprs[i] = "COALESCE(" + c.MySQLFast + ", '" + verifydb.NullText + "')"
		}
		if c.IsJSON() {
			exprs[i] = "COALESCE(" + c.MySQLRaw + ", '" + verifydb.NullText + "')"
		}
	}
	rows, err := s.my.Query("SELECT " + strings.Join(exprs, ", ") + " FROM nt ORDER BY id")
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(exprs, ",\n"))
	}
	defer rows.Close()
	return scanTexts(t, rows, len(exprs))
}

func (s *side) pgTexts(t *testing.T, cols []*verifydb.NormColumn) [][]string {
	t.Helper()
	exprs := make([]string, len(cols))
	for i, c := range cols {
		exprs[i] = "COALESCE(" + c.PG + ", '" + verifydb.NullText + "')"
		if c.IsJSON() {
			exprs[i] = "COALESCE(" + c.PGRaw + ", '" + verifydb.NullText + "')"
		}
	}
	rows, err := s.pg.Query(context.Background(), "SELECT "+strings.Join(exprs, ", ")+" FROM "+verifydb.QuotePG(s.pgSchm)+".nt ORDER BY id")
	if err != nil {
		t.Fatalf("%v\n%s", err, strings.Join(exprs, ",\n"))
	}
	defer rows.Close()
	return scanTexts(t, rows, len(exprs))
}

// scanTexts reads every row of n text columns.
func scanTexts(t *testing.T, rows verifydb.AggRows, n int) [][]string {
	t.Helper()
	var out [][]string
	for rows.Next() {
		vals := make([]string, n)
		ptrs := make([]any, n)
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		out = append(out, vals)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}
