package alter

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"log/slog"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/testenv"
)

// uTable is a second table of baseTable's columns.
var uTable = strings.Replace(baseTable, "CREATE TABLE t ", "CREATE TABLE u ", 1)

// TestAlterSeveralTables changes t and u in one run under writers on both:
// on MySQL 9.7 both copies are kept current and swapped in by one RENAME
// under one lock, every row equal to the writers' model, 0 client errors;
// on MariaDB the run is refused (exit 2) before anything is created.
func TestAlterSeveralTables(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_many")
		db := env.MySQL(t, name)
		lt := startLoad(t, db, seed(t, db, baseTable), 2)
		lu := startLoadOn(t, db, "u", seedTable(t, db, "u", uTable), 2)
		o := alterOptions(t, env, name, "ADD COLUMN d INT, ADD INDEX ia (a)")
		o.More = []TableChange{{Table: "u", Alter: "MODIFY b VARCHAR(300), ADD INDEX ib (b)"}}
		o.afterChunk = func(int) { time.Sleep(10 * time.Millisecond) } // let the writers overlap the copy
		var logs testenv.SyncBuffer
		o.Log = slog.New(slog.NewTextHandler(&logs, nil))
		rep, err := Run(context.Background(), o)
		time.Sleep(300 * time.Millisecond) // writes after the swap, same prepared statements
		lt.finish()
		lu.finish()
		if isMariaDB(t, db) {
			if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), "MariaDB") {
				t.Fatalf("MariaDB: want exit 2 naming why, got %v", err)
			}
			for _, tb := range []string{"t", "u"} {
				noShadow(t, db, name, tb)
			}
			return
		}
		if err != nil {
			t.Fatalf("alter: %v", err)
		}
		t.Logf("report: %+v", *rep)
		if n := strings.Count(logs.String(), "one binlog reader for every table of the change"); n != 1 {
			t.Errorf("%d shared binlog readers started, want 1", n)
		}
		if rep.Rows < 2*seedRows || rep.Method != MethodCopy {
			t.Errorf("report %+v: want both tables copied", *rep)
		}
		var swaps []string
		for _, l := range rep.Locks {
			if l.Step == stepSwap && l.Granted {
				swaps = append(swaps, l.Statement)
			}
		}
		if len(swaps) != 1 || swaps[0] != "LOCK TABLES t WRITE, t_new WRITE, u WRITE, u_new WRITE" {
			t.Errorf("swap locks %q: want one lock of both tables and their copies", swaps)
		}
		if rep.CutoverLock > 2*time.Second {
			t.Errorf("writes blocked %s at the swap", rep.CutoverLock)
		}
		wantDDL(t, db, "t", "`d` int", "KEY `ia`")
		wantDDL(t, db, "u", "`b` varchar(300)", "KEY `ib`")
		lt.compare(db)
		lu.compare(db)
		for _, tb := range []string{"t", "u"} {
			noShadow(t, db, name, tb)
		}
	})
}

// TestAlterSeveralTablesRefused: bad multi-table input is refused with
// exit 2 and the fix, and nothing is created.
func TestAlterSeveralTablesRefused(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_many_bad")
		db := env.MySQL(t, name)
		for _, q := range []string{baseTable, uTable,
			"CREATE TABLE p (id INT PRIMARY KEY) ENGINE=InnoDB",
			"CREATE TABLE c (id INT PRIMARY KEY, p INT, CONSTRAINT fk_c FOREIGN KEY (p) REFERENCES p (id)) ENGINE=InnoDB"} {
			if _, err := db.Exec(q); err != nil {
				t.Fatal(err)
			}
		}
		cases := []struct {
			name  string
			first TableChange
			more  []TableChange
			want  string
		}{
			{"twice", TableChange{"t", "ADD COLUMN d INT"}, []TableChange{{"t", "ADD INDEX ia (a)"}}, "given twice"},
			{"other_database", TableChange{"t", "ADD COLUMN d INT"}, []TableChange{{"other.u", "ADD COLUMN d INT"}}, "one sluice alter per database"},
			{"no_alter", TableChange{"t", "ADD COLUMN d INT"}, []TableChange{{"u", ""}}, "has no --alter"},
			{"a_copy_name", TableChange{"t", "ADD COLUMN d INT"}, []TableChange{{"t_new", "ADD COLUMN d INT"}}, "name the change uses for a copy of t"},
			{"instant", TableChange{"t", "ADD COLUMN d INT"}, []TableChange{{"u", "ADD COLUMN d INT"}}, "--method instant"},
			{"foreign_keys", TableChange{"p", "ADD COLUMN d INT"}, []TableChange{{"c", "ADD COLUMN d INT"}}, "foreign keys"},
		}
		mariadb := isMariaDB(t, db)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				o := alterOptions(t, env, name, tc.first.Alter)
				o.Table, o.More = tc.first.Table, tc.more
				if tc.name == "instant" {
					o.Method = MethodInstant
				}
				want := tc.want
				if mariadb && tc.name == "foreign_keys" {
					want = "MariaDB" // refused for the server first
				}
				_, err := Run(context.Background(), o)
				if exitcode.Of(err) != exitcode.Config || err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("want exit 2 with %q, got %v", want, err)
				}
				for _, tb := range []string{"t", "u", "p", "c"} {
					noShadow(t, db, name, tb)
				}
			})
		}
	})
}

