package alter

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestAlterMaxLag runs an alter on a throwaway MariaDB primary under a
// write load while a second throwaway MariaDB replicates from it. Mid-copy
// the replica is made to lag (MASTER_DELAY): the copy stops advancing, the
// log and the progress line name the replica and its lag; once the delay
// is gone the run resumes and the table equals the writers' model. Then the
// refusals: --max-lag without --replica, an unreachable replica, a user
// without SLAVE MONITOR, a server that replicates from nothing.
func TestAlterMaxLag(t *testing.T) {
	primaryURL := testenv.StartMariaDB(t, "--server-id=21")
	replicaURL := testenv.StartMariaDB(t, "--server-id=22", "--gtid-strict-mode=OFF")
	primaryAdmin := openURL(t, primaryURL)
	replica := openURL(t, replicaURL)
	pu, _ := url.Parse(primaryURL)

	// Replicate from the primary's current position: the accounts both
	// servers created at start-up are not replayed.
	var file string
	var pos int64
	var skip1, skip2 sql.NullString
	if err := primaryAdmin.QueryRow("SHOW MASTER STATUS").Scan(&file, &pos, &skip1, &skip2); err != nil {
		t.Fatal(err)
	}
	mustExec(t, replica, fmt.Sprintf("CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=%s, MASTER_USER='root', MASTER_PASSWORD='root', "+
		"MASTER_LOG_FILE='%s', MASTER_LOG_POS=%d, MASTER_USE_GTID=no", pu.Port(), file, pos))
	mustExec(t, replica, "START SLAVE")
	t.Cleanup(func() { _, _ = replica.Exec("STOP SLAVE") })

	const name = "alter_lag"
	mustExec(t, primaryAdmin, "CREATE DATABASE "+name)
	db := openURL(t, primaryURL+name)
	rows := seed(t, db, baseTable)
	waitReplicated(t, replica, name, seedRows)

	src, err := config.ParseSource(primaryURL + name)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := config.ParseSource(replicaURL)
	if err != nil {
		t.Fatal(err)
	}
	var logs testenv.SyncBuffer
	o := Options{Source: src, Table: "t", Alter: "ADD COLUMN d INT, ADD INDEX ib (b)", Method: MethodCopy, Workers: 3, ChunkRows: 500,
		CutoverLockTimeout: time.Second, ProgressEvery: 300 * time.Millisecond,
		Log:    slog.New(slog.NewTextHandler(&logs, nil)),
		MaxLag: time.Second, Replicas: []config.MySQL{rep}}

	// Chunk 3's worker makes the replica lag; every worker that finishes a
	// chunk from 3 on waits until the lag is real and the run's cached
	// reading has expired, so the copy cannot outrun the lag.
	var once sync.Once
	lagged := make(chan struct{})
	o.afterChunk = func(seq int) {
		if seq < 3 {
			return
		}
		once.Do(func() {
			defer close(lagged)
			for _, q := range []string{"STOP SLAVE", "CHANGE MASTER TO MASTER_DELAY=6", "START SLAVE"} {
				if _, err := replica.Exec(q); err != nil {
					t.Errorf("%s: %v", q, err) // not Fatal: a worker's goroutine
				}
			}
			deadline := time.Now().Add(30 * time.Second)
			for lagOf(replica) <= 1 && time.Now().Before(deadline) {
				time.Sleep(100 * time.Millisecond)
			}
			time.Sleep(lagPollEvery + 200*time.Millisecond)
		})
		<-lagged
	}
	l := startLoad(t, db, rows, 2)
	done := make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), o)
		done <- err
	}()
	waitLog := func(logs *testenv.SyncBuffer, what string, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !strings.Contains(logs.String(), what) {
			select {
			case err := <-done:
				l.finish()
				t.Fatalf("run ended before %q: %v\n%s", what, err, logs.String())
			default:
			}
			if time.Now().After(deadline) {
				l.finish()
				t.Fatalf("no %q in the log within %s:\n%s", what, within, logs.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	doneChunks := func() (n, all int) {
		t.Helper()
		if err := db.QueryRow("SELECT COALESCE(SUM(done), 0), COUNT(*) FROM `sluice`.`alter_chunks` WHERE db = ?", name).Scan(&n, &all); err != nil {
			t.Fatal(err)
		}
		return n, all
	}
	// The pause for the lag: a poll while the SQL thread restarts with the
	// delay pauses first for "not replicating" (also over --max-lag), and a
	// changed cause is logged again.
	replicaAddr := "replica " + rep.Addr() + " lag "
	waitLog(&logs, `why="throttled: `+replicaAddr, time.Minute)
	time.Sleep(500 * time.Millisecond) // chunks in flight at the pause end
	n1, all := doneChunks()
	time.Sleep(2500 * time.Millisecond)
	n2, _ := doneChunks()
	if n1 != n2 || n1 >= all {
		t.Errorf("the copy went on while the replica lagged: %d then %d of %d chunks", n1, n2, all)
	}
	var paused string
	for _, line := range strings.Split(logs.String(), "\n") {
		if strings.Contains(line, "alter paused") && strings.Contains(line, replicaAddr) {
			paused = line
			break
		}
	}
	if !strings.Contains(paused, replicaAddr) || !strings.Contains(paused, "> --max-lag 1s") {
		t.Errorf("pause log line does not name the replica and its lag: %s", paused)
	}
	if progress := logLine(logs.String(), "paused (throttled: replica "+rep.Addr()); !strings.Contains(progress, "alter progress") {
		t.Errorf("no progress line saying the copy is paused by the replica:\n%s", logs.String())
	}
	t.Logf("paused at %d of %d chunks: %s", n1, all, paused)

	// The lag ends: the run resumes and finishes. The writers stop first:
	// a replica's one SQL thread on a busy box may apply slower than two
	// unthrottled writers write, and its lag would then never end.
	l.finish()
	mustExec(t, replica, "STOP SLAVE")
	mustExec(t, replica, "CHANGE MASTER TO MASTER_DELAY=0")
	mustExec(t, replica, "START SLAVE")
	waitLog(&logs, "alter resumed", 3*time.Minute) // the replica first applies the backlog
	var runErr error
	select {
	case runErr = <-done:
	case <-time.After(120 * time.Second):
		t.Fatalf("the run did not finish after the lag ended:\n%s", logs.String())
	}
	time.Sleep(200 * time.Millisecond)
	l.finish()
	if runErr != nil {
		t.Fatalf("%v\n%s", runErr, logs.String())
	}
	t.Log(logLine(logs.String(), "alter resumed"))
	l.compare(db)
	leftovers(t, db, name)

	// The swap waits for the replicas too: a postponed cut-over is let go
	// while the replica's SQL thread is stopped (counts as over the limit,
	// whatever the number); it swaps once the thread runs again.
	var logs2 testenv.SyncBuffer
	o2 := o
	o2.afterChunk = nil
	o2.Alter = "ADD INDEX ia (a)"
	o2.Log = slog.New(slog.NewTextHandler(&logs2, nil))
	o2.ControlFile = filepath.Join(t.TempDir(), "ctl")
	o2.PostponeCutover = true
	// No write load here (its ids would repeat the first one's); the
	// model is unchanged.
	l = &load{t: t, db: db, table: l.table, rows: l.rows, stop: make(chan struct{})}
	done = make(chan error, 1)
	go func() {
		_, err := Run(context.Background(), o2)
		done <- err
	}()
	waitLog(&logs2, "cut-over postponed", time.Minute)
	// The replica first works off what the first run's load and this copy
	// wrote: a lag still over the limit would be the pause's reason.
	for deadline := time.Now().Add(60 * time.Second); lagOf(replica) != 0; time.Sleep(100 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not catch up within 60s (lag %d)", lagOf(replica))
		}
	}
	// The pause to check is the one after this point: the copy may have
	// paused for the replica's lag before the cut-over was postponed.
	mark := len(logs2.String())
	mustExec(t, replica, "STOP SLAVE SQL_THREAD")
	if err := os.WriteFile(o2.ControlFile, []byte("cutover\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stoppedPause := func() string {
		return logLine(logs2.String()[mark:], "alter paused")
	}
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(stoppedPause(), "is not replicating"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no pause for the stopped SQL thread within 60s:\n%s", logs2.String())
		}
	}
	time.Sleep(2 * time.Second)
	var cols int
	if err := db.QueryRow("SELECT COUNT(*) FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 't' AND INDEX_NAME = 'ia'", name).Scan(&cols); err != nil || cols != 0 {
		t.Errorf("swapped while the replica's SQL thread was stopped (%d, %v)", cols, err)
	}
	if p := stoppedPause(); !strings.Contains(p, "replica "+rep.Addr()+" is not replicating: SQL thread no") {
		t.Errorf("pause log line does not say the replica's SQL thread is stopped: %s", p)
	}
	mustExec(t, replica, "START SLAVE SQL_THREAD")
	select {
	case runErr = <-done:
	case <-time.After(120 * time.Second):
		t.Fatalf("the swap did not happen after the replica ran again:\n%s", logs2.String())
	}
	time.Sleep(200 * time.Millisecond)
	l.finish()
	if runErr != nil {
		t.Fatalf("%v\n%s", runErr, logs2.String())
	}
	if !strings.Contains(logs2.String(), "alter resumed") {
		t.Errorf("no resume logged:\n%s", logs2.String())
	}
	l.compare(db)
	leftovers(t, db, name)

	// The dry run shows every replica's lag.
	dry := o
	dry.afterChunk, dry.DryRun, dry.Alter = nil, true, "ADD INDEX ic (c)"
	dr, err := Run(context.Background(), dry)
	if err != nil {
		t.Fatal(err)
	}
	if plan := strings.Join(dr.Plan, "\n"); !strings.Contains(plan, "replicas (--max-lag 1s): "+rep.Addr()+" lag ") {
		t.Errorf("dry-run plan does not show the replica's lag:\n%s", plan)
	}

	// Refusals, each exit 2 naming what to fix, nothing written.
	refused := func(what string, o Options, want ...string) {
		t.Helper()
		o.afterChunk = nil
		_, err := Run(context.Background(), o)
		if exitcode.Of(err) != exitcode.Config {
			t.Errorf("%s: want exit 2, got %v", what, err)
			return
		}
		for _, w := range want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q does not say %q", what, err, w)
			}
		}
	}
	o.Alter = "ADD INDEX ia (a)"
	noReplica := o
	noReplica.Replicas = nil
	refused("--max-lag without --replica", noReplica, "--replica")
	unreachable := o
	unreachable.Replicas = []config.MySQL{{Host: "127.0.0.1", Port: 1, User: "root", Password: "root"}}
	refused("unreachable replica", unreachable, "127.0.0.1:1", "not reachable")
	mustExec(t, replica, "CREATE USER 'nomon'@'127.0.0.1' IDENTIFIED BY 'nomon'")
	noPriv := o
	noPriv.Replicas = []config.MySQL{{Host: rep.Host, Port: rep.Port, User: "nomon", Password: "nomon"}}
	refused("user without SLAVE MONITOR", noPriv, rep.Addr(), "GRANT SLAVE MONITOR ON *.* TO 'nomon'")
	notReplica := o
	notReplica.Replicas = []config.MySQL{{Host: src.Host, Port: src.Port, User: "root", Password: "root"}}
	refused("a server that is no replica", notReplica, src.Addr(), "replicates from no source")
	leftovers(t, db, name)

	// The binary: --max-lag without --replica exits 2 before connecting.
	cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), "alter", "--source", primaryURL+name, "--table", "t", "--alter", "ADD INDEX ia (a)", "--max-lag", "1s")
	out, err := cmd.CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--replica") {
		t.Errorf("binary, --max-lag without --replica: want exit 2 naming --replica, got %v:\n%s", err, out)
	}
}

