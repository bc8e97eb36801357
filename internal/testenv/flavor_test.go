package testenv

import (
	"strings"
	"testing"
)

// TestFlavorsReachBothServers runs against MariaDB and MySQL: each flavor's source is the server
// it claims to be, NewDatabase works on it through both accounts, SQL's seq_1_to_N tables yield
// 1..N in order, and BinlogStatusSQL answers with a file and position.
func TestFlavorsReachBothServers(t *testing.T) {
	t.Parallel()
	var seen []Flavor
	Flavors(t, func(t *testing.T, env *Env) {
		seen = append(seen, env.Flavor())
		name := env.NewDatabase(t, "TestFlavors")
		db := env.MySQL(t, name)
		var version string
		if err := db.QueryRow("SELECT VERSION()").Scan(&version); err != nil {
			t.Fatal(err)
		}
		if isMariaDB := strings.Contains(strings.ToLower(version), "mariadb"); isMariaDB == env.IsMySQL() {
			t.Fatalf("flavor %s but server version %q", env.Flavor(), version)
		}
		if _, err := db.Exec(env.SQL("CREATE TABLE t (n INT AUTO_INCREMENT PRIMARY KEY, v INT); INSERT INTO t (v) SELECT seq FROM seq_1_to_1234")); err != nil {
			t.Fatal(err)
		}
		var count, mismatched int
		if err := db.QueryRow("SELECT COUNT(*), SUM(n <> v) FROM t").Scan(&count, &mismatched); err != nil {
			t.Fatal(err)
		}
		if count != 1234 || mismatched != 0 {
			t.Errorf("seq_1_to_1234: %d rows, %d out of order; want 1234 in order", count, mismatched)
		}
		src := env.MySQL(t, name)
		rows := MySQLTexts(t, src, env.BinlogStatusSQL())
		if len(rows) != 1 || !rows[0][0].Valid || rows[0][0].String == "" {
			t.Errorf("%s: %v, want one row with a file name", env.BinlogStatusSQL(), rows)
		}
	})
	if len(seen) != 2 && !t.Skipped() {
		t.Logf("flavors run: %v", seen)
	}
}

func TestSQLLeavesMariaDBAlone(t *testing.T) {
	q := "INSERT INTO t SELECT seq FROM seq_1_to_10"
	if got := (&Env{flavor: MariaDB}).SQL(q); got != q {
		t.Errorf("MariaDB SQL changed: %q", got)
	}
	got := (&Env{flavor: MySQL}).SQL(q)
	if strings.Contains(got, "FROM seq_1_to_10") || !strings.HasSuffix(got, " AS seq_1_to_10") {
		t.Errorf("MySQL SQL: %q", got)
	}
}

func TestSQLSeqRange(t *testing.T) {
	Flavors(t, func(t *testing.T, env *Env) {
		db := env.MySQL(t, env.NewDatabase(t, "TestSQLSeqRange"))
		var n, lo, hi int
		if err := db.QueryRow(env.SQL("SELECT COUNT(*), MIN(seq), MAX(seq) FROM seq_995_to_1003")).Scan(&n, &lo, &hi); err != nil {
			t.Fatal(err)
		}
		if n != 9 || lo != 995 || hi != 1003 {
			t.Errorf("seq_995_to_1003: %d rows from %d to %d", n, lo, hi)
		}
	})
}

func TestSQLSeqAliases(t *testing.T) {
	Flavors(t, func(t *testing.T, env *Env) {
		db := env.MySQL(t, env.NewDatabase(t, "TestSQLSeqAliases"))
		var n, sum int
		q := "SELECT COUNT(*), SUM(a.seq * 10 + y.seq) FROM seq_1_to_3 a JOIN seq_0_to_3 AS y WHERE a.seq > 1"
		if err := db.QueryRow(env.SQL(q)).Scan(&n, &sum); err != nil {
			t.Fatalf("%s: %v", env.SQL(q), err)
		}
		if n != 8 || sum != 212 {
			t.Errorf("%d rows, sum %d; want 8 rows, sum 212", n, sum)
		}
	})
}