// TestAlterSeveralTablesKill9Resume kills the binary mid-copy of a
// two-table change (MySQL 9.7) under writers on both tables; the same
// command resumes it and swaps both, every row equal to the model.
func TestAlterSeveralTablesKill9Resume(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_many_kill")
		db := env.MySQL(t, name)
		skipMariaDB(t, db)
		bin := testenv.SluiceBinary(t)
		lt := startLoad(t, db, seed(t, db, baseTable), 2)
		lu := startLoadOn(t, db, "u", seedTable(t, db, "u", uTable), 2)
		args := []string{"alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--alter", "ADD COLUMN d INT",
			"--table", "u", "--alter", "ADD INDEX ib (b)", "--method", "copy", "--workers", "2", "--chunk-rows", "300", "--log-format", "json"}
		first := testenv.SluiceCommand(bin, append(args, "--nice-ratio", "4")...)
		var out1 bytes.Buffer
		first.Stdout, first.Stderr = &out1, &out1
		if err := first.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			var n int
			_ = db.QueryRow("SELECT COUNT(DISTINCT tbl) FROM `sluice`.`alter_chunks` WHERE db = ? AND done = 1", name).Scan(&n)
			if n == 2 {
				break
			}
			if time.Now().After(deadline) {
				_ = first.Process.Kill()
				t.Fatalf("no chunk of both tables copied within 60s:\n%s", out1.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
		if err := first.Process.Kill(); err != nil {
			t.Fatal(err)
		}
		_ = first.Wait()
		time.Sleep(time.Second) // changes only the replay can bring
		out2, err := testenv.SluiceCommand(bin, args...).CombinedOutput()
		time.Sleep(200 * time.Millisecond)
		lt.finish()
		lu.finish()
		if err != nil {
			t.Fatalf("resumed run: %v\n%s", err, out2)
		}
		if !strings.Contains(string(out2), "resumed") || !strings.Contains(string(out2), "altered t, u by copy") {
			t.Errorf("the second run did not resume both:\n%s", out2)
		}
		wantDDL(t, db, "t", "`d` int")
		wantDDL(t, db, "u", "KEY `ib`")
		lt.compare(db)
		lu.compare(db)
		leftovers(t, db, name)
		noShadow(t, db, name, "u")

		// Through the binary: a --table without its --alter is refused.
		out3, err := testenv.SluiceCommand(bin, "alter", "--source", env.MySQLAdminURL(name), "--table", "t", "--alter", "ADD COLUMN e INT", "--table", "u").CombinedOutput()
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out3), "give each --table its own --alter") {
			t.Errorf("a --table without --alter: want exit 2, got %v:\n%s", err, out3)
		}
	})
}

// skipMariaDB: the test's change is one MariaDB refuses (TestAlterSeveralTables).
func skipMariaDB(t *testing.T, db *sql.DB) {
	t.Helper()
	if isMariaDB(t, db) {
		t.Skip("MariaDB refuses several tables in one swap (TestAlterSeveralTables)")
	}
}

func isMariaDB(t *testing.T, db *sql.DB) bool {
	t.Helper()
	info, err := binlog.SourceOnPool(db).Info(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return info.Flavor == binlog.FlavorMariaDB
}

// noShadow fails when table's copy or old table, or a run's state, is left.
func noShadow(t *testing.T, db *sql.DB, dbName, table string) {
	t.Helper()
	var n int
	if err := db.QueryRow(`SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME IN (?, ?)`,
		dbName, shadowName(table), oldName(table)).Scan(&n); err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Errorf("%s: %d copy/old tables left", table, n)
	}
	if err := db.QueryRow("SELECT COUNT(*) FROM `sluice`.`alter_runs` WHERE db = ? AND tbl = ?", dbName, table).Scan(&n); err == nil && n != 0 {
		t.Errorf("alter state left for %s", table)
	}
}

func wantDDL(t *testing.T, db *sql.DB, table string, want ...string) {
	t.Helper()
	var n, ddl string
	if err := db.QueryRow("SHOW CREATE TABLE "+table).Scan(&n, &ddl); err != nil {
		t.Fatal(err)
	}
	for _, w := range want {
		if !strings.Contains(ddl, w) {
			t.Errorf("%s after the change lacks %q:\n%s", table, w, ddl)
		}
	}
}

// TestAlterSeveralTablesAbort: one table's abort (a checksum difference: a
// new unique key its data violates) ends the whole change, every copy and
// state removed, neither table changed (MySQL 9.7, writers on t).
func TestAlterSeveralTablesAbort(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_many_abort")
		db := env.MySQL(t, name)
		skipMariaDB(t, db)
		lt := startLoad(t, db, seed(t, db, baseTable), 2)
		seedTable(t, db, "u", uTable)
		if _, err := db.Exec("UPDATE u SET b = 'dup' WHERE id IN (10, 20)"); err != nil {
			t.Fatal(err)
		}
		o := alterOptions(t, env, name, "ADD COLUMN d INT")
		o.More = []TableChange{{Table: "u", Alter: "ADD UNIQUE KEY ub (b)"}}
		_, err := Run(context.Background(), o)
		lt.finish()
		if !errors.Is(err, errAbort) || exitcode.Of(err) != exitcode.Failure || !strings.Contains(err.Error(), "checksum") {
			t.Fatalf("want the checksum's abort (exit 1), got %v", err)
		}
		for _, tb := range []string{"t", "u"} {
			noShadow(t, db, name, tb)
		}
		var tn, ddl string
		if err := db.QueryRow("SHOW CREATE TABLE t").Scan(&tn, &ddl); err != nil {
			t.Fatal(err)
		}
		if strings.Contains(ddl, "`d`") {
			t.Errorf("the aborted change altered t:\n%s", ddl)
		}
		lt.compare(db)
	})
}
