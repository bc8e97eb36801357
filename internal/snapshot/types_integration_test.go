package snapshot

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/postgres"
	"github.com/sluice-db/sluice/internal/testenv"
)

// typeColumn is one source column with its edge values: the SQL literal
// inserted into row i (rows beyond the list hold NULL) and the text
// PostgreSQL shows for the copied value ("NULL" for NULL).
type typeColumn struct {
	name, ddl string
	values    [][2]string
}

const null = "NULL"

var ones64 = strings.Repeat("1", 64)

// typeColumns covers every MySQL/MariaDB type family with its edge values
// (issue 3's acceptance list).
var typeColumns = []typeColumn{
	{"ti", "TINYINT", [][2]string{{"-128", "-128"}, {"127", "127"}, {"0", "0"}}},
	{"tb", "TINYINT(1)", [][2]string{{"82", "82"}, {"1", "1"}, {"0", "0"}}},
	{"tu", "TINYINT UNSIGNED", [][2]string{{"255", "255"}, {"0", "0"}}},
	{"si", "SMALLINT", [][2]string{{"-32768", "-32768"}, {"32767", "32767"}}},
	{"su", "SMALLINT UNSIGNED", [][2]string{{"65535", "65535"}, {"0", "0"}}},
	{"mi", "MEDIUMINT", [][2]string{{"-8388608", "-8388608"}, {"8388607", "8388607"}}},
	{"mu", "MEDIUMINT UNSIGNED", [][2]string{{"16777215", "16777215"}, {"0", "0"}}},
	{"i", "INT", [][2]string{{"-2147483648", "-2147483648"}, {"2147483647", "2147483647"}}},
	{"iu", "INT UNSIGNED", [][2]string{{"4294967295", "4294967295"}, {"0", "0"}}},
	{"bi", "BIGINT", [][2]string{{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775807", "9223372036854775807"}}},
	{"bu", "BIGINT UNSIGNED", [][2]string{{"18446744073709551615", "18446744073709551615"}, {"0", "0"}}},
	{"d65", "DECIMAL(65,30)", [][2]string{
		{"99999999999999999999999999999999999.999999999999999999999999999999", "99999999999999999999999999999999999.999999999999999999999999999999"},
		{"-99999999999999999999999999999999999.999999999999999999999999999999", "-99999999999999999999999999999999999.999999999999999999999999999999"},
		{"0.000000000000000000000000000001", "0.000000000000000000000000000001"},
		{"0", "0.000000000000000000000000000000"},
	}},
	{"f", "FLOAT", [][2]string{{"0.1", "0.1"}, {"123456789", "1.2345679e+08"}, {"3.4028234e38", "3.4028235e+38"}}},
	{"db", "DOUBLE", [][2]string{{"0.1e0+0.2e0", "0.30000000000000004"}, {"5e-324", "5e-324"}, {"1.7976931348623157e308", "1.7976931348623157e+308"}}},
	{"b1", "BIT(1)", [][2]string{{"b'1'", "1"}, {"b'0'", "0"}}},
	{"b64", "BIT(64)", [][2]string{{"b'" + ones64 + "'", ones64}, {"1", strings.Repeat("0", 63) + "1"}}},
	{"y", "YEAR", [][2]string{{"0", "0"}, {"2155", "2155"}, {"1901", "1901"}}},
	{"dt", "DATE", [][2]string{{"'2024-02-29'", "2024-02-29"}, {"'0000-00-00'", null}, {"'2020-00-15'", null}, {"'9999-12-31'", "9999-12-31"}}},
	{"dtn", "DATE NOT NULL", [][2]string{{"'0000-00-00'", "-infinity"}, {"'2020-05-00'", "-infinity"}, {"'1000-01-01'", "1000-01-01"}, {"'2000-01-01'", "2000-01-01"}}},
	{"dt6", "DATETIME(6)", [][2]string{
		{"'2020-01-02 03:04:05.123456'", "2020-01-02 03:04:05.123456"},
		{"'9999-12-31 23:59:59.999999'", "9999-12-31 23:59:59.999999"},
		{"'1000-01-01 00:00:00'", "1000-01-01 00:00:00"},
		{"'0000-00-00 00:00:00.000000'", null},
	}},
	{"ts6", "TIMESTAMP(6) NULL", [][2]string{
		{"'1970-01-01 00:00:01.000001'", "1970-01-01 00:00:01.000001+00"},
		{"'2038-01-19 03:14:07.999999'", "2038-01-19 03:14:07.999999+00"},
		{"'0000-00-00 00:00:00'", null},
	}},
	{"tm6", "TIME(6)", [][2]string{
		{"'-838:59:59.000000'", "-838:59:59"}, {"'838:59:59'", "838:59:59"},
		{"'-00:00:00.5'", "-00:00:00.5"}, {"'12:34:56.000001'", "12:34:56.000001"},
	}},
	{"vc", "VARCHAR(20) CHARACTER SET utf8mb4", [][2]string{{"''", ""}, {"'ab  '", "ab  "}, {"'😀 four bytes'", "😀 four bytes"}}},
	{"lat", "VARCHAR(10) CHARACTER SET latin1", [][2]string{{"'é€ÿ'", "é€ÿ"}, {"''", ""}, {"x'81'", "\u0081"}}},
	{"ch", "CHAR(5) CHARACTER SET latin1", [][2]string{{"'ab  '", "ab"}, {"'é'", "é"}}},
	{"tx", "TEXT CHARACTER SET utf8mb4", [][2]string{{"'a\\0b'", "ab"}, {"REPEAT('x', 1000)", strings.Repeat("x", 1000)}, {"''", ""}}},
	{"t16", "TEXT CHARACTER SET utf16", [][2]string{{"'a😀'", "a😀"}}},
	{"sj", "VARCHAR(10) CHARACTER SET sjis", [][2]string{{"'日本'", "日本"}}},
	{"bn", "BINARY(4)", [][2]string{{"'a\\0'", `\x61000000`}, {"x'00000000'", `\x00000000`}, {"x'00ff0001'", `\x00ff0001`}}},
	{"vb", "VARBINARY(10)", [][2]string{{"x'00ff00'", `\x00ff00`}, {"''", `\x`}, {"x'6100'", `\x6100`}}},
	{"en", "ENUM('a','b','ü')", [][2]string{{"'zz'", ""}, {"'ü'", "ü"}, {"'a'", "a"}}},
	{"st", "SET('x','y','z')", [][2]string{{"''", ""}, {"'x,z'", "x,z"}, {"'z,y,x'", "x,y,z"}}},
	{"j", "JSON", [][2]string{
		{`'{"b": {"c": null}, "a": [1, "ü😀", {"d": [true, 1.5]}]}'`, `{"a": [1, "ü😀", {"d": [true, 1.5]}], "b": {"c": null}}`},
		{`'[]'`, `[]`},
		{`'"\\u0000x"'`, `"x"`},
	}},
	{"g", "GEOMETRY", [][2]string{{"ST_GeomFromText('POINT(1 2)', 4326)", `\xe61000000101000000000000000000f03f0000000000000040`}}},
	{"u", "UUID", [][2]string{{"'123e4567-e89b-12d3-a456-426655440000'", "123e4567-e89b-12d3-a456-426655440000"}}},
	{"i4", "INET4", [][2]string{{"'255.255.255.255'", "255.255.255.255"}}},
	{"i6", "INET6", [][2]string{{"'2001:db8::'", "2001:db8::"}}},
}

// bigBlob is 16 MiB with zero bytes inside and at the end.
const bigBlob = "REPEAT(CONCAT(x'00ff', 'abcde', x'00'), 2097152)"

// TestSnapshotEveryTypeExact is issue 3's type acceptance test: a table
// with every type and its edge values goes through the whole snapshot
// (consistent read, chunks, binary COPY); every value is read back from
// PostgreSQL and compared with the expected value, and every value a
// policy changed is listed in the report.
func TestSnapshotEveryTypeExact(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_types")
	my := env.MySQL(t, db)
	ctx := context.Background()
	var ddl strings.Builder
	ddl.WriteString("CREATE TABLE every (id INT PRIMARY KEY, big LONGBLOB")
	rows := 0
	for _, c := range typeColumns {
		fmt.Fprintf(&ddl, ", `%s` %s", c.name, c.ddl)
		rows = max(rows, len(c.values))
	}
	ddl.WriteString(") CHARACTER SET utf8mb4")
	mustExec(t, my, ddl.String())
	for r := 0; r < rows; r++ {
		cols, vals := []string{"id", "big"}, []string{fmt.Sprint(r + 1), "NULL"}
		if r == 0 {
			vals[1] = bigBlob
		}
		for _, c := range typeColumns {
			cols = append(cols, "`"+c.name+"`")
			if r < len(c.values) {
				vals = append(vals, c.values[r][0])
			} else {
				vals = append(vals, "NULL")
			}
		}
		mustExec(t, my, "SET SESSION sql_mode = ''; INSERT INTO every ("+strings.Join(cols, ", ")+") VALUES ("+strings.Join(vals, ", ")+")")
	}
	opts := testOptions(t, env, db)
	opts.ChunkRows = 2
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	conn, err := pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET TimeZone = 'UTC'"); err != nil {
		t.Fatal(err)
	}
	postgis, _ := postgres.HasExtension(ctx, conn, "postgis")
	for _, c := range typeColumns {
		expr := `"` + c.name + `"::text`
		switch {
		case c.name == "g" && postgis:
			expr = `encode(ST_AsEWKB("g"), 'hex')`
		case c.name == "i4" || c.name == "i6":
			expr = `host("` + c.name + `")` // inet::text appends the netmask
		}
		got := map[int]string{}
		rs, err := conn.Query(ctx, `SELECT id, `+expr+` FROM "`+db+`".every ORDER BY id`)
		if err != nil {
			t.Fatalf("column %s: %v", c.name, err)
		}
		for rs.Next() {
			var id int
			var v *string
			if err := rs.Scan(&id, &v); err != nil {
				t.Fatal(err)
			}
			got[id] = null
			if v != nil {
				got[id] = *v
			}
		}
		rs.Close()
		for r := 0; r < rows; r++ {
			want := null
			if r < len(c.values) {
				want = c.values[r][1]
			}
			if c.name == "g" && postgis && want != null {
				want = "0101000020e6100000000000000000f03f0000000000000040"
			}
			if got[r+1] != want {
				t.Errorf("%s (%s) row %d: PostgreSQL has %q, want %q", c.name, c.ddl, r+1, got[r+1], want)
			}
		}
	}
	var myLen int64
	var myMD5 string
	if err := my.QueryRow("SELECT LENGTH(big), MD5(big) FROM every WHERE id = 1").Scan(&myLen, &myMD5); err != nil {
		t.Fatal(err)
	}
	var pgLen int64
	var pgMD5 string
	if err := conn.QueryRow(ctx, `SELECT length(big), md5(big) FROM "`+db+`".every WHERE id = 1`).Scan(&pgLen, &pgMD5); err != nil {
		t.Fatal(err)
	}
	if myLen != 16<<20 || pgLen != myLen || pgMD5 != myMD5 {
		t.Errorf("16 MiB blob: source %d bytes md5 %s, target %d bytes md5 %s", myLen, myMD5, pgLen, pgMD5)
	}
	table := db + ".every"
	want := map[string]int64{"dt/zero-date→NULL": 2, "dtn/zero-date→-infinity": 2, "dt6/zero-date→NULL": 1,
		"ts6/zero-date→NULL": 1, "tx/NUL stripped": 1, "j/NUL stripped": 1}
	got := map[string]int64{}
	for _, c := range rep.Changes {
		if c.Table != table {
			t.Errorf("change counted for table %q, want %q", c.Table, table)
		}
		got[c.Column+"/"+c.Policy] = c.Count
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("report's values changed by policy = %v, want %v", got, want)
	}
	if rep.Rows != int64(rows) || rep.Bytes < 16<<20 {
		t.Errorf("report: %d rows, %d bytes", rep.Rows, rep.Bytes)
	}
	var text strings.Builder
	rep.WriteText(&text)
	if !strings.Contains(text.String(), "every.dtn: 2 × zero-date→-infinity") {
		t.Errorf("text report does not list the changed values:\n%s", text.String())
	}
}
