package kafka

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// The topics of a group's new tables are created in one request before its
// transaction begins; each gets its max.message.bytes (a topic that already
// existed keeps its own).
func TestEnsureDataTopics(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := fmt.Sprintf("kt_topics_%d", time.Now().UnixNano())
	st, err := Connect(ctx, Config{Brokers: brokers, Prefix: prefix, Stream: "s1", Decode: binlogpos.Decode})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	a, b, big := prefix+".db.a", prefix+".db.b", prefix+".db.big"
	t.Cleanup(func() {
		_, _ = st.adm.DeleteTopics(context.Background(), a, b, big, st.cfg.OffsetsTopic(), st.cfg.SchemaTopic())
	})
	limit := "2000000"
	if _, err := st.adm.CreateTopic(ctx, 1, -1, map[string]*string{"max.message.bytes": &limit}, big); err != nil {
		t.Fatal(err)
	}
	if err := st.ensureDataTopics(ctx, []string{a, b, big}); err != nil {
		t.Fatal(err)
	}
	want := map[string]int32{a: brokerMessageMax, b: brokerMessageMax, big: 2000000}
	for topic, w := range want {
		if got, ok := st.topics.get(topic); !ok || got != w {
			t.Errorf("%s: max.message.bytes %d (known %v), want %d", topic, got, ok, w)
		}
	}
	// A created topic reaches the broker's metadata a moment later (on a
	// busy box, after the create returned): wait for it, bounded.
	var td kadm.TopicDetails
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(200 * time.Millisecond) {
		if td, err = st.adm.ListTopics(ctx, a, b); err != nil {
			t.Fatal(err)
		}
		if (td[a].Err == nil && len(td[a].Partitions) > 0 && td[b].Err == nil && len(td[b].Partitions) > 0) || time.Now().After(deadline) {
			break
		}
	}
	for _, topic := range []string{a, b} {
		d, ok := td[topic]
		if !ok || d.Err != nil || len(d.Partitions) != 1 {
			t.Errorf("%s: not created with 1 partition: %+v", topic, d)
		}
	}
}

// Opening a stream creates the topics of every table it captures, before
// any event: a table's first event does not wait for its topic.
func TestOpenCreatesTableTopics(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prefix := fmt.Sprintf("kt_open_%d", time.Now().UnixNano())
	st, err := Connect(ctx, Config{Brokers: brokers, Prefix: prefix, Stream: "s1", Decode: binlogpos.Decode})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	tables := []*schema.Table{{TableID: schema.TableID{Database: "db", Name: "t1"}}, {TableID: schema.TableID{Database: "db", Name: "t2"}}}
	topics := []string{prefix + ".db.t1", prefix + ".db.t2"}
	t.Cleanup(func() {
		_, _ = st.adm.DeleteTopics(context.Background(), append(topics, prefix, st.cfg.OffsetsTopic(), st.cfg.SchemaTopic())...)
	})
	if err := st.RecordStart(ctx, binlogpos.Position{File: "binlog.000001", Pos: 4}, tables); err != nil {
		t.Fatal(err)
	}
	if _, _, err := New(st, nil).Open(ctx); err != nil {
		t.Fatal(err)
	}
	td, err := st.adm.ListTopics(ctx, topics...)
	if err != nil {
		t.Fatal(err)
	}
	for _, topic := range topics {
		if d, ok := td[topic]; !ok || d.Err != nil {
			t.Errorf("%s: not created at open: %+v", topic, d)
		}
		if _, ok := st.topics.get(topic); !ok {
			t.Errorf("%s: max.message.bytes not known after open", topic)
		}
	}
}
