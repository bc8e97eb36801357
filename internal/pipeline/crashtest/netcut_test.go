package crashtest

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os/exec"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStandbyTakesOverAcrossANetworkCut: the active replicator's network
// to the target is cut (a proxy stops forwarding but keeps the connections
// open); the standby, connected directly, must own the stream within 10 s.
// When the network heals, the cut-off replicator must write nothing and
// exit 2; at the end every table equals the source.
func TestStandbyTakesOverAcrossANetworkCut(t *testing.T) {
	if testing.Short() {
		t.Skip("end-to-end standby test")
	}
	const stream = "netcut"
	run := startSnapshotted(t, "netcut", stream, sourceDDL...)
	loadDB := run.env.MySQL(t, run.db)
	loadDB.SetMaxOpenConns(4)
	ctx, stopLoad := context.WithCancel(context.Background())
	defer stopLoad()
	var st loadStats
	load := runLoad(ctx, loadDB, 2, &st)

	pgURL, err := url.Parse(run.pg.URL())
	if err != nil {
		t.Fatal(err)
	}
	proxy := testenv.StartTCPProxy(t, pgURL.Host)
	viaProxy := fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres", proxy.Port())
	args := func(target string) []string {
		a := []string{"replicate", "--workers", "2", "--standby"}
		for i := 0; i < len(run.common); i++ {
			if run.common[i] == "--target" {
				a = append(a, "--target", target)
				i++
				continue
			}
			a = append(a, run.common[i])
		}
		return a
	}
	conn := run.targetConn(t)
	g := &standbyRig{t: t, logPath: run.logPath, committed: st.committed.Load, procs: map[int]*replicator{},
		owner: pgOwner(conn, stream)}
	t.Cleanup(func() {
		for _, p := range g.procs {
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	g.args = args(viaProxy)
	g.start()
	active := g.waitOwner(0, 90*time.Second)
	g.args = args(run.pg.URL())
	g.start()
	time.Sleep(3 * time.Second)
	proxy.Cut(true)
	t0 := time.Now()
	next := g.waitOwner(active, 30*time.Second)
	took := time.Since(t0)
	t.Logf("network to the target cut under replicator %d; %d took over after %s", active, next, took.Round(10*time.Millisecond))
	if took > 10*time.Second {
		t.Errorf("takeover took %s, want under 10s", took)
	}
	time.Sleep(3 * time.Second)
	proxy.Cut(false)
	p := g.procs[active]
	select {
	case err := <-p.exited:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != 2 {
			t.Errorf("the cut-off replicator exited with %v, want exit 2 (fenced)\n%s", err, logTail(run.logPath, 30))
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("the cut-off replicator did not stop within 90s after the network healed\n%s", logTail(run.logPath, 30))
	}
	delete(g.procs, active)
	stopLoad()
	load.Wait()
	g.stop()
	catchUp := append([]string{"replicate", "--workers", "2", "--until-caught-up"}, run.common...)
	if code := runToEnd(t, run.logPath, 5*time.Minute, catchUp...); code != 0 {
		t.Fatalf("replicate --until-caught-up: exit %d\n%s", code, logTail(run.logPath, 40))
	}
	compareTables(t, run.env.MySQL(t, run.db), run.targetConn(t), run.db)
}
