package crashtest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

// TestCrashKillNine is issue 4's crash test: while a mixed write load runs
// on the source, `sluice replicate` is killed with SIGKILL at random moments
// twelve times, and once PostgreSQL itself is killed with SIGKILL (a private
// instance, never the shared sandbox); each time replication is restarted.
// Besides small transactions the load writes a 20,000-row transaction every
// second or two, which apply receives in fragments (--max-txn-memory 16MB),
// so kills also land inside large transactions.
// At the end every table of the target equals the source, row for row, with
// no duplicates. It takes about two minutes.
func TestCrashKillNine(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end crash test takes minutes")
	}
	const stream = "crash"
	run := startSnapshotted(t, "crash", stream, sourceDDL...)
	env, pg, db, logPath, common := run.env, run.pg, run.db, run.logPath, run.common

	loadDB := env.MySQL(t, db)
	loadDB.SetMaxOpenConns(8)
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var st loadStats
	load := runLoad(ctx, loadDB, 4, &st)
	bulk := runBulk(ctx, loadDB, &st)

	// 16MB: transactions over 1 MB reach apply in fragments.
	replicate := append([]string{"replicate", "--workers", "4", "--max-txn-memory", "16MB"}, common...)
	rng := rand.New(rand.NewPCG(uint64(time.Now().UnixNano()), 1))
	var positions []string
	const kills = 12
	for k := 1; k <= kills; k++ {
		cmd := sluiceCmd(t, logPath, replicate...)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		exited := make(chan error, 1)
		go func() { exited <- cmd.Wait() }()
		time.Sleep(time.Duration(1500+rng.IntN(3500)) * time.Millisecond)
		if k == kills/2 {
			// PostgreSQL dies under sluice; sluice sees its connections
			// break and stops (or is killed if it hangs on).
			pg.Kill9AndRestart()
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				killAndWait(t, cmd, exited)
			}
			t.Logf("kill %d: PostgreSQL killed with SIGKILL and restarted", k)
		} else {
			select {
			case err := <-exited:
				t.Fatalf("kill %d: sluice replicate exited on its own before the kill: %v\n%s", k, err, logTail(logPath, 30))
			default:
			}
			killAndWait(t, cmd, exited)
		}
		positions = append(positions, checkpointOf(t, pg.URL(), stream))
		t.Logf("kill %d: checkpoint %s, source committed %d transactions so far", k, positions[len(positions)-1], st.committed.Load())
	}
	stopLoad()
	load.Wait()
	bulk.Wait()
	t.Logf("load: %d transactions committed, %d rolled back, %d large ones (20,000 rows)",
		st.committed.Load(), st.rolledBack.Load(), st.bulk.Load())
	if positions[0] == positions[len(positions)-1] {
		t.Fatalf("the checkpoint never moved: %v", positions)
	}

	catchUp := append(append([]string{}, replicate...), "--until-caught-up")
	if code := runToEnd(t, logPath, 5*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(logPath, 40))
	}
	compareTables(t, env.MySQL(t, db), run.targetConn(t), db)
}

// killAndWait sends SIGKILL to the sluice process (by its PID) and reaps it.
func killAndWait(t *testing.T, cmd *exec.Cmd, exited <-chan error) {
	t.Helper()
	if err := cmd.Process.Kill(); err != nil {
		t.Fatalf("kill sluice pid %d: %v", cmd.Process.Pid, err)
	}
	<-exited
}

// runToEnd runs sluice to completion and returns its exit code.
func runToEnd(t *testing.T, logPath string, limit time.Duration, args ...string) int {
	t.Helper()
	cmd := sluiceCmd(t, logPath, args...)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(limit):
		killAndWait(t, cmd, exited)
		t.Fatalf("sluice %v: no result after %s\n%s", args[0], limit, logTail(logPath, 30))
	}
	return cmd.ProcessState.ExitCode()
}

func checkpointOf(t *testing.T, url, stream string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	st, err := checkpoint.Load(ctx, conn, stream, binlogpos.Decode)
	if err != nil || st == nil {
		t.Fatalf("checkpoint of %s: %v %v", stream, st, err)
	}
	return fmt.Sprint(st.Position)
}
