package stream_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// physicalID is the key field naming a row's shard (Debezium's
// ByLogicalTableRouter with key.enforce.uniqueness).
const physicalID = "__dbz__physicalTableIdentifier"

// TestStreamShardKeys: two shards (MariaDB 10.11 and MySQL 9.7) hold the
// same table with overlapping primary keys. A consumer that knows nothing of
// server_id rebuilds each table by key alone from what the topics hold, as a
// JDBC sink with pk.mode=record_key (every event applied in order) and as
// log compaction leaves it (the last record of each key, a tombstone
// removing it); either way each shard's rows must equal that shard, and a
// delete (and its tombstone) on one shard must not remove the other's row of
// the same key.
func TestStreamShardKeys(t *testing.T) {
	t.Run("default: the shard in the key", func(t *testing.T) { testShardKeys(t, "") })
	t.Run("a topic per shard", func(t *testing.T) { testShardKeys(t, "topic") })
}

func testShardKeys(t *testing.T, layout string) {
	brokers := testenv.Get(t).Kafka(t)
	name, shards := twoShards(t, "kshkey")
	for i, s := range shards {
		var vals []string
		for id := 1; id <= 300; id++ {
			vals = append(vals, fmt.Sprintf("(%d, %d, 'shard%d-%d')", id, id*(i+2), i, id))
		}
		mustExec(t, s.db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))",
			"INSERT INTO t (id, n, s) VALUES "+strings.Join(vals, ","))
	}
	var srcs []config.MySQL
	for _, s := range shards {
		srcs = append(srcs, source(t, s.url))
	}
	o := stream.Options{Sources: srcs, Brokers: brokers, Prefix: name, Stream: name, Layout: layout}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	// Shard 0 deletes keys shard 1 keeps (and updates), changes a key to one
	// shard 1 has too; shard 1 deletes others and inserts keys shard 0 lacks.
	mustExec(t, shards[0].db, "DELETE FROM t WHERE id <= 50", "UPDATE t SET n = n + 1000 WHERE id BETWEEN 51 AND 100",
		"UPDATE t SET id = 1200 WHERE id = 200", "INSERT INTO t VALUES (1300, 1, 'only0')")
	mustExec(t, shards[1].db, "DELETE FROM t WHERE id BETWEEN 101 AND 120", "UPDATE t SET s = 'kept' WHERE id <= 30",
		"INSERT INTO t VALUES (1200, 2, 'also1'), (1301, 3, 'only1')")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	topics := map[string]string{} // shard URL → its table topic
	for _, s := range shards {
		topics[s.url] = name + "." + name + ".t"
		if layout == "topic" {
			topics[s.url] = name + "." + shardLabel(source(t, s.url).Addr()) + "." + name + ".t"
		}
	}
	var all []event
	seen := map[string]bool{}
	for _, tp := range topics {
		if !seen[tp] {
			seen[tp] = true
			all = append(all, consume(t, brokers, tp)...)
		}
	}
	// Keyed by the record key alone, the topics hold every shard's rows.
	total, kept := 0, 0
	for _, s := range shards {
		total += len(sourceRows(t, s.db, "t"))
	}
	for tp := range seen {
		kept += len(upsertByKey(all, tp))
	}
	if kept != total {
		t.Errorf("the topics rebuilt by key hold %d rows, the shards %d", kept, total)
	}
	for _, s := range shards {
		want := sourceRows(t, s.db, "t")
		tp := topics[s.url]
		ident := ""
		if layout != "topic" {
			ident = name + "." + shardLabel(source(t, s.url).Addr()) + "." + name + ".t"
		}
		compareRows(t, "upserted by key, shard "+s.name, shardRows(t, upsertByKey(all, tp), ident), want)
		compareRows(t, "compacted, shard "+s.name, shardRows(t, compactByKey(all, tp), ident), want)
	}
}

// shardLabel is the documented topic-safe form of a shard's host:port.
func shardLabel(addr string) string {
	return strings.NewReplacer(":", "_", "[", "_", "]", "_").Replace(addr)
}

// upsertByKey applies every record of topic in order to a table keyed by
// the record key alone: c/u/r write the after image, d and tombstones delete.
func upsertByKey(evs []event, topic string) map[string]map[string]any {
	rows := map[string]map[string]any{}
	for _, e := range evs {
		if e.Topic != topic {
			continue
		}
		switch e.op() {
		case "c", "u", "r":
			rows[string(e.Key)] = e.image("after")
		default: // "d" or a tombstone
			delete(rows, string(e.Key))
		}
	}
	return rows
}

// compactByKey is what log compaction converges to: the last record of each
// key; a key whose last record is a tombstone is gone.
func compactByKey(evs []event, topic string) map[string]map[string]any {
	last := map[string]event{}
	for _, e := range evs {
		if e.Topic == topic {
			last[string(e.Key)] = e
		}
	}
	rows := map[string]map[string]any{}
	for k, e := range last {
		if e.Value != nil && e.op() != "d" {
			rows[k] = e.image("after")
		}
	}
	return rows
}

