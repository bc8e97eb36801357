package binlog

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The differential test of --where: every supported construct is evaluated
// by the source itself (SELECT id FROM t WHERE cond) and by rowpolicy on
// the same rows as the binlog decoder hands them to the pipeline; the sets
// of ids must be equal.
const policyDDL = `CREATE TABLE t (
	id INT PRIMARY KEY,
	i INT NULL, u INT UNSIGNED NULL, b BIGINT NULL,
	d DECIMAL(10,3) NULL, f DOUBLE NULL,
	s VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
	sb VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NULL,
	su VARCHAR(20) CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci NULL,
	c CHAR(5) CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
	e ENUM('red','green','Blue') CHARACTER SET utf8mb4 COLLATE utf8mb4_general_ci NULL,
	dt DATE NULL, ts DATETIME(3) NULL, vb VARBINARY(10) NULL)`

var policyConds = []string{
	"i = 1", "i <> 1", "i != 1", "i < 0", "i >= 2", "i <=> NULL", "i <=> 1", "i IS NULL", "i IS NOT NULL",
	"i IN (1, 2, NULL)", "i NOT IN (1, 2)", "i NOT IN (1, NULL)", "i BETWEEN -1 AND 2", "i NOT BETWEEN -1 AND 2",
	"u > 3", "u = 4294967295", "b + i * 2 > 3", "i - b < 0", "i DIV 2 = 1", "i % 3 = 1", "-i > 2", "abs(i) = 3",
	"b > 9000000000000000000", "d > 1.5", "d = 2", "d * 2 = 3.000", "d BETWEEN -1.25 AND 2.5", "d < i", "f > 1.5", "f + d > 0", "f = 0.1",
	"s = 'a'", "s = 'A '", "s < 'b'", "s >= 'e'", "s LIKE 'a%'", "s LIKE '_'", "s NOT LIKE '%b'", "s = 'e'", "s = 's'", "s = 'ss'",
	"s LIKE 'a\\_b'", "s LIKE 'a!%b' ESCAPE '!'", "s > 'E'", "s IN ('é', 'x')",
	"sb = 'a'", "sb < 'b'", "sb LIKE 'A%'", "sb = 'a '", "su = 'a'", "su LIKE 'a%'", "su IN ('a', 'B')", "su <> 'ab'",
	"c = 'a'", "c LIKE 'a'", "c = 'ab '", "char_length(s) = 2", "length(s) = 2", "lower(sb) = 'a'", "upper(su) = 'AB'",
	"e = 'green'", "e IN ('red', 'blue')", "e IS NULL",
	"dt = '2024-01-02'", "dt < '2024-01-02 12:00:00'", "dt BETWEEN '2023-12-31' AND '2024-01-02'",
	"ts > '2024-01-02 10:00:00.5'", "ts = dt", "ts >= '2024-01-02'",
	"vb = 'ab'", "vb LIKE 'a%'", "length(vb) > 1",
	"coalesce(i, 0) = 0", "ifnull(d, 1) > 0.5", "NOT (i > 1)", "i > 0 AND s = 'a'", "i > 0 OR s IS NULL",
	"NOT (i > 1 OR d < 0)", "i > 0 XOR d > 0", "(i > 1) IS TRUE", "(i > 1) IS NOT FALSE", "(i > 1) IS FALSE", "(d > 0) IS NOT TRUE",
	"!(i = 1)", "TRUE", "i", "d", "NULL", "i = 1 AND NULL", "i = 1 OR NULL",
}

