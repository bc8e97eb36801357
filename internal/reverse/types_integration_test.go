package reverse

import (
	"slices"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// typeCols is a MySQL table of every type the reverse stream writes back.
const typeCols = `(id INT PRIMARY KEY, ti TINYINT, tu TINYINT UNSIGNED, tb TINYINT(1), si SMALLINT UNSIGNED, mi MEDIUMINT,
	iu INT UNSIGNED, bi BIGINT, bu BIGINT UNSIGNED, de DECIMAL(65,30), fl FLOAT, db DOUBLE, bt BIT(64), yr YEAR,
	dt DATE, zd DATE NOT NULL, dtm DATETIME(6), ts TIMESTAMP(3) NULL, tm TIME(6), tm2 TIME, ch CHAR(10),
	vc VARCHAR(20) CHARACTER SET utf8mb3, la VARCHAR(10) CHARACTER SET latin1, tx TEXT, bn BINARY(4), vb VARBINARY(10),
	bl BLOB, en ENUM('a','b','c'), st SET('x','y','z'), js JSON, nl VARCHAR(5) NULL, uu UUID, i4 INET4, i6 INET6)`

var typeNames = []string{"id", "ti", "tu", "tb", "si", "mi", "iu", "bi", "bu", "de", "fl", "db", "bt", "yr", "dt", "zd", "dtm",
	"ts", "tm", "tm2", "ch", "vc", "la", "tx", "bn", "vb", "bl", "en", "st", "js", "nl", "uu", "i4", "i6"}

// TestReverseEveryType: a table copied to PostgreSQL by sluice snapshot,
// then written on PostgreSQL (insert, update, delete of every type's
// column), comes back into MySQL holding exactly the bytes that the same
// writes made directly in MySQL hold (its twin table).
func TestReverseEveryType(t *testing.T) {
	testenv.Flavors(t, reverseEveryType)
}

func reverseEveryType(t *testing.T, env *testenv.Env) {
	cols, names := typeCols, typeNames
	// MariaDB's own types; MySQL has no UUID, INET4, INET6.
	mariadbOnly := func(s string) string {
		if !env.IsMySQL() {
			return s
		}
		s = strings.Replace(s, ", uu UUID, i4 INET4, i6 INET6)", ")", 1)
		s = strings.Replace(s, ", '00000000-0000-0000-0000-000000000000', '0.0.0.0', '::')", ")", 1)
		s = strings.Replace(s, ",\n\t\t'123e4567-e89b-12d3-a456-426614174000', '192.168.7.1', '2001:db8::ff00:42:8329')", ")", 1)
		return strings.Replace(s, ", i6 = '::ffff:10.1.2.3'", "", 1)
	}
	if env.IsMySQL() {
		cols, names = mariadbOnly(cols), names[:len(names)-3]
	}
	g := newRigOn(t, env, "rvtypes", "CREATE TABLE t "+cols, "CREATE TABLE twin "+cols)
	g.filter = mariadbOnly
	row1 := `(1, 1, 2, 1, 3, 4, 5, 6, 7, 1.5, 0.5, 0.25, b'101', 2000, '2000-01-01', '2000-01-02', '2000-01-01 00:00:00.5',
		'2000-01-01 00:00:00', '01:00:00', '02:00:00', 'a', 'b', 'c', 'd', x'01', x'02', x'03', 'a', 'x', '{"k": 1}', 'n', '00000000-0000-0000-0000-000000000000', '0.0.0.0', '::')`
	g.mysql("INSERT INTO t VALUES "+row1, "INSERT INTO twin VALUES "+row1, "INSERT INTO t (id, zd) VALUES (3, '2001-01-01')",
		"INSERT INTO twin (id, zd) VALUES (3, '2001-01-01')")
	g.snapshot()
	g.catchUp() // arms the slot: the writes below are the stream's

	g.postgres(`INSERT INTO t VALUES (2, -128, 255, 82, 65535, -8388608, 4294967295, -9223372036854775808, 18446744073709551615,
		12345678901234567890123456789012345.123456789012345678901234567890, 0.1, 1.7976931348623157e308,
		B'1111111111111111111111111111111111111111111111111111111111111111', 2155, '9999-12-31', '-infinity',
		'2024-02-29 23:59:59.999999', '2038-01-19 03:14:07.499+00', '-838:59:59', '4 days 04:00:00', 'héllo  ', 'ǅ€',
		'café', 'emoji 😀 and ''quotes'' \ back', '\x0102', '\x00ff', '\xdeadbeef', 'c', 'x,z', '{"a": null, "b": [1, 2.5, "s"]}', NULL,
		'123e4567-e89b-12d3-a456-426614174000', '192.168.7.1', '2001:db8::ff00:42:8329')`,
		`UPDATE t SET ti = 127, de = -0.000000000000000000000000000001, fl = 3.4028235e38, bt = B'0000000000000000000000000000000000000000000000000000000000000000',
		yr = 0, tm = '838:59:59', ch = '', en = '', st = '', js = '[]', nl = 'x', bl = '\x', i6 = '::ffff:10.1.2.3' WHERE id = 1`,
		`DELETE FROM t WHERE id = 3`)
	g.mysql("SET SESSION sql_mode = '', time_zone = '+00:00'",
		`INSERT INTO twin VALUES (2, -128, 255, 82, 65535, -8388608, 4294967295, -9223372036854775808, 18446744073709551615,
		12345678901234567890123456789012345.123456789012345678901234567890, 0.1, 1.7976931348623157e308,
		b'1111111111111111111111111111111111111111111111111111111111111111', 2155, '9999-12-31', '0000-00-00',
		'2024-02-29 23:59:59.999999', '2038-01-19 03:14:07.499', '-838:59:59', '100:00:00', 'héllo  ', 'ǅ€',
		'café', 'emoji 😀 and ''quotes'' \\ back', x'0102', x'00ff', x'deadbeef', 'c', 'x,z', '{"a": null, "b": [1, 2.5, "s"]}', NULL,
		'123e4567-e89b-12d3-a456-426614174000', '192.168.7.1', '2001:db8::ff00:42:8329')`,
		`UPDATE twin SET ti = 127, de = -0.000000000000000000000000000001, fl = 3.4028235e38, bt = b'0', yr = 0, tm = '838:59:59',
		ch = '', en = 0, st = '', js = '[]', nl = 'x', bl = '', i6 = '::ffff:10.1.2.3' WHERE id = 1`,
		`DELETE FROM twin WHERE id = 3`)
	g.catchUp()

	got, want := g.rows("t", names, "id"), g.rows("twin", names, "id")
	if !slices.Equal(got, want) {
		for i := range max(len(got), len(want)) {
			var a, b string
			if i < len(got) {
				a = got[i]
			}
			if i < len(want) {
				b = want[i]
			}
			if a != b {
				ga, wb := strings.Split(a, "|"), strings.Split(b, "|")
				for j := range min(len(ga), len(wb)) {
					if ga[j] != wb[j] {
						t.Errorf("row %d column %s: reverse wrote %s, MySQL holds %s", i, names[j], ga[j], wb[j])
					}
				}
				if len(ga) != len(wb) {
					t.Errorf("row %d: %q vs %q", i, a, b)
				}
			}
		}
		t.Fatalf("reverse rows differ from direct MySQL writes:\n got %q\nwant %q", got, want)
	}
}
