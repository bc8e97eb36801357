package cli

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// mysqlStateRows counts a stream's rows in every table of the server's
// database sluice that has a stream column.
func mysqlStateRows(t *testing.T, db *sql.DB, stream string) map[string]int {
	t.Helper()
	out := map[string]int{}
	for _, table := range testenv.MySQLRows(t, db, "SELECT TABLE_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = 'sluice' AND COLUMN_NAME = 'stream'") {
		var n int
		if err := db.QueryRow("SELECT COUNT(*) FROM sluice.`"+table+"` WHERE stream = ?", stream).Scan(&n); err != nil {
			t.Fatal(err)
		}
		if n > 0 {
			out[table] = n
		}
	}
	return out
}

// TestDropMySQLTargetStream: a stream into a MySQL target (MariaDB, and
// MySQL 9.7 into another database of the server) keeps its state in the
// target's database sluice; sluice drop lists it, refuses while the
// stream's replicator is connected (naming its connection), and then
// removes every row of that stream and nothing else: another stream's state
// and the replicated tables stay.
func TestDropMySQLTargetStream(t *testing.T) { testenv.MariaDBAndMySQL9(t, testDropMySQLTargetStream) }

func testDropMySQLTargetStream(t *testing.T, env *testenv.Env) {
	tgt := env.MySQLTarget(t)
	admin := tgt.Admin(t)
	ctx := context.Background()
	var streams, tdbs []string
	var db string
	for i := range 2 {
		src := env.NewDatabase(t, fmt.Sprintf("cli_drop%d", i))
		if _, err := env.MySQL(t, src).Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)"); err != nil {
			t.Fatal(err)
		}
		tdb := src + "_r"
		tgt.DropAtEnd(t, tdb)
		stream := testenv.UniqueName("mtdrop")
		t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
		if code, _, errOut := runCLI(ctx, "migrate", "--source", env.SourceURL(src), "--target", tgt.URL(tdb),
			"--stream", stream, "--until-caught-up", "--log-level", "error"); code != 0 {
			t.Fatalf("migrate %s: exit %d\n%s", stream, code, errOut)
		}
		streams, tdbs = append(streams, stream), append(tdbs, tdb)
		if i == 0 {
			db = src
		}
	}
	drop, keep := streams[0], streams[1]
	before, other := mysqlStateRows(t, admin, drop), mysqlStateRows(t, admin, keep)
	if before["checkpoint"] != 1 || before["schema_history"] == 0 || before["snapshot_run"] != 1 {
		t.Fatalf("the stream's state in the target: %v: not what the test needs", before)
	}

	run, cancel := context.WithCancel(ctx)
	done := make(chan int, 1)
	go func() {
		c, _, _ := runCLI(run, "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdbs[0]), "--stream", drop, "--log-level", "error")
		done <- c
	}()
	waitFor(t, 30*time.Second, func() bool {
		_, out, _ := runCLI(ctx, "status", "--target", tgt.URL(tdbs[0]), "--stream", drop)
		return strings.Contains(out, "replicator:      connected")
	})
	code, _, errOut := runCLI(ctx, "drop", "--target", tgt.URL(tdbs[0]), "--stream", drop, "--yes")
	if code != exitcode.Config || !strings.Contains(errOut, `stream "`+drop+`" is being replicated into the target mysql://`) ||
		!strings.Contains(errOut, "by the sluice on target connection ") {
		t.Errorf("drop of a running stream: exit %d, want 2 naming the replicator: %s", code, errOut)
	}
	cancel()
	if c := <-done; c != 0 {
		t.Fatalf("replicate: exit %d after a graceful stop", c)
	}
	waitFor(t, 30*time.Second, func() bool { // the server ends the closed sessions on its own time
		_, out, _ := runCLI(ctx, "status", "--target", tgt.URL(tdbs[0]), "--stream", drop)
		return strings.Contains(out, "replicator:      not connected")
	})

	code, out, errOut := runCLI(ctx, "drop", "--target", tgt.URL(tdbs[0]), "--stream", drop)
	if code != exitcode.Config || !strings.Contains(out, "on the target mysql://") || !strings.Contains(out, "1 row of sluice.checkpoint") ||
		!strings.Contains(out, "of sluice.schema_history") || !strings.Contains(errOut, "pass --yes") {
		t.Errorf("drop without --yes: exit %d, want 2 and the list:\n%s%s", code, out, errOut)
	}
	if got := mysqlStateRows(t, admin, drop); fmt.Sprint(got) != fmt.Sprint(before) {
		t.Errorf("an unconfirmed drop changed the state: %v, was %v", got, before)
	}
	if code, out, errOut = runCLI(ctx, "drop", "--target", tgt.URL(tdbs[0]), "--stream", drop, "--yes"); code != 0 {
		t.Fatalf("drop --yes: exit %d\n%s%s", code, out, errOut)
	}
	if got := mysqlStateRows(t, admin, drop); len(got) != 0 {
		t.Errorf("after the drop the target holds %v of stream %s", got, drop)
	}
	if got := mysqlStateRows(t, admin, keep); fmt.Sprint(got) != fmt.Sprint(other) {
		t.Errorf("the drop changed another stream's state: %v, was %v", got, other)
	}
	for _, tdb := range tdbs {
		if rows := testenv.MySQLRows(t, admin, "SELECT id, v FROM `"+tdb+"`.t ORDER BY id"); strings.Join(rows, ",") != "1|1,2|2,3|3" {
			t.Errorf("replicated table %s.t after the drop: %v", tdb, rows)
		}
	}
	code, _, errOut = runCLI(ctx, "drop", "--target", tgt.URL(tdbs[0]), "--stream", drop, "--yes")
	if code != exitcode.Config || !strings.Contains(errOut, keep) {
		t.Errorf("drop of a dropped stream: exit %d, want 2 listing %s: %s", code, keep, errOut)
	}
}
