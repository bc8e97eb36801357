package stream_test

import (
	"bufio"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/testenv"
)

// resumeTables are the tables of TestStreamSnapshotResumeKill9: two with an
// integer key (copied in chunks, split at the copied key on resume) and one
// with a VARCHAR key (Go cannot order it as MySQL: one chunk of its own).
var resumeTables = []struct {
	name   string
	strKey bool
	rows   int
}{{"a", false, 3000}, {"b", false, 3000}, {"k", true, 600}}

// TestStreamSnapshotResumeKill9 kills `sluice stream` of two shards with
// kill -9 in the middle of its snapshot (twice, once as it catches up the
// binlog on resume) under writes to every table, in copied ranges and not
// yet copied ones (inserts, updates, deletes, keys moved across the copied
// key), and checks with an independent read_committed consumer: the first
// kill left copied chunks visible (the snapshot resumes, it does not start
// over), no event twice (an "r" per key, a change per position), and each
// table rebuilt from the topics equals its shard, every value.
func TestStreamSnapshotResumeKill9(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name, shards := twoShards(t, "ksnapres")
	for _, s := range shards {
		for _, tb := range resumeTables {
			key := "id INT PRIMARY KEY"
			if tb.strKey {
				key = "id VARCHAR(20) PRIMARY KEY"
			}
			mustExec(t, s.db, "CREATE TABLE "+tb.name+" ("+key+", n INT NOT NULL, s VARCHAR(40))",
				"INSERT INTO "+tb.name+" (id, n, s) VALUES "+resumeSeed(tb.rows, tb.strKey))
		}
	}
	bin := testenv.SluiceBinary(t)
	args := []string{"stream", "--kafka", strings.Join(brokers, ","), "--topic-prefix", name, "--stream", name,
		"--log-format", "json", "--chunk-rows", "50"}
	for _, s := range shards {
		args = append(args, "--source", s.url)
	}
	topics := make([]string, len(resumeTables))
	for i, tb := range resumeTables {
		topics[i] = name + "." + name + "." + tb.name
	}
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	for i, s := range shards {
		wg.Add(1)
		go func() { defer wg.Done(); resumeLoad(ctx, t, s, uint64(i+1)) }()
	}
	// Run 1: killed while copying.
	out := killWhen(t, bin, args, `"msg":"stream: snapshot"`, 700*time.Millisecond)
	if strings.Count(out, `"msg":"stream: snapshot committed"`) == 2 {
		t.Fatalf("run 1 finished both snapshots before the kill:\n%s", tail(out, 3000))
	}
	rs := 0
	for _, e := range consume(t, brokers, topics...) {
		if e.op() == "r" {
			rs++
		}
	}
	if rs == 0 {
		t.Fatal("after a kill -9 mid-snapshot no copied row is visible: the snapshot restarts from zero instead of resuming")
	}
	t.Logf("visible after the first kill: %d snapshot events", rs)
	if copyingStatus(t, brokers, name, "the first kill") == 0 {
		t.Error("stream status shows no snapshot in progress after the first kill")
	}
	time.Sleep(1500 * time.Millisecond) // writes between the runs
	// Run 2: killed while it catches up the binlog (about 1.5 s of writes).
	// Run 2: killed once a shard's catch-up committed a part (a state
	// record at another position than the first kill left) or after 3 s.
	first := positions(t, brokers, name)
	moved := watchState(t, brokers, name, func(stream, pos string) bool { return pos != first[stream] })
	out = killAfter(t, bin, args, `"msg":"stream: resuming the snapshot: catching up"`, func() {
		select {
		case <-moved:
		case <-time.After(3 * time.Second):
		}
	})
	t.Logf("run 2 was killed with %d of 2 shards' catch-up done", strings.Count(out, "snapshot catch-up done"))
	copyingStatus(t, brokers, name, "the second kill")
	time.Sleep(time.Second)
	// Run 3: killed again while copying.
	out = killWhen(t, bin, args, `"msg":"stream: snapshot"`, 400*time.Millisecond)
	if !strings.Contains(out, `"resumed":true`) {
		t.Errorf("run 3 did not resume a snapshot:\n%s", tail(out, 3000))
	}
	copyingStatus(t, brokers, name, "the third kill")
	time.Sleep(500 * time.Millisecond)
	stop()
	wg.Wait()
	if t.Failed() {
		return
	}
	cmd := testenv.SluiceCommand(bin, append(args, "--until-caught-up")...)
	fout, err := runWithTimeout(cmd, 4*time.Minute)
	if err != nil {
		t.Fatalf("final run: %v\n%s", err, tail(fout, 6000))
	}
	for _, l := range strings.Split(fout, "\n") {
		if strings.Contains(l, `"level":"ERROR"`) {
			t.Errorf("final run: %s", l)
		} else if strings.Contains(l, "catch") {
			t.Logf("final run: %s", l)
		}
	}
	checkResumed(t, brokers, name, topics, shards)
}

