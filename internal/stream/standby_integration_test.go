package stream_test

import (
	"bytes"
	"context"
	"errors"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/testenv"
)

// streamProc is one `sluice stream --standby` process of the test.
type streamProc struct {
	cmd    *exec.Cmd
	out    *bytes.Buffer
	exited chan error
}

// TestStreamStandbyTakesOver runs three `stream --standby` processes of one
// stream of two shards (MariaDB and MySQL 9.7) under a write load, and ten
// times takes the leading one away: SIGKILL (odd rounds) or SIGSTOP (even
// rounds). Each time another must lead within 10 s; a frozen one, woken
// after, must exit 2 (its producer fenced, its group membership lost). At
// the end each shard's table rebuilt from the topic (read_committed) equals
// the shard, with no event twice.
func TestStreamStandbyTakesOver(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name, shards := twoShards(t, "kstandby")
	for _, s := range shards {
		mustExec(t, s.db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))",
			"INSERT INTO t (id, n, s) VALUES "+seedRows(300))
	}
	bin := testenv.SluiceBinary(t)
	args := []string{"stream", "--kafka", strings.Join(brokers, ","), "--topic-prefix", name, "--stream", name, "--log-format", "json"}
	for _, s := range shards {
		args = append(args, "--source", s.url)
	}
	ctx, stopLoad := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, s := range shards {
		wg.Add(1)
		go func() { defer wg.Done(); writeLoad(ctx, t, s, uint64(i+11)) }()
	}
	procs := map[int]*streamProc{}
	start := func() {
		p := &streamProc{cmd: testenv.SluiceCommand(bin, append(append([]string{}, args...), "--standby")...), out: &bytes.Buffer{}, exited: make(chan error, 1)}
		p.cmd.Stdout, p.cmd.Stderr = p.out, p.out
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		go func() { p.exited <- p.cmd.Wait() }()
		procs[p.cmd.Process.Pid] = p
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
	adm := leaderAdmin(t, brokers)
	leader := waitLeader(t, adm, name, procs, 0, 90*time.Second)
	for round := 1; round <= 10; round++ {
		time.Sleep(2 * time.Second)
		p := procs[leader]
		frozen := round%2 == 0
		t0 := time.Now()
		if frozen {
			_ = p.cmd.Process.Signal(syscall.SIGSTOP)
		} else {
			_ = p.cmd.Process.Kill()
			<-p.exited
			delete(procs, leader)
			start()
		}
		next := waitLeader(t, adm, name, procs, leader, 30*time.Second)
		took := time.Since(t0)
		t.Logf("round %d: stream process %d %s; %d leads after %s", round, leader,
			map[bool]string{false: "killed", true: "frozen"}[frozen], next, took.Round(10*time.Millisecond))
		if took > 10*time.Second {
			t.Errorf("round %d: takeover took %s, want under 10s", round, took)
		}
		if frozen {
			_ = p.cmd.Process.Signal(syscall.SIGCONT)
			select {
			case err := <-p.exited:
				var ee *exec.ExitError
				if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(p.out.String(), "no longer leads the stream") {
					t.Errorf("round %d: the woken process %d exited with %v, want exit 2 (no longer leads)\n%s", round, leader, err, tail(p.out.String(), 3000))
				}
			case <-time.After(60 * time.Second):
				t.Fatalf("round %d: the woken process %d did not stop within 60s", round, leader)
			}
			delete(procs, leader)
			start()
		}
		leader = next
	}
	stopLoad()
	wg.Wait()
	for pid, p := range procs {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		<-p.exited
		delete(procs, pid)
	}
	out, err := runWithTimeout(testenv.SluiceCommand(bin, append(args, "--until-caught-up")...), 3*time.Minute)
	if err != nil {
		t.Fatalf("final run: %v\n%s", err, tail(out, 6000))
	}
	evs := consume(t, brokers, name+"."+name+".t")
	for _, s := range shards {
		compareRows(t, "shard "+s.name, rebuild(t, evs, name+"."+name+".t", s.serverID), sourceRows(t, s.db, "t"))
	}
}

func leaderAdmin(t *testing.T, brokers []string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

// waitLeader waits until one of procs other than not holds the leader
// group's partition, and returns its pid (from its client id, "sluice PID@host").
func waitLeader(t *testing.T, adm *kadm.Client, name string, procs map[int]*streamProc, not int, limit time.Duration) int {
	t.Helper()
	group := kafkasink.LeaderGroup(name, name)
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		gs, err := adm.DescribeGroups(ctx, group)
		cancel()
		if err == nil {
			for _, m := range gs[group].Members {
				a, ok := m.Assigned.AsConsumer()
				if !ok || len(a.Topics) == 0 || len(a.Topics[0].Partitions) == 0 {
					continue
				}
				f := strings.Fields(m.ClientID)
				if len(f) < 2 {
					continue
				}
				pidText, _, _ := strings.Cut(f[1], "@")
				if pid, err := strconv.Atoi(pidText); err == nil && pid != not && procs[pid] != nil {
					return pid
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no stream process other than %d leads after %s", not, limit)
	return 0
}