func TestRowPolicyDifferential(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, func(t *testing.T, env *testenv.Env) {
		f := newFixtureOn(t, env, "rp_diff", policyDDL)
		start := f.position()
		const n = 300
		rng := rand.New(rand.NewPCG(7, 25))
		for id := 1; id <= n; id++ {
			args := append([]any{id}, randomPolicyRow(rng)...)
			if _, err := f.my.Exec("INSERT INTO t VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)", args...); err != nil {
				t.Fatalf("insert %v: %v", args, err)
			}
		}
		tbl := f.tables()[schema.TableID{Database: f.db, Name: "t"}]
		rows := collectInserts(t, startStream(t, f.config(start, ignoreOthers(f.db))), n)
		for _, cond := range policyConds {
			flt, err := rowpolicy.CompileFilter(tbl, cond)
			if err != nil {
				t.Errorf("%s: %v", cond, err)
				continue
			}
			var want []int
			rs, err := f.my.Query("SELECT id FROM t WHERE " + flt.SQL() + " ORDER BY id")
			if err != nil {
				t.Fatalf("%s (%s): %v", cond, flt.SQL(), err)
			}
			for rs.Next() {
				var id int
				if err := rs.Scan(&id); err != nil {
					t.Fatal(err)
				}
				want = append(want, id)
			}
			rs.Close()
			var got []int
			for _, row := range rows {
				ok, err := flt.Match(row)
				if err != nil {
					t.Fatalf("%s: row %v: %v", cond, row, err)
				}
				if ok {
					got = append(got, int(row[0].(int32)))
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s: the evaluator matched %d rows, the source %d\nonly evaluator: %v\nonly source: %v",
					cond, len(got), len(want), minus(got, want), minus(want, got))
			}
		}
		if len(want0(t, f)) == 0 {
			t.Fatal("no rows")
		}
		for _, bad := range []string{"nosuch = 1", "i = ", "s = 1", "i / 2 > 1", "s REGEXP 'a'", "su < 'b'",
			"now() > dt", "other.x = 1", "s", "u - 1 > 0", "dt = 'yesterday'", "coalesce(s, sb) = 'a'"} {
			_, err := rowpolicy.CompileFilter(tbl, bad)
			if err == nil || exitcode.Of(err) != exitcode.Config {
				t.Errorf("%s: want a configuration error (exit 2), got %v", bad, err)
			}
		}
	})
}

func want0(t *testing.T, f *fixture) []string {
	return testenv.MySQLRows(t, f.my, "SELECT id FROM t LIMIT 1")
}

func minus(a, b []int) []int {
	var out []int
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}

// collectInserts reads n inserted rows from the stream, as the pipeline
// receives them (no conversion).
func collectInserts(t *testing.T, r *running, n int) [][]any {
	t.Helper()
	var rows [][]any
	deadline := time.After(2 * time.Minute)
	for len(rows) < n {
		select {
		case txn, ok := <-r.out:
			if !ok {
				t.Fatalf("stream ended: %v", r.stop())
			}
			for _, c := range txn.Changes {
				if c.Op == model.Insert && c.Table.Name == "t" {
					rows = append(rows, c.After)
				}
			}
		case <-deadline:
			t.Fatalf("%d of %d rows within 2 minutes", len(rows), n)
		}
	}
	return rows
}

func pick[T any](rng *rand.Rand, vs ...T) any {
	if rng.IntN(8) == 0 {
		return nil
	}
	return vs[rng.IntN(len(vs))]
}

func randomPolicyRow(rng *rand.Rand) []any {
	ascii := []string{"a", "A", "a ", "b", "ab", "aB", "AB", "B", "e", "E", "x", "", " ", "a_b", "a%b", "axb", "ss", "s", "zz"}
	latin := append(slices.Clone(ascii), "é", "É", "ß", "à", "Ab", "ÿ", "ñ", "æ")
	return []any{
		pick(rng, -3, -1, 0, 1, 2, 3, 4),
		pick(rng, int64(0), int64(3), int64(4), int64(2147483648), int64(4294967295)),
		pick(rng, int64(-2), int64(0), int64(1), int64(2), int64(9000000000000000001), int64(-9000000000000000000)),
		pick(rng, "-1.250", "0.000", "1.500", "1.501", "2.000", "2.500", "-0.001", "999999.999"),
		pick(rng, 0.1, 1.5, 1.5000001, -2.0, 0.0, 1e10),
		pick(rng, latin...),
		pick(rng, ascii...),
		pick(rng, ascii...),
		pick(rng, "a", "A", "ab", "b", "", "AB"),
		pick(rng, "red", "green", "Blue"),
		pick(rng, "2024-01-02", "2023-12-31", "2024-01-03", "1999-05-06"),
		pick(rng, "2024-01-02 00:00:00.000", "2024-01-02 10:00:00.500", "2024-01-02 10:00:00.501", "2023-12-31 23:59:59.999"),
		pick(rng, []byte("ab"), []byte("a"), []byte("AB"), []byte("a\x00"), []byte{0xff, 0x01}),
	}
}