// checkResumed reads every topic with an independent consumer and checks
// each shard's tables against the source (strictRebuild, every value).
func checkResumed(t *testing.T, brokers []string, name string, topics []string, shards []shard) {
	t.Helper()
	evs := consume(t, brokers, topics...)
	ops := map[string]int{}
	for _, e := range evs {
		ops[e.op()]++
	}
	t.Logf("events by op (\"\" = tombstone): %v", ops)
	if ops["c"] == 0 || ops["u"] == 0 || ops["d"] == 0 {
		t.Errorf("want some c/u/d events: %v", ops)
	}
	for _, s := range shards {
		for i, tb := range resumeTables {
			what := "shard " + s.name + " table " + tb.name
			compareRows(t, what, strictRebuild(t, what, evs, topics[i], s.serverID), resumeRows(t, s.db, tb.name, tb.strKey))
		}
	}
	checkStates(t, brokers, name)
}

// copyingStatus logs what stream status says of the snapshots in progress
// and returns how many streams have one.
func copyingStatus(t *testing.T, brokers []string, prefix, when string) int {
	t.Helper()
	sts, err := kafkasink.ReadStatus(context.Background(), brokers, prefix)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, st := range sts {
		if st.Copying != "" {
			n++
			t.Logf("status of %s after %s: %s, position %.60s", st.Stream, when, st.Copying, st.Position)
		}
	}
	return n
}

// positions are the committed positions of the prefix's streams (none
// running: status reads until the offsets topic is idle).
func positions(t *testing.T, brokers []string, prefix string) map[string]string {
	t.Helper()
	sts, err := kafkasink.ReadStatus(context.Background(), brokers, prefix)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, st := range sts {
		out[st.Stream] = st.Position
	}
	return out
}

// watchState reads the state records committed from now on and closes the
// returned channel at the first one of which cond holds.
func watchState(t *testing.T, brokers []string, prefix string, cond func(stream, pos string) bool) <-chan struct{} {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(prefix+".sluice.offsets"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtEnd()))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	stopped := make(chan struct{})
	t.Cleanup(func() { cancel(); <-stopped; cl.Close() })
	go func() {
		defer close(stopped)
		for ctx.Err() == nil {
			hit := false
			cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) {
				var st struct {
					Position string `json:"position"`
				}
				if r.Value != nil && json.Unmarshal(r.Value, &st) == nil && st.Position != "" && cond(string(r.Key), st.Position) {
					hit = true
				}
			})
			if hit {
				close(done)
				return
			}
		}
	}()
	return done
}

// killWhen runs sluice until a log line contains marker (or 60 s passed),
// waits after, kills it with SIGKILL and returns its output.
func killWhen(t *testing.T, bin string, args []string, marker string, after time.Duration) string {
	t.Helper()
	return killAfter(t, bin, args, marker, func() { time.Sleep(after) })
}

// killAfter runs sluice until a log line contains marker (or 60 s passed),
// then until wait returns, kills it with SIGKILL and returns its output.
func killAfter(t *testing.T, bin string, args []string, marker string, wait func()) string {
	t.Helper()
	cmd := testenv.SluiceCommand(bin, args...)
	pr, pw := io.Pipe()
	cmd.Stdout, cmd.Stderr = pw, pw
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	seen := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pr)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		once := sync.Once{}
		for sc.Scan() {
			b.WriteString(sc.Text() + "\n")
			if strings.Contains(sc.Text(), marker) {
				once.Do(func() { close(seen) })
			}
		}
	}()
	select {
	case <-seen:
		wait()
	case <-time.After(60 * time.Second):
		t.Errorf("no %s within 60 s", marker)
	}
	_ = cmd.Process.Signal(syscall.SIGKILL)
	_ = cmd.Wait()
	pw.Close()
	<-done
	for _, l := range strings.Split(b.String(), "\n") {
		if strings.Contains(l, `"level":"ERROR"`) || strings.Contains(l, "catch-up done") {
			t.Logf("%.300s", l)
		}
	}
	return b.String()
}

func resumeKey(id int, str bool) string {
	if str {
		return fmt.Sprintf("'k%06d'", id)
	}
	return fmt.Sprint(id)
}

func resumeSeed(n int, str bool) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if i > 1 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "(%s, %d, 'seed%d')", resumeKey(i, str), i*7%1000, i)
	}
	return b.String()
}

