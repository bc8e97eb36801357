package stream_test

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// throwawayKafka is a single-node Kafka of the test's own, from the jars the
// sandbox cached (scripts/sandbox), so that the test may stop and restart it.
type throwawayKafka struct {
	t      *testing.T
	jars   string
	dir    string
	port   int
	cmd    *exec.Cmd
	output *bytes.Buffer
}

func newThrowawayKafka(t *testing.T) *throwawayKafka {
	t.Helper()
	sandbox := os.Getenv("SLUICE_SANDBOX_DIR")
	if sandbox == "" {
		sandbox = "/tmp/sluice-sandbox"
	}
	jars := filepath.Join(sandbox, "kafka", "jars")
	if _, err := os.Stat(filepath.Join(jars, "kafka_2.13-3.9.1.jar")); err != nil {
		if testenv.InCI() {
			t.Fatalf("no Kafka jars in %s (scripts/sandbox start downloads them)", jars)
		}
		t.Skipf("no Kafka jars in %s (scripts/sandbox start downloads them)", jars)
	}
	if _, err := exec.LookPath("java"); err != nil {
		t.Skip("no java")
	}
	k := &throwawayKafka{t: t, jars: jars, dir: t.TempDir(), port: freePort(t)}
	ctrl := freePort(t)
	props := fmt.Sprintf(`process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:%[2]d
listeners=PLAINTEXT://127.0.0.1:%[1]d,CONTROLLER://127.0.0.1:%[2]d
advertised.listeners=PLAINTEXT://127.0.0.1:%[1]d
controller.listener.names=CONTROLLER
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=%[3]s/data
num.partitions=1
offsets.topic.replication.factor=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
group.initial.rebalance.delay.ms=0
`, k.port, ctrl, k.dir)
	if err := os.WriteFile(filepath.Join(k.dir, "server.properties"), []byte(props), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := k.java("kafka.tools.StorageTool", "format", "-t", "sluicetestclusterid0", "-c", filepath.Join(k.dir, "server.properties")).CombinedOutput()
	if err != nil {
		t.Fatalf("kafka format: %v\n%s", err, out)
	}
	t.Cleanup(k.stop)
	return k
}

func (k *throwawayKafka) java(args ...string) *exec.Cmd {
	cmd := exec.Command("java", append([]string{"-Xmx256m", "-Xms64m", "-cp", k.jars + "/*"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL}
	return cmd
}

func (k *throwawayKafka) addr() string { return fmt.Sprintf("127.0.0.1:%d", k.port) }

func (k *throwawayKafka) start() {
	k.t.Helper()
	k.output = &bytes.Buffer{}
	k.cmd = k.java("kafka.Kafka", filepath.Join(k.dir, "server.properties"))
	k.cmd.Stdout, k.cmd.Stderr = k.output, k.output
	if err := k.cmd.Start(); err != nil {
		k.t.Fatal(err)
	}
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.DialTimeout("tcp", k.addr(), time.Second); err == nil {
			_ = c.Close()
			return
		}
		time.Sleep(300 * time.Millisecond)
	}
	k.t.Fatalf("throwaway Kafka did not start:\n%s", tail(k.output.String(), 3000))
}

// stop kills the broker at once (as a crash or a network cut would end it).
func (k *throwawayKafka) stop() {
	if k.cmd != nil && k.cmd.Process != nil {
		_ = k.cmd.Process.Kill()
		_ = k.cmd.Wait()
		k.cmd = nil
	}
}

func freePort(t *testing.T) int {
	t.Helper()
	for i := 0; i < 100; i++ {
		p := 20000 + rand.IntN(12000)
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
		if err == nil {
			_ = l.Close()
			return p
		}
	}
	t.Fatal("no free port")
	return 0
}

// TestStreamBrokerLoss kills the (only) broker twice while a stream runs
// under a write load and starts it again: the stream waits or restarts,
// and an independent read_committed consumer finds every change once.
func TestStreamBrokerLoss(t *testing.T) {
	env := testenv.Get(t)
	k := newThrowawayKafka(t)
	k.start()
	name := env.NewDatabase(t, "kloss")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t (id, n, s) VALUES "+seedRows(200))
	brokers := []string{k.addr()}
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name,
		Stream: name, Log: testenv.Logger()}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); writeLoad(loadCtx, t, shard{name: "mariadb", db: db}, 42) }()

	runCtx, stopRun := context.WithCancel(context.Background())
	runErr := make(chan error, 1)
	go func() { runErr <- stream.Run(runCtx, o) }()
	for i := 0; i < 2; i++ {
		time.Sleep(3 * time.Second)
		k.stop()
		time.Sleep(3 * time.Second)
		k.start()
	}
	time.Sleep(2 * time.Second)
	stopLoad()
	wg.Wait()
	stopRun()
	select {
	case err := <-runErr:
		t.Logf("the stream across the broker losses ended with: %v", err)
	case <-time.After(2 * time.Minute):
		t.Fatal("the stream did not stop within 2 minutes of its context's end")
	}
	if err := runStream(t, o); err != nil {
		t.Fatalf("catching up after the broker came back: %v", err)
	}
	evs := consume(t, brokers, name+"."+name+".t")
	ops := map[string]int{}
	for _, e := range evs {
		ops[e.op()]++
	}
	t.Logf("events by op: %v", ops)
	compareRows(t, "after broker losses", rebuild(t, evs, name+"."+name+".t", 0), sourceRows(t, db, "t"))
	if t.Failed() {
		t.Logf("broker output:\n%s", tail(k.output.String(), 3000))
	}
}
