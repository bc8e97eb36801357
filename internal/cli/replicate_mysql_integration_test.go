package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateIntoMySQLTargetAndStatus replicates from --start-position
// into a MySQL target database holding the table already (as a user who
// copied it would have it), reads the checkpoint back with `sluice status`,
// and refuses a scope of two source databases for one target database.
//
// On MySQL 9.7 the target is another database of the source server: the
// source database itself as the target is refused.
func TestReplicateIntoMySQLTargetAndStatus(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testReplicateIntoMySQLTargetAndStatus)
}

func testReplicateIntoMySQLTargetAndStatus(t *testing.T, env *testenv.Env) {
	tgt := env.MySQLTarget(t)
	db := env.NewDatabase(t, "cli_mt")
	tdb := db + "_r"
	tgt.NewDatabase(t, tdb)
	admin := tgt.Admin(t)
	stream := testenv.UniqueName("clmt")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	my := env.MySQL(t, db)
	for _, q := range []string{"CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"} {
		if _, err := my.Exec(q); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("CREATE TABLE `" + tdb + "`.t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
			t.Fatal(err)
		}
	}
	status := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	if len(status) != 1 {
		t.Fatalf("%s: %v", env.BinlogStatusSQL(), status)
	}
	start := status[0][0].String + ":" + status[0][1].String
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'ü')"); err != nil {
		t.Fatal(err)
	}
	code, _, errOut := runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--stream", stream, "--start-position", start, "--target-engine", "InnoDB", "--until-caught-up", "--log-level", "error")
	if code != 0 {
		t.Fatalf("replicate into a MySQL target: exit %d\n%s", code, errOut)
	}
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM `" + tdb + "`.t WHERE (id = 1 AND v = 'a') OR (id = 2 AND HEX(v) = 'C3BC')").Scan(&n); err != nil || n != 2 {
		t.Errorf("target rows: %d (%v), want both", n, err)
	}
	code, out, errOut := runCLI(context.Background(), "status", "--target", tgt.URL(tdb), "--stream", stream, "--json")
	if code != 0 {
		t.Fatalf("status of a MySQL target: exit %d\n%s", code, errOut)
	}
	var st struct {
		Position      map[string]any `json:"position"`
		SchemaVersion int64          `json:"schema_version"`
		Replicator    string         `json:"replicator"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil || st.SchemaVersion != 1 || st.Replicator != "" || st.Position == nil {
		t.Errorf("status: %+v (%v)\n%s", st, err, out)
	}

	other := env.NewDatabase(t, "cli_mt2")
	code, _, errOut = runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--include", db+".*,"+other+".*", "--stream", testenv.UniqueName("clmt2"), "--start-position", start, "--log-level", "error")
	if code != exitcode.Config || !strings.Contains(errOut, "one source database") {
		t.Errorf("two source databases into one target database: exit %d\n%s", code, errOut)
	}
	if tgt.IsMySQL() {
		code, _, errOut = runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(db),
			"--stream", testenv.UniqueName("clmt3"), "--start-position", start, "--log-level", "error")
		if code != exitcode.Config || !strings.Contains(errOut, "source database") {
			t.Errorf("the source database as the target: exit %d\n%s", code, errOut)
		}
		for _, c := range []string{"migrate", "snapshot"} {
			code, _, errOut = runCLI(context.Background(), c, "--source", env.SourceURL(db), "--target", tgt.URL(db),
				"--stream", testenv.UniqueName("clmt3"), "--log-level", "error")
			if code != exitcode.Config || !strings.Contains(errOut, "source database") {
				t.Errorf("%s into the source database: exit %d\n%s", c, code, errOut)
			}
		}
		// A target database that --include also names: its
		// writes would come back as source changes (created by snapshot and
		// migrate, not existing yet for replicate).
		for _, c := range []string{"replicate", "migrate", "snapshot"} {
			args := []string{c, "--source", env.SourceURL(""), "--include", db + ".*," + db + "_x.*", "--target", tgt.URL(db + "_x"),
				"--stream", testenv.UniqueName("clmt4"), "--log-level", "error"}
			if c == "replicate" {
				args = append(args, "--start-position", start)
			}
			code, _, errOut = runCLI(context.Background(), args...)
			if code != exitcode.Config || !strings.Contains(errOut, "in the source scope") {
				t.Errorf("%s into a target database in the source scope: exit %d\n%s", c, code, errOut)
			}
		}
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", db+"_x").Scan(&n); err != nil || n != 0 {
			t.Errorf("a refused run created the target database (%d, %v)", n, err)
		}
		if n := len(testenv.MySQLRows(t, my, "SELECT * FROM t")); n != 2 {
			t.Errorf("the source table has %d rows after the refusals, want 2", n)
		}
	}
}

// TestVerifyOnlineAutoSeesAMySQLReplicator: verify's --online auto is on
// while a replicator of the stream runs into the MySQL target (it holds
// the stream's lock there) and off when none does; snapshot --restart of
// the stream is refused at once while it runs.
func TestVerifyOnlineAutoSeesAMySQLReplicator(t *testing.T) {
	env := testenv.Get(t)
	tgt := env.MySQLTarget(t)
	db := env.NewDatabase(t, "cli_mtonl")
	tdb := db + "_r"
	tgt.DropAtEnd(t, tdb)
	admin := tgt.Admin(t)
	stream := testenv.UniqueName("mtonl")
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), admin, stream) })
	if _, err := env.MySQL(t, db).Exec("CREATE TABLE t (id INT PRIMARY KEY, v INT); INSERT INTO t VALUES (1, 1), (2, 2)"); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--stream", stream, "--snapshot-method", "lock-free", "--log-level", "error"); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, errOut)
	}
	online := func() bool {
		t.Helper()
		code, out, errOut := runCLI(context.Background(), "verify", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
			"--stream", stream, "--json", "--log-level", "error")
		var rep struct{ Online bool }
		if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
			t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
		}
		return rep.Online
	}
	if online() {
		t.Errorf("verify --online auto is on with no replicator running")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		c, _, _ := runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", tgt.URL(tdb), "--stream", stream, "--log-level", "error")
		done <- c
	}()
	waitFor(t, 30*time.Second, func() bool {
		_, out, _ := runCLI(context.Background(), "status", "--target", tgt.URL(tdb), "--stream", stream)
		return strings.Contains(out, "replicator:      connected")
	})
	if !online() {
		t.Errorf("verify --online auto is off while a replicator runs into the target")
	}
	// snapshot --restart under it is refused at once, naming it.
	began := time.Now()
	code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
		"--stream", stream, "--restart", "--log-level", "error")
	if code != exitcode.Config || !strings.Contains(errOut, "being replicated into this target by target connection") || time.Since(began) > 10*time.Second {
		t.Errorf("snapshot --restart under a running replicator: exit %d after %s\n%s", code, time.Since(began), errOut)
	}
	cancel()
	if c := <-done; c != 0 {
		t.Errorf("replicate exit %d after a graceful stop", c)
	}
}

// TestReplicateMariaDBIntoMySQL9Refused: replicate refuses a MariaDB source
// into a MySQL 9.7 target as the snapshot does (MariaDB's JSON text would be
// normalised by MySQL's JSON type, its UUID/INET columns have no MySQL
// form), before it creates or writes anything there.
func TestReplicateMariaDBIntoMySQL9Refused(t *testing.T) {
	env := testenv.Get(t)
	tgt := env.WithMySQLTarget(testenv.MySQL).MySQLTarget(t)
	db := env.NewDatabase(t, "cli_m2m")
	tdb := db + "_r"
	tgt.DropAtEnd(t, tdb)
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, j JSON)"); err != nil {
		t.Fatal(err)
	}
	status := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	for _, c := range [][]string{
		{"replicate", "--until-caught-up", "--start-position", status[0][0].String + ":" + status[0][1].String},
		{"migrate"},
	} {
		args := append(append([]string{}, c...), "--source", env.SourceURL(db), "--target", tgt.URL(tdb),
			"--stream", testenv.UniqueName("m2m"), "--log-level", "error")
		code, _, errOut := runCLI(context.Background(), args...)
		if code != exitcode.Config || !strings.Contains(errOut, "a MariaDB source goes into a MariaDB target") {
			t.Errorf("%s MariaDB into MySQL 9.7: exit %d\n%s", c[0], code, errOut)
		}
	}
	var n int
	if err := tgt.Admin(t).QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", tdb).Scan(&n); err != nil || n != 0 {
		t.Errorf("a refused run created the target database (%d, %v)", n, err)
	}
}
