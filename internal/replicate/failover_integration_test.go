package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// failoverRig is a private MariaDB primary with a GTID replica
// (log_slave_updates, gtid_strict_mode), a test database on both, and a
// stream from mysql://…@primary,replica/db into the sandbox PostgreSQL.
type failoverRig struct {
	*rig
	primary, replica     *testenv.MySQLServer
	primaryDB, replicaDB *sql.DB
	logs                 *testenv.SyncBuffer
}

// failoverFlavors runs a failover test on a MariaDB pair and a MySQL 9 pair.
func failoverFlavors(t *testing.T, fn func(t *testing.T, start serverStarter)) {
	t.Run("mariadb", func(t *testing.T) { fn(t, testenv.StartMariaDBServer) })
	t.Run("mysql9", func(t *testing.T) { fn(t, testenv.StartMySQL9Server) })
}

type serverStarter func(t testing.TB, extraArgs ...string) *testenv.MySQLServer

func newFailoverRig(t *testing.T, start serverStarter, ids [2]int) *failoverRig {
	env := testenv.Get(t)
	f := &failoverRig{logs: &testenv.SyncBuffer{}}
	f.primary = start(t, fmt.Sprintf("--server-id=%d", ids[0]))
	f.replica = start(t, fmt.Sprintf("--server-id=%d", ids[1]))
	f.replica.ReplicateFrom(t, f.primary)
	db := testenv.UniqueName("failover")
	admin := f.primary.DB(t, "")
	for _, q := range []string{"CREATE DATABASE " + db,
		"CREATE TABLE " + db + ".t (id INT PRIMARY KEY, v VARCHAR(40) NOT NULL, n INT NOT NULL, at DATETIME(6) NOT NULL)"} {
		if _, err := admin.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	f.primaryDB, f.replicaDB = f.primary.DB(t, db), f.replica.DB(t, db)
	src, err := config.ParseSource(fmt.Sprintf("mysql://sluice:sluice@127.0.0.1:%d,127.0.0.1:%d/%s", f.primary.Port, f.replica.Port, db))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	f.rig = &rig{t: t, env: env, db: db, my: f.primaryDB, pg: env.PG(t), src: src, dst: dst, stream: testenv.UniqueName("fo")}
	f.forgetStream(f.stream)
	t.Cleanup(func() {
		_, _ = f.pg.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{db}.Sanitize()+" CASCADE")
	})
	f.replica.WaitCaughtUp(t, f.primary)
	f.snapshot(f.stream, "")
	return f
}

// sourceAt is the stream's source on one server of the pair only.
func (f *failoverRig) sourceAt(srv *testenv.MySQLServer) config.MySQL {
	f.t.Helper()
	src, err := config.ParseSource(fmt.Sprintf("mysql://sluice:sluice@127.0.0.1:%d/%s", srv.Port, f.db))
	if err != nil {
		f.t.Fatal(err)
	}
	return src
}

// start runs replicate from the multi-host URL, logging into f.logs.
func (f *failoverRig) start() *background {
	o := f.options()
	o.Log = slog.New(slog.NewTextHandler(f.logs, nil))
	return f.rig.start(o)
}

