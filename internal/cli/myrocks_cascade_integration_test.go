package cli

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMyRocksReplicaCascades: MyRocks has no foreign keys, and a MariaDB
// source runs its ON DELETE/ON UPDATE actions inside InnoDB without logging
// the child rows they change (issue 22: 2,064 orphans after a short load).
// From MariaDB, snapshot and migrate into ROCKSDB refuse the tables with
// such actions (exit 2, each table and foreign key named, the fix given)
// and keep the RESTRICT one (left out harmlessly); replicate refuses them at
// its start (here one without a snapshot), and a replicated CREATE TABLE or ALTER TABLE giving a table
// such an action stops with the fix (--skip-ddl leaves a new table out).
// From MySQL 9.7 (foreign keys in the SQL layer, their actions logged as
// rows) every table goes, and the cascades arrive: the replica equals the
// source after deletes and a key update of parents.
func TestMyRocksReplicaCascades(t *testing.T) {
	testenv.Flavors(t, testMyRocksReplicaCascades)
}

func testMyRocksReplicaCascades(t *testing.T, env *testenv.Env) {
	tgt := env.MySQLTarget(t)
	if !tgt.HasRocksDB(t) {
		t.Skip("the MySQL target has no ROCKSDB engine")
	}
	db := env.NewDatabase(t, "cli_rocksfk")
	tdb := db + "_r"
	tgt.DropAtEnd(t, tdb)
	admin := tgt.Admin(t)
	stream := testenv.UniqueName("rocksfk")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	my := env.MySQL(t, db)
	exec := func(qs ...string) {
		t.Helper()
		for _, q := range qs {
			if _, err := my.Exec(q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
	}
	exec("CREATE TABLE p (id INT PRIMARY KEY, v INT)",
		"CREATE TABLE c_res (id INT PRIMARY KEY, p INT, CONSTRAINT fk_res FOREIGN KEY (p) REFERENCES p (id))",
		"CREATE TABLE c_upd (id INT PRIMARY KEY, p INT, CONSTRAINT fk_upd FOREIGN KEY (p) REFERENCES p (id) ON UPDATE CASCADE)",
		"CREATE TABLE c_del (id INT PRIMARY KEY, p INT, CONSTRAINT fk_del FOREIGN KEY (p) REFERENCES p (id) ON DELETE CASCADE)",
		"CREATE TABLE c_null (id INT PRIMARY KEY, p INT, CONSTRAINT fk_null FOREIGN KEY (p) REFERENCES p (id) ON DELETE SET NULL)")
	var rows []string
	for i := 1; i <= 10; i++ {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i, i*10))
	}
	exec("INSERT INTO p VALUES "+strings.Join(rows, ","),
		"INSERT INTO c_res VALUES (1, 1), (2, 2), (3, 1)",
		"INSERT INTO c_upd VALUES (1, 3), (2, 4), (3, 3)")
	rows = rows[:0]
	for i := 1; i <= 30; i++ {
		rows = append(rows, fmt.Sprintf("(%d, %d)", i, 5+i%6))
	}
	exec("INSERT INTO c_del VALUES "+strings.Join(rows, ","), "INSERT INTO c_null VALUES "+strings.Join(rows, ","))

	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	method := "lock-free"
	if env.IsMySQL() {
		method = "auto"
	}
	src, dst := env.SourceURL(db), tgt.URL(tdb)
	snapshot := func(extra ...string) (int, string) {
		args := append([]string{"snapshot", "--source", src, "--target", dst, "--stream", stream, "--target-engine", "ROCKSDB",
			"--snapshot-method", method, "--log-level", "warn"}, extra...)
		code, _, errOut := runCLI(ctx, args...)
		return code, errOut
	}
	replicate := func(extra ...string) (int, string) {
		args := append([]string{"replicate", "--source", src, "--target", dst, "--stream", stream, "--target-engine", "ROCKSDB",
			"--until-caught-up", "--log-level", "warn"}, extra...)
		code, _, errOut := runCLI(ctx, args...)
		return code, errOut
	}
	if env.IsMySQL() {
		if code, errOut := snapshot(); code != 0 {
			t.Fatalf("snapshot from MySQL 9.7 (foreign key actions logged) into ROCKSDB: exit %d\n%s", code, errOut)
		}
		exec("DELETE FROM p WHERE id IN (6, 7, 8)", "UPDATE p SET id = 103 WHERE id = 3", "DELETE FROM c_res WHERE id = 3")
		if code, errOut := replicate(); code != 0 {
			t.Fatalf("replicate from MySQL 9.7 into ROCKSDB: exit %d\n%s", code, errOut)
		}
		for _, tb := range []string{"p", "c_res", "c_upd", "c_del", "c_null"} {
			if a, b := pairs(t, my, db, tb), pairs(t, admin, tdb, tb); !slices.Equal(a, b) {
				t.Errorf("table %s: source %v, replica %v", tb, a, b)
			}
		}
		if got := pairs(t, admin, tdb, "c_upd"); !slices.Contains(got, "1:103") {
			t.Errorf("c_upd on the replica %v: the ON UPDATE CASCADE did not arrive", got)
		}
		return
	}

	refused := []string{db + ".c_upd", "`fk_upd` (ON UPDATE CASCADE)", db + ".c_del", "`fk_del` (ON DELETE CASCADE)",
		db + ".c_null", "`fk_null` (ON DELETE SET NULL)", "--exclude " + db + ".c_upd", "--target-engine InnoDB"}
	wantRefusal := func(what string, code int, errOut string, want ...string) {
		t.Helper()
		if code != 2 {
			t.Fatalf("%s: exit %d, want 2\n%s", what, code, errOut)
		}
		for _, w := range want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%s: the refusal does not name %q:\n%s", what, w, errOut)
			}
		}
		if strings.Contains(errOut, "fk_res") {
			t.Errorf("%s: the refusal names the RESTRICT foreign key fk_res:\n%s", what, errOut)
		}
	}
	code, errOut := snapshot()
	wantRefusal("snapshot", code, errOut, refused...)
	code, _, errOut = runCLI(ctx, "migrate", "--source", src, "--target", dst, "--stream", stream, "--target-engine", "ROCKSDB",
		"--snapshot-method", method, "--until-caught-up", "--log-level", "warn")
	wantRefusal("migrate", code, errOut, refused...)
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ?", tdb).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused runs left %d tables on the target (%v), want none", n, err)
	}

	excl := []string{"--exclude", db + ".c_upd", "--exclude", db + ".c_del", "--exclude", db + ".c_null"}
	if code, errOut := snapshot(excl...); code != 0 {
		t.Fatalf("snapshot without the refused tables: exit %d\n%s", code, errOut)
	}
	// A stream started without a snapshot takes the tables as they are:
	// refused before anything is recorded.
	st := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	fresh := testenv.UniqueName("rocksfk")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, fresh) })
	code, _, errOut = runCLI(ctx, "replicate", "--source", src, "--target", dst, "--stream", fresh, "--target-engine", "ROCKSDB",
		"--start-position", st[0][0].String+":"+st[0][1].String, "--until-caught-up", "--log-level", "warn")
	wantRefusal("replicate --start-position with the tables in scope", code, errOut, refused...)
	if err := admin.QueryRow("SELECT COUNT(*) FROM sluice.checkpoint WHERE stream = ?", fresh).Scan(&n); err != nil || n != 0 {
		t.Fatalf("the refused start recorded %d checkpoints (%v), want none", n, err)
	}

	// Mid-stream: a new table with an action stops with --skip-ddl, which
	// leaves it out; an ALTER adding one stops with --exclude.
	exec("DELETE FROM c_res WHERE id = 3", "DELETE FROM p WHERE id = 9",
		"CREATE TABLE c_new (id INT PRIMARY KEY, p INT, CONSTRAINT fk_new FOREIGN KEY (p) REFERENCES p (id) ON DELETE CASCADE)",
		"INSERT INTO c_new VALUES (1, 1)")
	code, errOut = replicate(excl...)
	wantRefusal("a replicated CREATE TABLE with ON DELETE CASCADE", code, errOut, db+".c_new", "`fk_new` (ON DELETE CASCADE)", "--skip-ddl 'CREATE TABLE c_new")
	if code, errOut := replicate(append(excl, "--skip-ddl", "CREATE TABLE c_new*")...); code != 0 {
		t.Fatalf("replicate skipping CREATE TABLE c_new: exit %d\n%s", code, errOut)
	}
	exec("UPDATE p SET v = 0 WHERE id = 1", "ALTER TABLE c_res ADD CONSTRAINT fk_res2 FOREIGN KEY (p) REFERENCES p (id) ON DELETE SET NULL")
	code, errOut = replicate(append(excl, "--skip-ddl", "CREATE TABLE c_new*")...)
	if code != 2 || !strings.Contains(errOut, "`fk_res2` (ON DELETE SET NULL)") || !strings.Contains(errOut, "--exclude") {
		t.Fatalf("a replicated ALTER TABLE adding ON DELETE SET NULL: exit %d, want 2 naming fk_res2 and --exclude\n%s", code, errOut)
	}
	for _, tb := range []string{"p", "c_res"} {
		if a, b := pairs(t, my, db, tb), pairs(t, admin, tdb, tb); !slices.Equal(a, b) {
			t.Errorf("table %s: source %v, replica %v", tb, a, b)
		}
	}
	if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'c_new'", tdb).Scan(&n); err != nil || n != 0 {
		t.Fatalf("c_new on the target: %d (%v), want none (its CREATE TABLE was skipped)", n, err)
	}
}

// pairs reads a two-column table's rows as "a:b", sorted.
func pairs(t *testing.T, db *sql.DB, schema, table string) []string {
	t.Helper()
	var out []string
	for _, r := range testenv.MySQLTexts(t, db, fmt.Sprintf("SELECT CONCAT(id, ':', IFNULL(%s, 'NULL')) FROM `%s`.`%s`", secondColumn(table), schema, table)) {
		out = append(out, r[0].String)
	}
	slices.Sort(out)
	return out
}

func secondColumn(table string) string {
	if table == "p" {
		return "v"
	}
	return "p"
}
