package binlog

import (
	"fmt"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestLoopbackTransactionsSkipped: a transaction whose first row event is on
// database sluice (the reverse stream writes its applied record first) is
// not replicated forward, its rows in scope included; the same rows in the
// other order are.
func TestLoopbackTransactionsSkipped(t *testing.T) {
	testenv.Flavors(t, testLoopbackTransactionsSkipped)
}

func testLoopbackTransactionsSkipped(t *testing.T, env *testenv.Env) {
	f := newFixtureOn(t, env, "bl_loop", "CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))")
	// A table of the reverse stream's state database; its name must not
	// contain the test database's (ignoreOthers).
	marker := fmt.Sprintf("sluice.loop_%d", time.Now().UnixNano())
	admin := f.env.MySQL(t, "")
	for _, q := range []string{"CREATE DATABASE IF NOT EXISTS sluice", "CREATE TABLE " + marker + " (id INT PRIMARY KEY)"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP TABLE IF EXISTS " + marker) })
	start := f.position()
	cfg := f.config(start, ignoreOthers(f.db))
	cfg.SkipLoopback = true
	r := startStream(t, cfg)

	txn := func(stmts ...string) {
		t.Helper()
		tx, err := f.my.Begin()
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range stmts {
			if _, err := tx.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	txn("INSERT INTO "+marker+" VALUES (1)", "INSERT INTO t VALUES (1, 'loop')", "UPDATE t SET v = 'loop2' WHERE id = 1")
	txn("INSERT INTO t VALUES (2, 'app')", "INSERT INTO "+marker+" VALUES (2)")
	txn("INSERT INTO t VALUES (3, 'app')")

	for _, want := range []string{"insert t before=[] after=[2 app]", "insert t before=[] after=[3 app]"} {
		got := r.next(30 * time.Second)
		if len(got.Changes) != 1 || changeSummary(got.Changes[0]) != want {
			var s []string
			for _, c := range got.Changes {
				s = append(s, changeSummary(c))
			}
			t.Fatalf("got %v, want %s", s, want)
		}
	}
	// At least ours: other sessions of the shared server (cut-over records,
	// alter state) may write database sluice in the same binlog meanwhile.
	if n := r.stream.Stats().Loopback.Load(); n < 1 {
		t.Errorf("loopback transactions counted: %d, want at least 1", n)
	}
}
