package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/testenv"
)

// startAtCurrentPosition creates the target tables of db (snapshot
// --schema-only under a throwaway stream) and returns the source's current
// binlog position as --start-position takes it.
func startAtCurrentPosition(t *testing.T, env *testenv.Env, db string) string {
	t.Helper()
	code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", testenv.UniqueName("schemaonly"), "--schema-only", "--log-level", "error")
	if code != 0 {
		t.Fatalf("snapshot --schema-only: %s", errOut)
	}
	return currentPosition(t, env, db)
}

// currentPosition is the source's binlog position as --start-position takes it.
func currentPosition(t *testing.T, env *testenv.Env, db string) string {
	t.Helper()
	status := testenv.MySQLTexts(t, env.MySQL(t, db), env.BinlogStatusSQL())
	if len(status) != 1 || !status[0][0].Valid {
		t.Fatalf("%s: %v", env.BinlogStatusSQL(), status)
	}
	return status[0][0].String + ":" + status[0][1].String
}

// TestReplicationCountsPolicyChanges: values that --zero-date and --nul-char
// change while replicating are counted per table and column, kept in the
// target and shown by `sluice status` (text and JSON), and with
// --nul-char error replication stops naming the position, table and key.
func TestReplicationCountsPolicyChanges(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_policy")
	my := env.MySQL(t, db)
	if _, err := my.Exec("CREATE TABLE t (id INT PRIMARY KEY, d DATE NULL, s VARCHAR(20) NULL)"); err != nil {
		t.Fatal(err)
	}
	start := startAtCurrentPosition(t, env, db)
	for _, q := range []string{
		"SET SESSION sql_mode = ''",
		"INSERT INTO t VALUES (1, '0000-00-00', CONCAT('a', CHAR(0), 'b')), (2, '2020-01-01', 'ok'), (3, '2020-00-15', CONCAT('x', CHAR(0), CHAR(0)))",
		"UPDATE t SET d = '0000-00-00' WHERE id = 2",
	} {
		if _, err := my.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	stream := testenv.UniqueName("pol")
	forgetStream(t, env, stream)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	var stderr string
	go func() {
		var c int
		c, _, stderr = runCLI(ctx, "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
			"--stream", stream, "--start-position", start, "--log-level", "warn")
		done <- c
	}()
	pg := env.PG(t)
	waitFor(t, 30*time.Second, func() bool {
		var n int
		_ = pg.QueryRow(context.Background(), "SELECT count(*) FROM "+db+".t WHERE d IS NULL").Scan(&n)
		return n == 3
	})
	cancel()
	select {
	case c := <-done:
		if c != 0 {
			t.Fatalf("replicate exit %d:\n%s", c, stderr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("replicate did not stop")
	}
	if !strings.Contains(stderr, "a policy changed source values") || !strings.Contains(stderr, "values changed by policy") {
		t.Errorf("the log does not report the policy changes:\n%s", stderr)
	}
	var texts []string
	rows, err := pg.Query(context.Background(), "SELECT s FROM "+db+".t ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			t.Fatal(err)
		}
		texts = append(texts, s)
	}
	rows.Close()
	if strings.Join(texts, ",") != "ab,ok,x" {
		t.Errorf("target texts %q, want NULs stripped", texts)
	}

	code, out, errOut := runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream, "--json")
	if code != 0 {
		t.Fatalf("status exit %d: %s", code, errOut)
	}
	var st struct {
		Replicate []struct {
			Table, Column, Policy string
			Count                 int64
		} `json:"replicate_policy_changes"`
	}
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("status --json: %v\n%s", err, out)
	}
	got := map[string]int64{}
	for _, c := range st.Replicate {
		if c.Table != db+".t" {
			t.Errorf("policy count for table %q, want %s.t", c.Table, db)
		}
		got[c.Column] += c.Count
	}
	// Zero dates: rows 1 and 3 inserted, row 2 updated (its before image
	// holds a valid date); NUL: rows 1 and 3, and row 1's value again in
	// no image (the update changes row 2 only).
	if got["d"] != 3 || got["s"] != 2 {
		t.Errorf("policy counts %v (status %s), want d=3 s=2", got, out)
	}
	code, out, _ = runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream)
	if code != 0 || !strings.Contains(out, "changed by policy during replication:") || !strings.Contains(out, db+".t.d: 3") {
		t.Errorf("status text (exit %d):\n%s", code, out)
	}

	// verify: equal, except the values the policies changed, named.
	code, out, errOut = runCLI(context.Background(), "verify", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--json", "--log-level", "error")
	if code != 0 {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errOut)
	}
	var vr struct {
		Tables []struct {
			Result        string
			PolicyChanges []struct {
				Column, Policy, Phase string
				Count                 int64
			} `json:"policy_changes"`
		}
	}
	if err := json.Unmarshal([]byte(out), &vr); err != nil || len(vr.Tables) != 1 {
		t.Fatalf("verify --json: %v\n%s", err, out)
	}
	vgot := map[string]int64{}
	for _, pc := range vr.Tables[0].PolicyChanges {
		if pc.Phase != "replication" {
			t.Errorf("policy change in phase %q, want replication", pc.Phase)
		}
		vgot[pc.Column] += pc.Count
	}
	if vr.Tables[0].Result != "equal" || vgot["d"] != 3 || vgot["s"] != 2 {
		t.Errorf("verify: %s with policy changes %v, want equal with d=3 s=2", vr.Tables[0].Result, vgot)
	}
	code, out, _ = runCLI(context.Background(), "verify", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--log-level", "error")
	t.Logf("verify said:\n%s", out)
	if code != 0 || !strings.Contains(out, "equal except 5 by policy") || !strings.Contains(out, "d: 3 zero-date") {
		t.Errorf("verify text (exit %d):\n%s", code, out)
	}

	// --nul-char error: replication stops at the row, naming it.
	start = currentPosition(t, env, db)
	if _, err := my.Exec("INSERT INTO t VALUES (42, NULL, CONCAT('bad', CHAR(0)))"); err != nil {
		t.Fatal(err)
	}
	stream2 := testenv.UniqueName("polerr")
	forgetStream(t, env, stream2)
	ctx2, cancel2 := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel2()
	code, _, errOut = runCLI(ctx2, "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream2, "--start-position", start, "--nul-char", "error", "--log-level", "error")
	if code == 0 || code == exitcode.Config {
		t.Fatalf("replicate with --nul-char error: exit %d, want a failure:\n%s", code, errOut)
	}
	t.Logf("replicate --nul-char error said:\n%s", errOut)
	file := start[:strings.IndexByte(start, ':')]
	for _, want := range []string{db + ".t", "id=42", file, "column s", "NUL"} {
		if !strings.Contains(errOut, want) {
			t.Errorf("the error does not name %q:\n%s", want, errOut)
		}
	}
}

// TestVerifyNamesSnapshotPolicyChanges: values the snapshot changed by
// policy are named by verify ("equal except N by policy") and by status.
func TestVerifyNamesSnapshotPolicyChanges(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "cli_snappol")
	my := env.MySQL(t, db)
	if _, err := my.Exec("SET SESSION sql_mode = ''; CREATE TABLE z (id INT PRIMARY KEY, d DATETIME NULL); " +
		"INSERT INTO z VALUES (1, '0000-00-00 00:00:00'), (2, '2024-02-30 10:00:00'), (3, '2024-01-01 00:00:00')"); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("snappol")
	forgetStream(t, env, stream)
	if code, _, errOut := runCLI(context.Background(), "snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--log-level", "error"); code != 0 {
		t.Fatalf("snapshot: exit %d\n%s", code, errOut)
	}
	code, out, errOut := runCLI(context.Background(), "verify", "--source", env.SourceURL(db), "--target", env.TargetURL(),
		"--stream", stream, "--log-level", "error")
	if code != 0 || !strings.Contains(out, "equal except 2 by policy") || !strings.Contains(out, "(snapshot)") {
		t.Errorf("verify (exit %d):\n%s%s", code, out, errOut)
	}
	code, out, errOut = runCLI(context.Background(), "status", "--target", env.TargetURL(), "--stream", stream)
	if code != 0 || !strings.Contains(out, "changed by policy during snapshot:") || !strings.Contains(out, db+".z.d: 2") {
		t.Errorf("status (exit %d):\n%s%s", code, out, errOut)
	}
}