// write runs the writer's steps from..to on db: an insert each, an update
// of an earlier row every third, a delete every seventh.
func (f *failoverRig) write(db *sql.DB, from, to int) {
	f.t.Helper()
	for i := from; i <= to; i++ {
		stmts := []string{fmt.Sprintf("INSERT INTO t VALUES (%d, 'v%d', %d, NOW(6))", i, i, i)}
		if i%3 == 0 {
			stmts = append(stmts, fmt.Sprintf("UPDATE t SET n = n * 2 + 1, v = CONCAT(v, '-u%d') WHERE id = %d", i, i-2))
		}
		if i%7 == 0 {
			stmts = append(stmts, fmt.Sprintf("DELETE FROM t WHERE id = %d", i-5))
		}
		for _, q := range stmts {
			if _, err := db.Exec(q); err != nil {
				f.t.Fatalf("writer: %s: %v", q, err)
			}
		}
		if i%50 == 0 {
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// sourceRows and targetRows are every row, every column, by id.
func (f *failoverRig) sourceRows(db *sql.DB) []string {
	return testenv.MySQLRows(f.t, db, "SELECT id, v, n, DATE_FORMAT(at, '%Y-%m-%d %H:%i:%s.%f') FROM t ORDER BY id")
}

func (f *failoverRig) targetRows() []string {
	return testenv.PGRows(f.t, f.pg, `SELECT id, v, n, to_char(at, 'YYYY-MM-DD HH24:MI:SS.US') FROM `+pgx.Identifier{f.db, "t"}.Sanitize()+` ORDER BY id`)
}

// waitTargetEquals waits until the target holds exactly db's rows.
func (f *failoverRig) waitTargetEquals(db *sql.DB, within time.Duration) {
	f.t.Helper()
	want := f.sourceRows(db)
	deadline := time.Now().Add(within)
	for {
		got := f.targetRows()
		if slices.Equal(got, want) {
			return
		}
		if time.Now().After(deadline) {
			f.t.Fatalf("target has %d rows, source %d; first difference %s\nlog:\n%s", len(got), len(want), firstDiff(got, want), f.logs.String())
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func firstDiff(got, want []string) string {
	for i := range min(len(got), len(want)) {
		if got[i] != want[i] {
			return fmt.Sprintf("at %d: target %q, source %q", i, got[i], want[i])
		}
	}
	return fmt.Sprintf("lengths %d and %d", len(got), len(want))
}

// TestSourceFailoverFollowsPromotedReplica: replicate reads a MariaDB
// primary named first in a two-host URL while a writer inserts, updates
// and deletes; the primary is killed with SIGKILL (once the replica has
// what it had: asynchronous replication could otherwise lose transactions
// sluice already applied, see the refusal test), the replica is promoted
// and the writer goes on there. Replicate continues on its own on the new
// primary, and the target equals it row for row, every column: nothing
// lost, nothing doubled.
func TestSourceFailoverFollowsPromotedReplica(t *testing.T) {
	failoverFlavors(t, testSourceFailoverFollowsPromotedReplica)
}

func testSourceFailoverFollowsPromotedReplica(t *testing.T, start serverStarter) {
	f := newFailoverRig(t, start, [2]int{41, 42})
	run := f.start()
	f.write(f.primaryDB, 1, 300)
	f.waitTargetEquals(f.primaryDB, 60*time.Second)
	f.write(f.primaryDB, 301, 400) // sluice may not have read these when the primary dies
	f.replica.WaitCaughtUp(t, f.primary)
	f.primary.Kill9(t)
	f.replica.Promote(t)
	f.write(f.replicaDB, 401, 700)
	f.waitTargetEquals(f.replicaDB, 90*time.Second)
	select {
	case err := <-run.done:
		t.Fatalf("replicate ended: %v\nlog:\n%s", err, f.logs.String())
	default:
	}
	logs := f.logs.String()
	replicaAddr := fmt.Sprintf("127.0.0.1:%d", f.replica.Port)
	if !strings.Contains(logs, "host="+replicaAddr) || !strings.Contains(logs, "continuing on this one by GTID") {
		t.Errorf("the log does not say replicate moved to %s:\n%s", replicaAddr, logs)
	}
	if strings.Contains(logs, "sluice:sluice@") {
		t.Errorf("a password in the log:\n%s", logs)
	}
	if err := run.stop(30 * time.Second); err != nil {
		t.Fatalf("stop: %v", err)
	}
}

// TestSourceFailoverRefusesLaggingReplica: the replica stops replicating
// before the primary's last transactions, which replicate applies; the
// primary dies and the lagging replica is promoted. Replicate refuses it
// (exit 2), naming the GTIDs it lacks and the fix, and the target keeps
// exactly the rows it had.
func TestSourceFailoverRefusesLaggingReplica(t *testing.T) {
	failoverFlavors(t, testSourceFailoverRefusesLaggingReplica)
}

func testSourceFailoverRefusesLaggingReplica(t *testing.T, start serverStarter) {
	f := newFailoverRig(t, start, [2]int{43, 44})
	run := f.start()
	f.write(f.primaryDB, 1, 100)
	f.replica.WaitCaughtUp(t, f.primary)
	f.replica.StopReplica(t)
	f.write(f.primaryDB, 101, 130)
	f.waitTargetEquals(f.primaryDB, 60*time.Second)
	before := f.targetRows()
	missing := "domain 0 up to 0-43-" // MariaDB names each domain's last GTID
	if f.primary.MySQL() {
		if err := f.primaryDB.QueryRow("SELECT @@server_uuid").Scan(&missing); err != nil {
			t.Fatal(err)
		}
	}
	f.primary.Kill9(t)
	f.replica.Promote(t)
	var err error
	select {
	case err = <-run.done:
		run.done <- err // for the cleanup's stop
	case <-time.After(90 * time.Second):
		t.Fatalf("replicate did not refuse the lagging replica within 90 s\nlog:\n%s", f.logs.String())
	}
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "lacks transactions the target already has") ||
		!strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "Fix:") {
		t.Fatalf("want exit 2 naming the missing GTIDs, got exit %d: %v\nlog:\n%s", exitcode.Of(err), err, f.logs.String())
	}
	t.Logf("refused: %v", err)
	after := f.targetRows()
	if !slices.Equal(after, before) {
		t.Errorf("the target changed after the refusal: %s", firstDiff(after, before))
	}
}
