package stream_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamDDLMidStream: a column added while streaming is in the events
// after it, the statement is on the topic <prefix>, and a table without a
// primary key has null keys.
func TestStreamDDLMidStream(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kddl")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES (1, 1, 'a')",
		"CREATE TABLE nokey (n INT, s VARCHAR(10))", "INSERT INTO nokey VALUES (1, 'x')")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (2, 2, 'b')", "ALTER TABLE t ADD COLUMN extra VARCHAR(10) DEFAULT 'dflt'",
		"CREATE TABLE gone (id INT PRIMARY KEY)", "TRUNCATE TABLE `"+name+"`.gone", "DROP TABLE gone",
		"INSERT INTO t VALUES (3, 3, 'c', 'xx')", "UPDATE t SET n = 10 WHERE id = 1", "INSERT INTO nokey VALUES (2, 'y')")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	evs := consume(t, brokers, name, name+"."+name+".t", name+"."+name+".nokey")
	var ddl []string
	for _, e := range evs {
		if e.Topic == name {
			s, _ := e.Value["ddl"].(string)
			ddl = append(ddl, s)
			if string(e.Key) != `{"databaseName":"`+name+`"}` {
				t.Errorf("DDL event key %s", e.Key)
			}
		}
	}
	if len(ddl) != 4 || !strings.Contains(ddl[0], "ADD COLUMN extra") || !strings.Contains(ddl[2], "TRUNCATE") {
		t.Errorf("DDL events on topic %s: %q", name, ddl)
	}
	rows := rebuild(t, evs, name+"."+name+".t", 0)
	want := map[string]string{
		`{"id":1}`: "map[extra:dflt id:1 n:10 s:a]", // the update after the ALTER carries the new column
		`{"id":2}`: "map[id:2 n:2 s:b]",             // written before the ALTER: no such column yet
		`{"id":3}`: "map[extra:xx id:3 n:3 s:c]",
	}
	for k, w := range want {
		if got := fmtRow(rows[k]); got != w {
			t.Errorf("row %s: %s, want %s", k, got, w)
		}
	}
	var nokey int
	for _, e := range evs {
		if e.Topic == name+"."+name+".nokey" {
			nokey++
			if e.Key != nil {
				t.Errorf("keyless table: key %s, want null", e.Key)
			}
		}
	}
	if nokey != 2 {
		t.Errorf("%d events of the keyless table, want 2", nokey)
	}
	sts, err := kafkasink.ReadStatus(context.Background(), brokers, name)
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 || sts[0].Stream != name || sts[0].SchemaVersion < 2 || !strings.Contains(sts[0].Position, "bin") {
		t.Errorf("stream status: %+v, want one stream %s at schema version 2 or more", sts, name)
	}
}

func fmtRow(m map[string]any) string {
	out := map[string]string{}
	for k, v := range m {
		out[k] = strings.TrimSpace(normalString(v))
	}
	return strings.ReplaceAll(strings.TrimPrefix(sprint(out), ""), "\"", "")
}

// TestStreamKafkaUnreachable: exit 2 naming the broker.
func TestStreamKafkaUnreachable(t *testing.T) {
	env := testenv.Get(t)
	name := env.NewDatabase(t, "kunreach")
	cmd := testenv.SluiceCommand(testenv.SluiceBinary(t), "stream", "--source", env.SourceURL(name),
		"--kafka", "127.0.0.1:1", "--topic-prefix", name)
	out, err := runWithTimeout(cmd, time.Minute)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 {
		t.Fatalf("want exit 2, got %v\n%s", err, out)
	}
	if !strings.Contains(out, "127.0.0.1:1") || !strings.Contains(out, "cannot reach the broker") {
		t.Errorf("the error does not name the broker:\n%s", out)
	}
}

