package cli

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestSnapshotInterruptExitCode sends SIGINT to the sluice binary in the
// middle of a snapshot: an interrupted (resumable) snapshot is not a success
// for a script, so it exits 130 (128 + SIGINT, as a shell reports it) and
// says how to resume; the same command then resumes and exits 0. So does an
// interrupted verify (130: no verdict). A continuous replicate stopped by
// SIGINT is a graceful stop: exit 0.
func TestSnapshotInterruptExitCode(t *testing.T) {
	env := testenv.Get(t)
	bin := testenv.SluiceBinary(t)
	db := env.NewDatabase(t, "cli_sigint")
	my := env.MySQL(t, db)
	if _, err := my.Exec(env.SQL(`CREATE TABLE t (id INT PRIMARY KEY, pad VARCHAR(200) NOT NULL);
		INSERT INTO t SELECT seq, REPEAT('x', 190) FROM seq_1_to_12000`)); err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("sigint")
	forgetStream(t, env, stream)
	args := []string{"snapshot", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream,
		"--chunk-rows", "500", "--workers", "1", "--max-rate", "256KB", "--log-format", "text"}
	cmd := testenv.SluiceCommand(bin, args...)
	var stderr testenv.SyncBuffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	pg := env.PG(t)
	ctx := context.Background()
	for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		var chunks int
		_ = pg.QueryRow(ctx, `SELECT count(*) FROM sluice.snapshot_chunk WHERE stream = $1 AND done`, stream).Scan(&chunks)
		if chunks > 0 {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("the snapshot ended before it was interrupted: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			_ = cmd.Process.Kill()
			t.Fatalf("no chunk copied after 60s\n%s", stderr.String())
		}
	}
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	var err error
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = cmd.Process.Kill()
		t.Fatalf("the snapshot did not stop on SIGINT\n%s", stderr.String())
	}
	if code := exitCodeOf(t, err); code != 130 {
		t.Errorf("interrupted snapshot: exit %d, want 130\n%s", code, stderr.String())
	}
	for _, want := range []string{"sluice: interrupted by SIGINT", "run the same command again to resume"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("interrupted snapshot: stderr lacks %q:\n%s", want, stderr.String())
		}
	}
	var copied, total int
	if err := pg.QueryRow(ctx, `SELECT count(*) FILTER (WHERE done), count(*) FROM sluice.snapshot_chunk WHERE stream = $1`, stream).Scan(&copied, &total); err != nil {
		t.Fatal(err)
	}
	if copied == 0 || copied == total {
		t.Fatalf("after the interrupt %d of %d chunks are copied: the test did not interrupt a snapshot in the middle", copied, total)
	}

	out, err := testenv.SluiceCommand(bin, args[:len(args)-4]...).CombinedOutput()
	if code := exitCodeOf(t, err); code != 0 || !strings.Contains(string(out), "resumed") {
		t.Fatalf("resumed snapshot: exit %d\n%s", code, out)
	}
	var rows int
	if err := pg.QueryRow(ctx, `SELECT count(*) FROM "`+db+`".t`).Scan(&rows); err != nil || rows != 12000 {
		t.Fatalf("after the resumed snapshot the target holds %d rows (%v), want 12000", rows, err)
	}

	// An interrupted verify has no verdict: neither 0 nor its 1
	// (differences) or 2 (a table it could not compare).
	ver := testenv.SluiceCommand(bin, "verify", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream,
		"--online=off", "--workers", "1", "--chunk-rows", "2", "--max-rate", "0.1", "--log-format", "text")
	var verr testenv.SyncBuffer
	ver.Stderr = &verr
	if err := ver.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- ver.Wait() }()
	time.Sleep(1500 * time.Millisecond) // 6000 chunks of 2 rows: about 10 s to go
	_ = ver.Process.Signal(os.Interrupt)
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = ver.Process.Kill()
		t.Fatalf("verify did not stop on SIGINT\n%s", verr.String())
	}
	if code := exitCodeOf(t, err); code != 130 || !strings.Contains(verr.String(), "sluice: interrupted by SIGINT") {
		t.Errorf("interrupted verify: exit %d, want 130\n%s", code, verr.String())
	}

	repl := testenv.SluiceCommand(bin, "replicate", "--source", env.SourceURL(db), "--target", env.TargetURL(), "--stream", stream, "--log-format", "text")
	var rerr testenv.SyncBuffer
	repl.Stderr = &rerr
	if err := repl.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- repl.Wait() }()
	for deadline := time.Now().Add(60 * time.Second); !strings.Contains(rerr.String(), "apply: resuming"); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			_ = repl.Process.Kill()
			t.Fatalf("replicate did not start streaming in 60s\n%s", rerr.String())
		}
	}
	_ = repl.Process.Signal(os.Interrupt)
	select {
	case err = <-done:
	case <-time.After(60 * time.Second):
		_ = repl.Process.Kill()
		t.Fatalf("replicate did not stop on SIGINT\n%s", rerr.String())
	}
	if code := exitCodeOf(t, err); code != 0 {
		t.Errorf("replicate stopped by SIGINT: exit %d, want 0\n%s", code, rerr.String())
	}
}

// exitCodeOf is the exit code of a finished command (err from Wait/Run).
func exitCodeOf(t *testing.T, err error) int {
	t.Helper()
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		return ee.ExitCode()
	}
	t.Fatal(err)
	return -1
}