func openURL(t *testing.T, u string) *sql.DB {
	t.Helper()
	m, err := config.ParseSource(u)
	if err != nil {
		t.Fatal(err)
	}
	db, err := m.OpenDB()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

func mustExec(t *testing.T, db *sql.DB, q string) {
	t.Helper()
	if _, err := db.Exec(q); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// lagOf is the replica's Seconds_Behind_Master (-1 when NULL).
func lagOf(db *sql.DB) int64 {
	rp := &replica{db: db, stmt: "SHOW ALL SLAVES STATUS"}
	chans, err := rp.channels(context.Background())
	if err != nil || len(chans) == 0 || !chans[0].lagKnown {
		return -1
	}
	return int64(chans[0].lag / time.Second)
}

func waitReplicated(t *testing.T, replica *sql.DB, name string, rows int) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var n int
		err := replica.QueryRow("SELECT COUNT(*) FROM `" + name + "`.t").Scan(&n)
		if err == nil && n == rows {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the replica did not catch up within 60s: %d rows (%v)", n, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// logLine is the first line of the log containing s.
func logLine(logs, s string) string {
	for _, line := range strings.Split(logs, "\n") {
		if strings.Contains(line, s) {
			return line
		}
	}
	return ""
}

// TestAlterMaxLagNotAReplica: on both flavors (MariaDB's SHOW ALL SLAVES
// STATUS, MySQL's SHOW REPLICA STATUS) a --replica that replicates from
// nothing is refused before anything is written.
func TestAlterMaxLagNotAReplica(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		name := env.NewDatabase(t, "alter_lagref")
		db := env.MySQL(t, name)
		mustExec(t, db, baseTable)
		o := alterOptions(t, env, name, "ADD INDEX ia (a)")
		o.MaxLag = time.Second
		o.Replicas = []config.MySQL{o.Source.WithDatabase("")}
		_, err := Run(context.Background(), o)
		if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "replicates from no source") || !strings.Contains(err.Error(), o.Source.Addr()) {
			t.Errorf("the source named as its own replica: want exit 2 saying it replicates from no source, got %v", err)
		}
		t.Log(err)
		leftovers(t, db, name)
	})
}
