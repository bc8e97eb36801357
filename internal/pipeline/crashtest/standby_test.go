package crashtest

import (
	"cmp"
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
// nothing doubled. Into PostgreSQL here, into MySQL targets in
// TestStandbyTakesOverIntoMySQLTarget.
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

	conn := run.targetConn(t)
	g := &standbyRig{t: t, logPath: run.logPath, committed: st.committed.Load,
		args:  append([]string{"replicate", "--workers", "2", "--standby"}, run.common...),
		owner: pgOwner(conn, stream)}
	g.rounds(otherScope(run.db + ".logs"))
	stopLoad()
	load.Wait()
	t.Logf("load: %d transactions committed, %d rolled back", st.committed.Load(), st.rolledBack.Load())
	g.stop()
	catchUp := append([]string{"replicate", "--workers", "2", "--until-caught-up"}, run.common...)
	if code := runToEnd(t, run.logPath, 5*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(run.logPath, 40))
	}
	compareTables(t, run.env.MySQL(t, run.db), run.targetConn(t), run.db)
}

// standbyRig drives the replicators of a standby test.
type standbyRig struct {
	t         *testing.T
	args      []string // replicate --standby and its options
	logPath   string
	owner     func() string // the stream's owner record ("" when none)
	committed func() int64  // source transactions so far
	// reader names the session reading the stream's source, when a
	// takeover is complete only once the new owner has it (the way back's
	// slot); nil: the owner record is the takeover.
	reader func() string
	count  int // rounds (0: 10)
	procs  map[int]*replicator
}

// refusedStandby is a standby started with settings the stream's
// replicator does not have: refused (exit 2), its message saying says.
type refusedStandby struct {
	args []string
	says string
}

// otherScope is a standby with another --exclude.
func otherScope(excluded string) refusedStandby {
	return refusedStandby{args: []string{"--exclude", excluded}, says: "'s replicator: --exclude"}
}

func (g *standbyRig) start() {
	cmd := sluiceCmd(g.t, g.logPath, g.args...)
	if err := cmd.Start(); err != nil {
		g.t.Fatal(err)
	}
	p := &replicator{cmd: cmd, exited: make(chan error, 1)}
	go func() { p.exited <- cmd.Wait() }()
	g.procs[cmd.Process.Pid] = p
}

// rounds starts three replicators, checks that the refused standby is
// refused, and runs the rounds (ten unless count says otherwise).
func (g *standbyRig) rounds(refused refusedStandby) {
	t := g.t
	g.procs = map[int]*replicator{}
	t.Cleanup(func() {
		for _, p := range g.procs {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	for range 3 {
		g.start()
	}
	active := g.waitOwner(0, 90*time.Second)
	other := append(append([]string{}, g.args...), refused.args...)
	if code := runToEnd(t, g.logPath, 2*time.Minute, other...); code != 2 {
		t.Errorf("a standby with %v: exit %d, want 2\n%s", refused.args, code, logTail(g.logPath, 10))
	} else if !strings.Contains(readLog(t, g.logPath), refused.says) {
		t.Errorf("the refusal of a standby with %v does not name it (%q):\n%s", refused.args, refused.says, logTail(g.logPath, 10))
	}
	count := cmp.Or(g.count, 10)
	var worst time.Duration
	for round := 1; round <= count; round++ {
		time.Sleep(2 * time.Second)
		p := g.procs[active]
		if p == nil {
			t.Fatalf("round %d: the owner pid %d is not one of the test's replicators", round, active)
		}
		frozen := round%2 == 0
		var reading string
		if g.reader != nil {
			reading = g.reader()
		}
		t0 := time.Now()
		if frozen {
			if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
				t.Fatal(err)
			}
		} else {
			killAndWait(t, p.cmd, p.exited)
			delete(g.procs, active)
			g.start()
		}
		next := g.waitOwner(active, 30*time.Second)
		took := time.Since(t0)
		how := map[bool]string{false: "killed", true: "frozen"}[frozen]
		t.Logf("round %d: replicator %d %s; %d took over after %s (source committed %d transactions so far)",
			round, active, how, next, took.Round(10*time.Millisecond), g.committed())
		if g.reader != nil {
			took = g.waitReader(reading, t0)
			t.Logf("round %d: replicator %d reads the source after %s (session %s, was %s)", round, next,
				took.Round(10*time.Millisecond), g.reader(), reading)
		}
		worst = max(worst, took)
		if took > 10*time.Second {
			t.Errorf("round %d: takeover took %s, want under 10s", round, took)
		}
		if frozen {
			g.wake(round, active, p)
		}
		active = next
	}
	t.Logf("slowest takeover: %s", worst)
	if n := strings.Count(readLog(t, g.logPath), "no longer owns stream"); n < count/2 {
		t.Errorf("%d replicators said they were fenced, want the %d frozen ones", n, count/2)
	}
}

// waitReader waits until a session other than was reads the source, and
// returns the time since t0.
func (g *standbyRig) waitReader(was string, t0 time.Time) time.Duration {
	g.t.Helper()
	for deadline := t0.Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if r := g.reader(); r != "" && r != was {
			return time.Since(t0)
		}
	}
	g.t.Fatalf("no new session reads the source 30s after the takeover began\n%s", logTail(g.logPath, 40))
	return 0
}

// wake lets a frozen replicator run again: it must stop with exit 2.
func (g *standbyRig) wake(round, pid int, p *replicator) {
	t := g.t
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-p.exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("round %d: the woken replicator %d exited with %v, want exit 2 (fenced)\n%s", round, pid, err, logTail(g.logPath, 30))
		}
	case <-time.After(60 * time.Second):
		t.Fatalf("round %d: the woken replicator %d did not stop within 60s\n%s", round, pid, logTail(g.logPath, 30))
	}
	delete(g.procs, pid)
	g.start()
}

// stop ends the replicators (SIGTERM: a graceful stop).
func (g *standbyRig) stop() {
	for pid, p := range g.procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.exited
		delete(g.procs, pid)
	}
}

// waitOwner waits until the stream's owner record names one of the test's
// replicators other than not, and returns its pid.
func (g *standbyRig) waitOwner(not int, limit time.Duration) int {
	g.t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		if f := strings.Fields(g.owner()); len(f) > 1 {
			pidText, _, _ := strings.Cut(f[1], "@")
			if pid, err := strconv.Atoi(pidText); err == nil && pid != not && g.procs[pid] != nil {
				return pid
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	g.t.Fatalf("no replicator other than %d owns the stream after %s\n%s", not, limit, logTail(g.logPath, 40))
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

// pgOwner reads the stream's owner record on a PostgreSQL target ("" when none).
func pgOwner(conn *pgx.Conn, stream string) func() string {
	return func() string {
		var owner string
		_ = conn.QueryRow(context.Background(), `SELECT run FROM sluice.stream_owner WHERE stream = $1`, stream).Scan(&owner)
		return owner
	}
}
