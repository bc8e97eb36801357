package crashtest

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// replicator is one `sluice replicate --standby` process of the test.
type replicator struct {
	cmd    *exec.Cmd
	exited chan error
}

// TestStandbyTakesOver runs three replicators of one stream with --standby
// while a write load runs, and ten times takes the active one away: killed
// with SIGKILL (odd rounds) or frozen with SIGSTOP (even rounds). Each time
// one of the others must own the stream within 10 s; a frozen one, woken
// after the takeover, must exit 2 having written nothing (the target fences
// it). At the end every table equals the source, row for row: nothing lost,
// nothing doubled.
func TestStandbyTakesOver(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end standby test takes minutes")
	}
	const stream = "standby"
	run := startSnapshotted(t, "standby", stream, sourceDDL...)
	loadDB := run.env.MySQL(t, run.db)
	loadDB.SetMaxOpenConns(4)
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var st loadStats
	load := runLoad(ctx, loadDB, 2, &st)

	args := append([]string{"replicate", "--workers", "2", "--standby"}, run.common...)
	procs := map[int]*replicator{}
	start := func() {
		cmd := sluiceCmd(t, run.logPath, args...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p := &replicator{cmd: cmd, exited: make(chan error, 1)}
		go func() { p.exited <- cmd.Wait() }()
		procs[cmd.Process.Pid] = p
	}
	t.Cleanup(func() {
		for _, p := range procs {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	for range 3 {
		start()
	}
	conn := run.targetConn(t)
	active := waitOwner(t, conn, stream, 0, 90*time.Second, run.logPath)
	var worst time.Duration
	for round := 1; round <= 10; round++ {
		time.Sleep(2 * time.Second)
		p := procs[active]
		if p == nil {
			t.Fatalf("round %d: the owner pid %d is not one of the test's replicators", round, active)
		}
		frozen := round%2 == 0
		t0 := time.Now()
		if frozen {
			if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
		} else {
			killAndWait(t, p.cmd, p.exited)
			delete(procs, active)
			start()
		}
		next := waitOwner(t, conn, stream, active, 30*time.Second, run.logPath)
		took := time.Since(t0)
		worst = max(worst, took)
		how := "killed"
		if frozen {
			how = "frozen"
		}
		t.Logf("round %d: replicator %d %s; %d took over after %s (source committed %d transactions so far)",
			round, active, how, next, took.Round(10*time.Millisecond), st.committed.Load())
		if took > 10*time.Second {
			t.Errorf("round %d: takeover took %s, want under 10s", round, took)
		}
		if frozen {
			if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
				t.Fatal(err)
			}
			select {
			case err := <-p.exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 {
					t.Errorf("round %d: the woken replicator %d exited with %v, want exit 2 (fenced)\n%s", round, active, err, logTail(run.logPath, 30))
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("round %d: the woken replicator %d did not stop within 60s\n%s", round, active, logTail(run.logPath, 30))
			}
			delete(procs, active)
			start()
		}
		active = next
	}
	stopLoad()
	load.Wait()
	t.Logf("load: %d transactions committed, %d rolled back; slowest takeover %s", st.committed.Load(), st.rolledBack.Load(), worst)
	for pid, p := range procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.exited
		delete(procs, pid)
	}
	catchUp := append([]string{"replicate", "--workers", "2", "--until-caught-up"}, run.common...)
	if code := runToEnd(t, run.logPath, 5*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(run.logPath, 40))
	}
	if n := strings.Count(readLog(t, run.logPath), "no longer owns stream"); n < 5 {
		t.Errorf("%d replicators said they were fenced, want the 5 frozen ones", n)
	}
	compareTables(t, run.env.MySQL(t, run.db), run.targetConn(t), run.db)
}

// waitOwner waits until the stream's owner record names a process other
// than not, and returns its pid.
func waitOwner(t *testing.T, conn *pgx.Conn, stream string, not int, limit time.Duration, logPath string) int {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		var owner string
		err := conn.QueryRow(context.Background(), `SELECT run FROM sluice.stream_owner WHERE stream = $1`, stream).Scan(&owner)
		if err == nil {
			if f := strings.Fields(owner); len(f) > 1 {
				pidText, _, _ := strings.Cut(f[1], "@")
				if pid, err := strconv.Atoi(pidText); err == nil && pid != not {
					return pid
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no replicator other than %d owns stream %s after %s\n%s", not, stream, limit, logTail(logPath, 40))
	return 0
}

func readLog(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
