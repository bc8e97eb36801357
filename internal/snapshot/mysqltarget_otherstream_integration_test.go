package snapshot

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestMySQLTargetDatabaseOfAnotherStream: stream A copies and replicates a
// database into a MySQL target database. A new stream B over the same tables
// there is refused with exit 2 naming stream A and the tables — a snapshot
// even with --drop-existing (it would have replaced A's tables under A's
// running replication), a replicate from --start-position (both streams would
// have applied the source's changes: before, A then stopped on a duplicate
// key, or, for updates and deletes, both wrote silently). Neither leaves
// state; A runs on; a stream of other tables into the same database works.
func TestMySQLTargetDatabaseOfAnotherStream(t *testing.T) {
	testenv.MySQLTargetFlavors(t, testMySQLTargetDatabaseOfAnotherStream)
}

func testMySQLTargetDatabaseOfAnotherStream(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "mt_other")
	db2 := env.NewDatabase(t, "mt_other2")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE t (id INT PRIMARY KEY, v INT); CREATE TABLE u (id INT PRIMARY KEY); INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
	mustExec(t, env.MySQL(t, db2), "CREATE TABLE w (id INT PRIMARY KEY); INSERT INTO w VALUES (9)")
	tgt := env.MySQLTarget(t)
	dst := db + "_x"
	tgt.DropAtEnd(t, dst)
	admin := tgt.Admin(t)
	a, b, c, d := testenv.UniqueName("mta"), testenv.UniqueName("mtb"), testenv.UniqueName("mtc"), testenv.UniqueName("mtd")
	t.Cleanup(func() {
		for _, s := range []string{a, b, c, d} {
			for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied", "ddl_pending", "stream_target"} {
				admin.Exec("DELETE FROM sluice."+tbl+" WHERE stream = ?", s)
			}
		}
	})
	method := "lock-free"
	if env.IsMySQL() {
		method = "table-lock" // MySQL has no lock-free point; the lock is of the test's tables only
	}
	args := func(cmd, source, stream string, extra ...string) []string {
		return append([]string{cmd, "--source", env.SourceURL(source), "--target", tgt.URL(dst), "--include", source,
			"--stream", stream, "--log-format", "text", "--log-level", "warn"}, extra...)
	}
	if code, _, errOut := runSluice(t, args("migrate", db, a, "--snapshot-method", method, "--until-caught-up")...); code != 0 {
		t.Fatalf("migrate stream A: exit %d\n%s", code, errOut)
	}
	rows := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	start := rows[0][0].String + ":" + rows[0][1].String
	want := `stream "` + a + `" writes t, u`
	for _, run := range [][]string{
		args("snapshot", db, b, "--snapshot-method", method, "--drop-existing"),
		args("replicate", db, c, "--start-position", start, "--until-caught-up"),
	} {
		code, _, errOut := runSluice(t, run...)
		if code != 2 || !strings.Contains(errOut, want) || !strings.Contains(errOut, "database "+dst) {
			t.Errorf("%s as another stream: exit %d, want 2 naming %q\n%s", run[0], code, want, errOut)
		}
	}
	var states int
	if err := admin.QueryRow("SELECT (SELECT count(*) FROM sluice.checkpoint WHERE stream IN (?, ?)) + (SELECT count(*) FROM sluice.snapshot_run WHERE stream IN (?, ?))",
		b, c, b, c).Scan(&states); err != nil || states != 0 {
		t.Errorf("the refused streams left %d state rows (%v)", states, err)
	}
	mustExec(t, my, "INSERT INTO t VALUES (4, 4); UPDATE t SET v = 20 WHERE id = 2")
	if code, _, errOut := runSluice(t, args("replicate", db, a, "--until-caught-up")...); code != 0 {
		t.Fatalf("replicate stream A: exit %d\n%s", code, errOut)
	}
	if got := strings.Join(testenv.MySQLRows(t, admin, "SELECT id, v FROM `"+dst+"`.t ORDER BY id"), " "); got != "1|1 2|20 3|3 4|4" {
		t.Errorf("stream A's table after the refusals: %s", got)
	}
	if code, _, errOut := runSluice(t, args("snapshot", db2, d, "--snapshot-method", method)...); code != 0 {
		t.Fatalf("a stream of other tables into the same database: exit %d\n%s", code, errOut)
	}
	if got := strings.Join(testenv.MySQLRows(t, admin, "SELECT id FROM `"+dst+"`.w"), " "); got != "9" {
		t.Errorf("the other stream's table: %s", got)
	}
}
