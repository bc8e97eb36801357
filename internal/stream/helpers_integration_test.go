package stream_test

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

func TestMain(m *testing.M) { testenv.MainWithSluiceBinary(m) }

// event is one Kafka record as an independent consumer sees it.
type event struct {
	Topic string
	Key   json.RawMessage // nil for a null key
	Value map[string]any  // nil for a tombstone
}

func (e event) op() string {
	if e.Value == nil {
		return ""
	}
	s, _ := e.Value["op"].(string)
	return s
}

func (e event) source() map[string]any { m, _ := e.Value["source"].(map[string]any); return m }

func (e event) image(name string) map[string]any { m, _ := e.Value[name].(map[string]any); return m }

// identity names a change event uniquely: a second record with it is a duplicate.
func (e event) identity() string {
	s := e.source()
	if e.op() == "r" { // one snapshot per shard: a row read twice is a duplicate wherever it was read
		return fmt.Sprintf("%s|r|%v|%s", e.Topic, s["server_id"], e.Key)
	}
	return fmt.Sprintf("%s|%s|%v|%v:%v|%v|%s", e.Topic, e.op(), s["server_id"], s["file"], s["pos"], s["row"], e.Key)
}

// consume reads every committed record of the topics with franz-go
// (read_committed), not with sluice's code, until nothing new arrives for
// idle after the topics' ends were reached.
func consume(t *testing.T, brokers []string, topics ...string) []event {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(topics...),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()),
		kgo.FetchMaxWait(500*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	var out []event
	idleSince := time.Now()
	deadline := time.Now().Add(2 * time.Minute)
	for time.Since(idleSince) < 4*time.Second && time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		n := 0
		fs.EachRecord(func(r *kgo.Record) {
			n++
			e := event{Topic: r.Topic}
			if r.Key != nil {
				e.Key = append(json.RawMessage(nil), r.Key...)
			}
			if r.Value != nil {
				d := json.NewDecoder(strings.NewReader(string(r.Value)))
				d.UseNumber()
				if err := d.Decode(&e.Value); err != nil {
					t.Fatalf("%s@%d: value is not JSON: %v: %s", r.Topic, r.Offset, err, r.Value)
				}
			}
			out = append(out, e)
		})
		if n > 0 {
			idleSince = time.Now()
		}
	}
	return out
}

// rebuild applies the change events of one topic (and one server_id when
// not 0) to a map key → after image, as a consumer replicating the table
// would; it fails on a duplicate event. The key is the primary key alone:
// the shard field of several shards' keys is left out (the events are of
// one server_id; TestStreamShardKeys checks that field).
func rebuild(t *testing.T, evs []event, topic string, serverID int64) map[string]map[string]any {
	t.Helper()
	seen := map[string]bool{}
	rows := map[string]map[string]any{}
	for _, e := range evs {
		if e.Topic != topic || e.Value == nil {
			continue
		}
		if serverID != 0 && fmt.Sprint(e.source()["server_id"]) != fmt.Sprint(serverID) {
			continue
		}
		id := e.identity()
		if seen[id] {
			t.Errorf("duplicate event %s", id)
		}
		seen[id] = true
		switch e.op() {
		case "r", "c", "u":
			rows[primaryKey(t, e.Key)] = e.image("after")
		case "d":
			delete(rows, primaryKey(t, e.Key))
		default:
			t.Errorf("unknown op %q", e.op())
		}
	}
	return rows
}

// primaryKey is a record key without the shard field of several shards'
// keys (it is the last field: what is before it is the primary key as
// sluice writes it).
func primaryKey(t *testing.T, key json.RawMessage) string {
	t.Helper()
	k := string(key)
	if i := strings.Index(k, `,"`+physicalID+`":`); i >= 0 {
		if !strings.HasSuffix(k, "}") {
			t.Fatalf("key %s", k)
		}
		return k[:i] + "}"
	}
	return k
}

// sourceRows reads id, n, s of a load table as the JSON after images Debezium would carry.
func sourceRows(t *testing.T, db *sql.DB, table string) map[string]map[string]any {
	t.Helper()
	return resumeRows(t, db, table, false)
}

func compareRows(t *testing.T, what string, got, want map[string]map[string]any) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("%s: %d rows rebuilt from Kafka, %d on the source", what, len(got), len(want))
	}
	bad := 0
	for k, w := range want {
		g, ok := got[k]
		if !ok {
			if bad++; bad <= 5 {
				t.Errorf("%s: key %s missing in Kafka", what, k)
			}
			continue
		}
		if fmt.Sprint(g) != fmt.Sprint(w) {
			if bad++; bad <= 5 {
				t.Errorf("%s: key %s: Kafka %v, source %v", what, k, g, w)
			}
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			if bad++; bad <= 5 {
				t.Errorf("%s: key %s in Kafka but not on the source", what, k)
			}
		}
	}
}

// runStream runs sluice stream in process until caught up.
func runStream(t *testing.T, o stream.Options) error {
	t.Helper()
	if o.Log == nil {
		o.Log = testenv.Logger()
	}
	o.UntilCaughtUp = true
	if o.Stream == "" {
		o.Stream = o.Prefix
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	return stream.Run(ctx, o)
}

func source(t *testing.T, url string) config.MySQL {
	t.Helper()
	m, err := config.ParseSource(url)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustExec(t *testing.T, db *sql.DB, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

func keepLogs() bool { return os.Getenv("SLUICE_TEST_VERBOSE") != "" }

func normalString(v any) string { return fmt.Sprint(normal(v)) }

func sprint(v any) string { return fmt.Sprint(v) }

// checkStates reads the stream states of the offsets topic (read_committed,
// franz-go) and checks what one worker's commits promise
// (pipeline.Group.Checkpoint): every Kafka transaction carries its
// checkpoint, so no state record lists applied transactions, and a stream's
// position never moves back. It returns the number of state records.
func checkStates(t *testing.T, brokers []string, prefix string) int {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...), kgo.ConsumeTopics(prefix+".sluice.offsets"),
		kgo.FetchIsolationLevel(kgo.ReadCommitted()), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	last := map[string]model.Position{}
	n := 0
	for idle := 0; idle < 3; {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		fs := cl.PollFetches(ctx)
		cancel()
		got := 0
		fs.EachRecord(func(r *kgo.Record) {
			got++
			if r.Value == nil || strings.Contains(string(r.Key), "\x00") {
				return // a fence marker
			}
			var st struct {
				Position string            `json:"position"`
				Applied  []json.RawMessage `json:"applied"`
			}
			if err := json.Unmarshal(r.Value, &st); err != nil {
				t.Fatalf("state at offset %d: %v", r.Offset, err)
			}
			n++
			if len(st.Applied) > 0 {
				t.Errorf("state of %s at offset %d lists %d applied records: %s", r.Key, r.Offset, len(st.Applied), tail(string(r.Value), 300))
			}
			p, err := binlogpos.Decode(st.Position)
			if err != nil || p == nil {
				return // the start of a stream before its snapshot
			}
			if prev := last[string(r.Key)]; prev != nil && p.Compare(prev) < 0 {
				t.Errorf("state of %s at offset %d: position %s before %s", r.Key, r.Offset, p, prev)
			}
			last[string(r.Key)] = p
		})
		if got == 0 {
			idle++
		} else {
			idle = 0
		}
	}
	return n
}