// resumeLoad writes to every table until ctx ends: inserts beyond the seed
// and below it (negative keys, in a copied range), updates, deletes, and
// key changes to either end (across the copied key).
func resumeLoad(ctx context.Context, t *testing.T, s shard, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 11))
	next := 100000
	for ctx.Err() == nil {
		tx, err := s.db.Begin()
		if err != nil {
			t.Errorf("shard %s: %v", s.name, err)
			return
		}
		for i := 0; i < 1+r.IntN(3); i++ {
			tb := resumeTables[r.IntN(len(resumeTables))]
			id := resumeKey(1+r.IntN(tb.rows), tb.strKey)
			next++
			var q string
			switch r.IntN(6) {
			case 0:
				q = fmt.Sprintf("INSERT INTO %s (id, n, s) VALUES (%s, %d, 'i%d')", tb.name, resumeKey(next, tb.strKey), r.IntN(1000), next)
			case 1:
				q = fmt.Sprintf("INSERT INTO %s (id, n, s) VALUES (%s, %d, 'i%d')", tb.name, resumeKey(-next, tb.strKey), r.IntN(1000), next)
			case 2, 3:
				q = fmt.Sprintf("UPDATE %s SET n = n + 1, s = CONCAT('u', n) WHERE id = %s", tb.name, id)
			case 4:
				q = fmt.Sprintf("DELETE FROM %s WHERE id = %s", tb.name, id)
			default:
				to := next
				if r.IntN(2) == 0 {
					to = -next
				}
				q = fmt.Sprintf("UPDATE %s SET id = %s WHERE id = %s", tb.name, resumeKey(to, tb.strKey), id)
			}
			if _, err = tx.Exec(q); err != nil {
				break
			}
		}
		if err == nil {
			err = tx.Commit()
		}
		if err != nil {
			_ = tx.Rollback()
			// A deadlock or lock wait (the snapshot's consistent point
			// takes locks) rolls the transaction back: the load goes on.
			if !strings.Contains(err.Error(), "Error 1213") && !strings.Contains(err.Error(), "Error 1205") {
				t.Errorf("shard %s: %v", s.name, err)
				return
			}
		}
		time.Sleep(time.Duration(1+r.IntN(3)) * time.Millisecond)
	}
}

// resumeRows reads a table as the JSON after images Debezium carries, by key.
func resumeRows(t *testing.T, db *sql.DB, table string, strKey bool) map[string]map[string]any {
	t.Helper()
	rows, err := db.Query("SELECT id, n, s FROM " + table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	out := map[string]map[string]any{}
	for rows.Next() {
		var id string
		var n int64
		var s sql.NullString
		if err := rows.Scan(&id, &n, &s); err != nil {
			t.Fatal(err)
		}
		var idv any = json.Number(id)
		key := fmt.Sprintf(`{"id":%s}`, id)
		if strKey {
			idv, key = id, fmt.Sprintf(`{"id":%q}`, id)
		}
		img := map[string]any{"id": idv, "n": json.Number(fmt.Sprint(n)), "s": nil}
		if s.Valid {
			img["s"] = s.String
		}
		out[key] = img
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// strictRebuild is rebuild (which fails on an event twice) that also checks
// every event against the row it changes: an "r" is the first event of its
// key, a "c" finds no row, a "u" or "d" finds the row its before image
// shows. A change written for a row not copied yet, or one the snapshot
// already holds, fails here even when the final rows would come out equal.
func strictRebuild(t *testing.T, what string, evs []event, topic string, serverID int64) map[string]map[string]any {
	t.Helper()
	rows := rebuild(t, evs, topic, serverID)
	seen := map[string]bool{}
	cur := map[string]map[string]any{}
	bad := 0
	fail := func(f string, a ...any) {
		if bad++; bad <= 8 {
			t.Errorf(what+": "+f, a...)
		}
	}
	for _, e := range evs {
		if e.Topic != topic || e.Value == nil || fmt.Sprint(e.source()["server_id"]) != fmt.Sprint(serverID) {
			continue
		}
		k := primaryKey(t, e.Key)
		row, present := cur[k]
		switch e.op() {
		case "r":
			if seen[k] {
				fail("key %s: an r event after other events of the key", k)
			}
			cur[k] = e.image("after")
		case "c":
			if present {
				fail("key %s: a c event for a row that exists: %v", k, row)
			}
			cur[k] = e.image("after")
		case "u", "d":
			if !present {
				fail("key %s: a %s event for a row that is not there (before %v)", k, e.op(), e.image("before"))
			} else if fmt.Sprint(row) != fmt.Sprint(e.image("before")) {
				fail("key %s: %s event's before image %v, the row is %v", k, e.op(), e.image("before"), row)
			}
			if e.op() == "u" {
				cur[k] = e.image("after")
			} else {
				delete(cur, k)
			}
		}
		seen[k] = true
	}
	if fmt.Sprint(cur) != fmt.Sprint(rows) {
		t.Errorf("%s: the strict fold differs from the plain one", what)
	}
	return rows
}