// TestStreamRowTooLarge: a row whose event exceeds the topic's
// max.message.bytes (1 MB by default) stops the stream with an error naming
// the table, the key, the size and the setting; nothing of it is written.
func TestStreamRowTooLarge(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kbig")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, b LONGBLOB)", "INSERT INTO t VALUES (1, 'small')")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t VALUES (2, REPEAT('x', 2000000))", "INSERT INTO t VALUES (3, 'after')")
	err := runStream(t, o)
	if err == nil {
		t.Fatal("streamed a 2 MB row into a topic with max.message.bytes 1 MB")
	}
	msg := err.Error()
	t.Logf("stopped with: %s", msg)
	for _, want := range []string{name + "." + name + ".t", `{"id":2}`, "max.message.bytes", "bytes"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error does not say %q: %s", want, msg)
		}
	}
	rows := rebuild(t, consume(t, brokers, name+"."+name+".t"), name+"."+name+".t", 0)
	if len(rows) != 1 {
		t.Errorf("%d rows in Kafka, want only the first (the stream must stop at the large row)", len(rows))
	}
}

// TestStreamIncompressibleRows: one transaction of rows that compression
// cannot shrink (random bytes), 3 MB in one partition: the producer's
// batches stay within the topic's max.message.bytes (1 MB by default), so
// the broker takes them. With a batch cap above the topic's limit it
// refused them with MESSAGE_TOO_LARGE.
func TestStreamIncompressibleRows(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "krand")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, b BLOB NOT NULL)")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	rnd := rand.New(rand.NewPCG(14, 400))
	want := map[string][]byte{}
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	for id := 1; id <= 400; id++ {
		b := make([]byte, 6000)
		for i := range b {
			b[i] = byte(rnd.Uint32())
		}
		want[strconv.Itoa(id)] = b
		if _, err := tx.Exec("INSERT INTO t VALUES (?, ?)", id, b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	evs := consume(t, brokers, name+"."+name+".t")
	if len(evs) != len(want) {
		t.Fatalf("%d events, want %d", len(evs), len(want))
	}
	for _, e := range evs {
		after := e.image("after")
		id := sprint(after["id"])
		got, err := base64.StdEncoding.DecodeString(sprint(after["b"]))
		if err != nil || !bytes.Equal(got, want[id]) {
			t.Fatalf("row %s: the event's bytes differ from the row's (%v)", id, err)
		}
		delete(want, id)
	}
	if len(want) != 0 {
		t.Fatalf("%d rows missing", len(want))
	}
}

// TestStreamLargeTransaction: a source transaction larger than the memory
// bound arrives in fragments and is written into one Kafka transaction.
func TestStreamLargeTransaction(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "klarge")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(200))")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name,
		MaxTxnMemory: 16 << 20}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "INSERT INTO t SELECT seq, seq % 100, REPEAT('s', 190) FROM seq_1_to_40000",
		"UPDATE t SET n = n + 1 WHERE id <= 100")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	compareRows(t, "large", rebuild(t, consume(t, brokers, name+"."+name+".t"), name+"."+name+".t", 0), sourceRows(t, db, "t"))
}

// TestStreamSchemas: --schemas wraps keys and values as JsonConverter's
// {"schema", "payload"} with Debezium's schema names and parameters.
func TestStreamSchemas(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kschemas")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, d DECIMAL(7,3) NOT NULL, ts TIMESTAMP(3) NULL)",
		"INSERT INTO t VALUES (1, 1.5, '2020-01-02 03:04:05.6')")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name, Schemas: true}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	evs := consume(t, brokers, name+"."+name+".t")
	if len(evs) != 1 {
		t.Fatalf("%d events, want 1", len(evs))
	}
	e := evs[0]
	var key map[string]any
	if err := json.Unmarshal(e.Key, &key); err != nil {
		t.Fatal(err)
	}
	base := name + "." + name + ".t"
	if ks, _ := key["schema"].(map[string]any); ks["name"] != base+".Key" || fmt.Sprint(key["payload"]) != "map[id:1]" {
		t.Errorf("key %s", e.Key)
	}
	vs, _ := e.Value["schema"].(map[string]any)
	payload, _ := e.Value["payload"].(map[string]any)
	if vs["name"] != base+".Envelope" || payload["op"] != "r" {
		t.Fatalf("value schema name %v, payload op %v", vs["name"], payload["op"])
	}
	fields, _ := vs["fields"].([]any)
	var after map[string]any
	for _, f := range fields {
		if m, _ := f.(map[string]any); m["field"] == "after" {
			after = m
		}
	}
	if after == nil || after["name"] != base+".Value" {
		t.Fatalf("no after field of %s.Value in %v", base, vs)
	}
	got := map[string]string{}
	for _, f := range after["fields"].([]any) {
		m := f.(map[string]any)
		got[fmt.Sprint(m["field"])] = fmt.Sprintf("%v %v %v %v", m["type"], m["name"], m["parameters"], m["optional"])
	}
	want := map[string]string{
		"id": "int32 <nil> <nil> false",
		"d":  "bytes org.apache.kafka.connect.data.Decimal map[connect.decimal.precision:7 scale:3] false",
		"ts": "string io.debezium.time.ZonedTimestamp <nil> true",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("schema of %s: %q, want %q", k, got[k], w)
		}
	}
	row, _ := payload["after"].(map[string]any)
	if fmt.Sprint(row["d"]) != "Bdw=" || fmt.Sprint(row["ts"]) != "2020-01-02T03:04:05.600Z" {
		t.Errorf("payload after %v", row) // d: 1500 unscaled = 0x05DC
	}
}

