package stream_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestStreamNewStreamOverTopics: a new stream (no state under its name)
// whose topics already hold another stream's history (same source, another
// name; a name differing only in case) is refused with exit 2 naming that
// stream and the fixes, instead of writing a second history into them; the
// first stream goes on, and an explicit ReuseTopics starts the new one.
func TestStreamNewStreamOverTopics(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		brokers := env.Kafka(t)
		name := env.NewDatabase(t, "knewst")
		db := env.MySQL(t, name)
		mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES "+seedRows(100))
		a := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(name))}, Brokers: brokers, Prefix: name, Stream: "orders"}
		if err := runStream(t, a); err != nil {
			t.Fatal(err)
		}
		// Deleted while no stream runs: a second snapshot would not carry
		// these deletes, so a consumer of both histories keeps the rows.
		mustExec(t, db, "DELETE FROM t WHERE id <= 10")
		for other, hint := range map[string]string{"orders2": "", "Orders": "only in case"} {
			b := a
			b.Stream = other
			err := runStream(t, b)
			if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), `"orders"`) ||
				!strings.Contains(err.Error(), "--topic-prefix") || !strings.Contains(err.Error(), hint) {
				t.Errorf("new stream %q over stream orders's topics: want exit 2 naming stream \"orders\" and the fix (%q), got exit %d: %v",
					other, hint, exitcode.Of(err), err)
			} else {
				t.Logf("new stream %q: %v", other, err)
			}
		}
		if err := runStream(t, a); err != nil {
			t.Fatalf("the first stream again: %v", err)
		}
		topic := name + "." + name + ".t"
		compareRows(t, "the first stream", rebuild(t, consume(t, brokers, topic), topic, 0), sourceRows(t, db, "t"))
		b := a
		b.Stream, b.ReuseTopics = "orders2", true
		if err := runStream(t, b); err != nil {
			t.Errorf("a new stream with ReuseTopics: %v", err)
		}
	})
}

// TestStreamTopicsOfUnknownOrigin: a topic holding committed records that no
// stream state of the prefix accounts for (an earlier run whose offsets
// topic is gone, another producer) refuses a new stream with exit 2; a topic
// holding only aborted records (a snapshot killed before its commit) does
// not.
func TestStreamTopicsOfUnknownOrigin(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	name := env.NewDatabase(t, "korphan")
	db := env.MySQL(t, name)
	mustExec(t, db, "CREATE TABLE t (id INT PRIMARY KEY, n INT NOT NULL, s VARCHAR(40))", "INSERT INTO t VALUES "+seedRows(50))
	src := []config.MySQL{source(t, env.SourceURL(name))}
	topic := func(prefix string) string { return prefix + "." + name + ".t" }

	// An earlier run whose state is gone: its offsets topic deleted.
	gone := name + "_gone"
	o := stream.Options{Sources: src, Brokers: brokers, Prefix: gone, Stream: "s"}
	if err := runStream(t, o); err != nil {
		t.Fatal(err)
	}
	deleteTopics(t, brokers, gone+".sluice.offsets")
	err := runStream(t, o)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), topic(gone)) || !strings.Contains(err.Error(), "an earlier run of stream \"s\"") {
		t.Errorf("stream whose state is gone, over its old topics: want exit 2 naming %s, got exit %d: %v", topic(gone), exitcode.Of(err), err)
	}

	// Another producer wrote the topic.
	foreign := name + "_foreign"
	produce(t, brokers, topic(foreign), false)
	o = stream.Options{Sources: src, Brokers: brokers, Prefix: foreign, Stream: "s"}
	if err := runStream(t, o); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), topic(foreign)) ||
		!strings.Contains(err.Error(), "no stream of the prefix") {
		t.Errorf("new stream over another producer's topic: want exit 2 naming %s, got exit %d: %v", topic(foreign), exitcode.Of(err), err)
	}

	// Only an aborted transaction in the topic: nothing a consumer sees.
	aborted := name + "_aborted"
	produce(t, brokers, topic(aborted), true)
	o = stream.Options{Sources: src, Brokers: brokers, Prefix: aborted, Stream: "s"}
	if err := runStream(t, o); err != nil {
		t.Fatalf("new stream over a topic of aborted records only: %v", err)
	}
	compareRows(t, "over aborted records", rebuild(t, consume(t, brokers, topic(aborted)), topic(aborted), 0), sourceRows(t, db, "t"))
}

// produce writes one record {"id":1} into topic, in a transaction aborted when abort.
func produce(t *testing.T, brokers []string, topic string, abort bool) {
	t.Helper()
	opts := []kgo.Opt{kgo.SeedBrokers(brokers...), kgo.AllowAutoTopicCreation()}
	if abort {
		opts = append(opts, kgo.TransactionalID(topic+".test"))
	}
	cl, err := kgo.NewClient(opts...)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 1, -1, nil, topic); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { deleteTopics(t, brokers, topic) })
	if abort {
		if err := cl.BeginTransaction(); err != nil {
			t.Fatal(err)
		}
	}
	rec := &kgo.Record{Topic: topic, Key: []byte(`{"id":1}`), Value: []byte(`{"before":null,"after":{"id":1,"n":0,"s":"x"},"op":"c"}`)}
	if err := cl.ProduceSync(ctx, rec).FirstErr(); err != nil {
		t.Fatal(err)
	}
	if abort {
		if err := cl.EndTransaction(ctx, kgo.TryAbort); err != nil {
			t.Fatal(err)
		}
	}
}

func deleteTopics(t *testing.T, brokers []string, topics ...string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(brokers...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := kadm.NewClient(cl).DeleteTopics(ctx, topics...); err != nil {
		t.Errorf("delete topics %v: %v", topics, err)
	}
}