// shardRows keeps the rows whose key names the shard ident (every row when
// ident is "": a topic of one shard) and gives them the primary key alone
// as key, failing on a key that names no shard when one is expected.
func shardRows(t *testing.T, rows map[string]map[string]any, ident string) map[string]map[string]any {
	t.Helper()
	out := map[string]map[string]any{}
	others := map[string]int{}
	for k, row := range rows {
		var key map[string]any
		d := json.NewDecoder(strings.NewReader(k))
		d.UseNumber()
		if err := d.Decode(&key); err != nil {
			t.Fatalf("key %s: %v", k, err)
		}
		if ident != "" {
			id, _ := key[physicalID].(string)
			if id != ident {
				others[id]++
				continue
			}
			delete(key, physicalID)
		} else if _, ok := key[physicalID]; ok {
			t.Fatalf("key %s of a one-shard topic names a shard", k)
		}
		out[fmt.Sprintf(`{"id":%v}`, key["id"])] = row
	}
	if ident != "" && len(others) != 1 {
		var names []string
		for n, c := range others {
			names = append(names, fmt.Sprintf("%q: %d", n, c))
		}
		sort.Strings(names)
		t.Errorf("keys not of shard %s: want those of the one other shard, got %v", ident, names)
	}
	return out
}

// TestStreamShardJoins: shards streamed by separate runs into one topic
// prefix, each naming its shard in the key, share the topics (a new stream of
// another server joins); a new stream of a server already streamed there,
// reached at another address, is refused with exit 2, and so is a stream
// restarted with another layout.
func TestStreamShardJoins(t *testing.T) {
	brokers := testenv.Get(t).Kafka(t)
	name, shards := twoShards(t, "kshjoin")
	for i, s := range shards {
		mustExec(t, s.db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))",
			fmt.Sprintf("INSERT INTO t VALUES (1, %d, 'a'), (2, %d, 'b')", i, i))
	}
	run := func(name_ string, url string, layout string) error {
		return runStream(t, stream.Options{Sources: []config.MySQL{source(t, url)}, Brokers: brokers, Prefix: name, Stream: name_, Layout: layout})
	}
	for i, s := range shards {
		if err := run(fmt.Sprintf("s%d", i), s.url, "key"); err != nil {
			t.Fatalf("shard %s joining the prefix: %v", s.name, err)
		}
	}
	mustExec(t, shards[0].db, "DELETE FROM t WHERE id = 1")
	if err := run("s0", shards[0].url, "key"); err != nil {
		t.Fatal(err)
	}
	other := strings.Replace(shards[1].url, "@127.0.0.1:", "@localhost:", 1)
	if other == shards[1].url {
		t.Fatalf("shard URL %s is not on 127.0.0.1", other)
	}
	// The command itself: exit status 2 and the message.
	cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), "stream", "--source", other, "--kafka", strings.Join(brokers, ","),
		"--topic-prefix", name, "--stream", "s1-again", "--shard-layout", "key", "--until-caught-up")
	out, err := runWithTimeout(cmd, 2*time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitcode.Config || !strings.Contains(out, `stream "s1" of the same server`) {
		t.Errorf("a new stream of shard %s at another address: want exit 2 naming stream s1, got %v:\n%s", shards[1].name, err, tail(out, 3000))
	}
	err = runStream(t, stream.Options{Sources: []config.MySQL{source(t, shards[1].url), source(t, other)}, Brokers: brokers, Prefix: name, Stream: "dup"})
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "are the same server") {
		t.Errorf("one server given twice at two addresses: want exit 2, got exit %d: %v", exitcode.Of(err), err)
	}
	if err := run("s0", shards[0].url, "topic"); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "--shard-layout key") {
		t.Errorf("stream s0 restarted with another layout: want exit 2, got exit %d: %v", exitcode.Of(err), err)
	}
	sts, err := kafkasink.ReadStatus(context.Background(), brokers, name)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range sts {
		got = append(got, st.Stream+" "+st.Layout+" "+st.Shard)
	}
	want := []string{"s0 key " + shardLabel(source(t, shards[0].url).Addr()), "s1 key " + shardLabel(source(t, shards[1].url).Addr())}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("stream status: %q, want %q", got, want)
	}
	tp := name + "." + name + ".t"
	evs := consume(t, brokers, tp)
	for _, s := range shards {
		ident := name + "." + shardLabel(source(t, s.url).Addr()) + "." + name + ".t"
		compareRows(t, "upserted by key, shard "+s.name, shardRows(t, upsertByKey(evs, tp), ident), sourceRows(t, s.db, "t"))
	}
}