// TestStreamShardUnreachable: a shard that cannot be reached fails alone;
// the other shard streams everything.
func TestStreamShardUnreachable(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "kunreach2")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES "+seedRows(50))
	good := source(t, env.SourceURL(name))
	bad := source(t, "mysql://sluice:sluice@127.0.0.1:1/"+name)
	err := runStream(t, stream.Options{Sources: []config.MySQL{good, bad}, Brokers: brokers, Prefix: name, Stream: name})
	if err == nil || !strings.Contains(err.Error(), "shard 127.0.0.1:1") || strings.Contains(err.Error(), "shard "+good.Addr()) {
		t.Fatalf("want an error of the unreachable shard only, got %v", err)
	}
	compareRows(t, "the reachable shard", rebuild(t, consume(t, brokers, name+"."+name+".t"), name+"."+name+".t", 0), sourceRows(t, db, "t"))
}

// TestStreamTransactionMetadata: --transaction-metadata writes BEGIN and
// END (with counts per table) on <prefix>.transaction around each source
// transaction, and a transaction block in each event.
func TestStreamTransactionMetadata(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "ktxmeta")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE a (id INT PRIMARY KEY)", "CREATE TABLE b (id INT PRIMARY KEY)")
	o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name, TxnMetadata: true}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	mustExec(t, db, "START TRANSACTION; INSERT INTO a VALUES (1), (2); INSERT INTO b VALUES (1); COMMIT")
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	evs := consume(t, brokers, name+".transaction", name+"."+name+".a", name+"."+name+".b")
	var status []string
	var id string
	var blocks, ids []string
	for _, e := range evs {
		switch e.Topic {
		case name + ".transaction":
			status = append(status, fmt.Sprint(e.Value["status"]))
			id = fmt.Sprint(e.Value["id"])
			if e.Value["status"] == "END" {
				if got := fmt.Sprint(e.Value["event_count"], " ", e.Value["data_collections"]); got !=
					"3 [map[data_collection:"+name+".a event_count:2] map[data_collection:"+name+".b event_count:1]]" {
					t.Errorf("END record: %s", got)
				}
			}
		default:
			tx, _ := e.Value["transaction"].(map[string]any)
			blocks = append(blocks, fmt.Sprint(e.Topic[len(name)+1:], " ", tx["total_order"], "/", tx["data_collection_order"]))
			ids = append(ids, fmt.Sprint(tx["id"]))
		}
	}
	for _, x := range ids {
		if x != id {
			t.Errorf("event transaction id %v, BEGIN/END id %s", x, id)
		}
	}
	sort.Strings(blocks) // the consumer reads the topics in no set order
	if fmt.Sprint(status) != "[BEGIN END]" || id == "" {
		t.Errorf("transaction topic: %v (id %q)", status, id)
	}
	if want := fmt.Sprintf("[%[1]s.a 1/1 %[1]s.a 2/2 %[1]s.b 3/1]", name); fmt.Sprint(blocks) != want {
		t.Errorf("transaction blocks (total/per table): %v", blocks)
	}
}
