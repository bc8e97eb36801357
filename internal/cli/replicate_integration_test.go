package cli

import (
	"context"
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateWithoutStartPosition: a stream without checkpoint and
// without --start-gtid/--start-position is a configuration error naming
// both options.
func TestReplicateWithoutStartPosition(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_nostart")
	stream := testenv.UniqueName("nost")
	code, _, errOut := runCLI(context.Background(), "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--log-level", "error")
	if code != exitcode.Config {
		t.Errorf("exit %d, want 2", code)
	}
	for _, want := range []string{"has no checkpoint", "--start-gtid", "--start-position", "sluice snapshot"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	code, _, errOut = runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream)
	if code != exitcode.Failure || !strings.Contains(errOut, "has no checkpoint") {
		t.Errorf("status of a stream without checkpoint: exit %d\n%s", code, errOut)
	}
}

// TestReplicateFromStartPositionAndStatus starts a stream with
// --start-position on tables that already exist on the target, replicates
// (with --metrics-addr), stops it by cancellation (what SIGINT does) within a few
// seconds, and reads the checkpoint back with `sluice status`.
func TestReplicateFromStartPositionAndStatus(t *testing.T) {
	testenv.Flavors(t, testReplicateFromStartPositionAndStatus)
}

func testReplicateFromStartPositionAndStatus(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "cli_startpos")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(10))"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("sp")
	forgetStream(t, env, stream)
	// The target table, as a user who copied the data themselves would have it.
	code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", testenv.UniqueName("schemaonly"), "--schema-only", "--log-level", "error")
	if code != 0 {
		t.Fatalf("snapshot --schema-only: %s", errOut)
	}
	status := testenv.MySQLTexts(t, my, env.BinlogStatusSQL())
	if len(status) != 1 || !status[0][0].Valid {
		t.Fatalf("%s: %v", env.BinlogStatusSQL(), status)
	}
	file := status[0][0].String
	pos, err := strconv.ParseInt(status[0][1].String, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := my.Exec("INSERT INTO t VALUES (1, 'a'), (2, 'b')"); err != nil {
		t.Fatal(err)
	}

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr string
	go func() {
		var c int
		c, _, stderr = runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
			"--stream", stream, "--start-position", file+":"+strconv.FormatInt(pos, 10), "--metrics-addr", "127.0.0.1:0",
			"--workers", "2", "--log-level", "warn")
		done <- c
	}()
	pg := env.PG(t)
	waitFor(t, 30*time.Second, func() bool {
		var n int
		_ = pg.QueryRow(context.Background(), "SELECT count(*) FROM "+db+".t").Scan(&n)
		return n == 2
	})
	if _, err := my.Exec("UPDATE t SET v = 'c' WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 30*time.Second, func() bool {
		var v string
		_ = pg.QueryRow(context.Background(), "SELECT v FROM "+db+".t WHERE id = 2").Scan(&v)
		return v == "c"
	})
	// While it runs: status names it, a second replicate and snapshot
	// --restart of the stream are refused at once, naming it.
	running := "sluice pid " + strconv.Itoa(os.Getpid())
	if code, out, errOut := runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream); code != 0 ||
		!strings.Contains(out, "replicator:      connected ("+running) {
		t.Errorf("status while replicating (exit %d): %s%s", code, out, errOut)
	}
	for _, args := range [][]string{
		{"replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-level", "error"},
		{"snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--restart", "--log-level", "error"},
	} {
		began := time.Now()
		code, _, errOut := runCLI(context.Background(), args...)
		if code != 2 || !strings.Contains(errOut, running) || time.Since(began) > 5*time.Second {
			t.Errorf("%s while a replicator runs: exit %d after %s, want 2 at once naming %q:\n%s", args[0], code, time.Since(began), running, errOut)
		}
	}
	stopAt := time.Now()
	cancel()
	select {
	case c := <-done:
		if c != 0 {
			t.Fatalf("replicate exit %d after a graceful stop:\n%s", c, stderr)
		}
		if d := time.Since(stopAt); d > 5*time.Second {
			t.Errorf("graceful stop took %s", d)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("replicate did not stop")
	}

	code, out, errOut := runCLI(context.Background(), "status", "--target", env.TargetURL(), "--source", env.SourceURL(db),
		"--stream", stream, "--json")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	var st struct {
		Position struct {
			File string `json:"file"`
			Pos  uint32 `json:"pos"`
		} `json:"position"`
		SchemaVersion int64    `json:"schema_version"`
		AgeSeconds    float64  `json:"age_seconds"`
		LagSeconds    *float64 `json:"lag_seconds"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	if st.Position.File == "" || int64(st.Position.Pos) <= pos && st.Position.File == file || st.SchemaVersion != 1 || st.AgeSeconds > 60 || st.LagSeconds == nil {
		t.Errorf("status: %s", out)
	}
	code, out, _ = runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream)
	if code != 0 || !strings.Contains(out, "schema version:  1") || !strings.Contains(out, "position:        "+st.Position.File) ||
		!strings.Contains(out, "replicator:      not connected") {
		t.Errorf("status text (exit %d):\n%s", code, out)
	}
}

func waitFor(t *testing.T, d time.Duration, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
