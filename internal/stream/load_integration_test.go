package stream_test

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// shard is one source server of the two-shard tests, with the same database name on both.
type shard struct {
	name     string
	url      string
	db       *sql.DB
	serverID int64
}

func twoShards(t *testing.T, prefix string) (string, []shard) {
	t.Helper()
	maria := testenv.Get(t)
	my := testenv.GetFlavor(t, testenv.MySQL)
	name := maria.NewDatabase(t, prefix)
	admin := my.MySQL(t, "")
	mustExec(t, admin, "CREATE DATABASE `"+name+"`")
	t.Cleanup(func() { _, _ = admin.Exec("DROP DATABASE IF EXISTS `" + name + "`") })
	var out []shard
	for _, e := range []*testenv.Env{maria, my} {
		db := e.MySQL(t, name)
		var id int64
		if err := db.QueryRow("SELECT @@server_id").Scan(&id); err != nil {
			t.Fatal(err)
		}
		var logBin string
		if err := db.QueryRow("SELECT @@log_bin").Scan(&logBin); err != nil || (logBin != "1" && !strings.EqualFold(logBin, "ON")) {
			t.Fatalf("shard %s: log_bin is %q (%v)", e, logBin, err)
		}
		out = append(out, shard{name: string(e.Flavor()), url: e.SourceURL(name), db: db, serverID: id})
	}
	if out[0].serverID == out[1].serverID {
		t.Fatalf("both shards have server_id %d", out[0].serverID)
	}
	return name, out
}

// writeLoad runs random inserts, updates and deletes (several per
// transaction) on table t of the shard until ctx ends.
func writeLoad(ctx context.Context, t *testing.T, s shard, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7))
	next := 1000
	for ctx.Err() == nil {
		tx, err := s.db.Begin()
		if err != nil {
			t.Errorf("shard %s: %v", s.name, err)
			return
		}
		for i := 0; i < 1+r.IntN(4); i++ {
			var q string
			switch r.IntN(4) {
			case 0, 1:
				next++
				q = fmt.Sprintf("INSERT INTO t (id, n, s) VALUES (%d, %d, 'v%d')", next, r.IntN(1000), r.IntN(1e6))
			case 2:
				q = fmt.Sprintf("UPDATE t SET n = n + 1, s = CONCAT('u', n) WHERE id = %d", 1+r.IntN(next))
			default:
				q = fmt.Sprintf("DELETE FROM t WHERE id = %d", 1+r.IntN(next))
			}
			if _, err := tx.Exec(q); err != nil {
				t.Errorf("shard %s: %s: %v", s.name, q, err)
				_ = tx.Rollback()
				return
			}
		}
		if err := tx.Commit(); err != nil {
			t.Errorf("shard %s: commit: %v", s.name, err)
			return
		}
		time.Sleep(time.Duration(r.IntN(3)) * time.Millisecond)
	}
}

// TestStreamTwoShardsKill9 streams two shards (MariaDB and MySQL 9.7, same
// database and table names, so the same topics) under a write load, kills
// the sluice process with SIGKILL several times, and checks with an
// independent read_committed consumer that every shard's table rebuilt from
// the topic equals the shard, with no event twice.
func TestStreamTwoShardsKill9(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name, shards := twoShards(t, "kshard")
	for _, s := range shards {
		mustExec(t, s.db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))",
			"INSERT INTO t (id, n, s) VALUES "+seedRows(500))
	}
	bin := testenv.SluiceBinary(t)
	args := []string{"stream", "--kafka", strings.Join(brokers, ","), "--topic-prefix", name, "--stream", name, "--log-format", "json"}
	for _, s := range shards {
		args = append(args, "--source", s.url)
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, s := range shards {
		wg.Add(1)
		go func() { defer wg.Done(); writeLoad(ctx, t, s, uint64(i+1)) }()
	}
	working := 0 // rounds killed while streaming the binlog
	for round := 0; round < 4; round++ {
		var out bytes.Buffer
		cmd := testenv.SluiceCommand(bin, args...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(time.Duration(1500+rand.IntN(2500)) * time.Millisecond)
		_ = cmd.Process.Signal(syscall.SIGKILL)
		_ = cmd.Wait()
		if strings.Contains(out.String(), `"msg":"reading the binlog"`) {
			working++
		}
		if strings.Contains(out.String(), `"level":"ERROR"`) {
			t.Logf("round %d output:\n%s", round, tail(out.String(), 4000))
		}
	}
	stop()
	wg.Wait()
	if working < 2 {
		t.Errorf("only %d of 4 runs got to streaming the binlog before kill -9", working)
	}
	if t.Failed() {
		return
	}
	cmd := testenv.SluiceCommand(bin, append(args, "--until-caught-up")...)
	out, err := runWithTimeout(cmd, 3*time.Minute)
	if err != nil {
		t.Fatalf("final run: %v\n%s", err, tail(out, 6000))
	}
	evs := consume(t, brokers, name+"."+name+".t")
	ops := map[string]int{}
	for _, e := range evs {
		ops[e.op()]++
	}
	t.Logf("events by op (\"\" = tombstone): %v", ops)
	if ops["r"] < 1000 || ops["c"] == 0 || ops["u"] == 0 || ops["d"] == 0 || ops[""] != ops["d"] {
		t.Errorf("want at least 1000 snapshot events, some c/u/d, one tombstone per delete: %v", ops)
	}
	for _, s := range shards {
		compareRows(t, "shard "+s.name, rebuild(t, evs, name+"."+name+".t", s.serverID), sourceRows(t, s.db, "t"))
	}
	if n := checkStates(t, brokers, name); n < 10 {
		t.Errorf("%d state records in %s.sluice.offsets, want one per Kafka transaction", n, name)
	}
}

func seedRows(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%d, %d, 'seed%d')", i, i*7%1000, i)
	}
	return b.String()
}

func runWithTimeout(cmd *exec.Cmd, d time.Duration) (string, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		return "", err
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-time.After(d):
		_ = cmd.Process.Kill()
		<-done
		return out.String(), fmt.Errorf("no exit within %s", d)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// TestStreamWorkers streams one shard with --workers 3 (groups commit out of
// source order, so each Kafka transaction lists its applied source
// transactions), stopped once under a write load and resumed: the table
// rebuilt from the topic equals the source, with no event twice.
func TestStreamWorkers(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kworkers")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t (id, n, s) VALUES "+seedRows(500))
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name, Stream: name,
		Workers: 3, Log: testenv.Logger()}
	loadCtx, stopLoad := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); writeLoad(loadCtx, t, shard{name: "mariadb", db: db}, 11) }()
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Second)
	err := stream.Run(ctx, o)
	cancel()
	if err != nil && !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Fatalf("first run: %v", err)
	}
	stopLoad()
	<-done
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	evs := consume(t, brokers, name+"."+name+".t")
	ops := map[string]int{}
	for _, e := range evs {
		ops[e.op()]++
	}
	t.Logf("events by op (\"\" = tombstone): %v", ops)
	if ops["r"] < 500 || ops["c"] == 0 || ops["u"] == 0 || ops["d"] == 0 {
		t.Errorf("want at least 500 snapshot events (the load starts with the snapshot) and some c/u/d: %v", ops)
	}
	compareRows(t, "source", rebuild(t, evs, name+"."+name+".t", 0), sourceRows(t, db, "t"))
}
