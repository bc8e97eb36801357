package stream_test

import (
	"context"
	"errors"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	kafkasink "github.com/sluice-db/sluice/internal/sink/kafka"
	"github.com/sluice-db/sluice/internal/stream"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestDropKafkaStream: a `sluice stream`'s state is its records in
// <prefix>.sluice.offsets and .schema. sluice drop --kafka refuses while
// the state was just written (the stream seems to run), lists the records
// (no --yes and no terminal: exit 2, nothing removed), then writes their
// tombstones: stream status no longer lists it, another stream of the prefix
// keeps its state, the data topics keep their events, and the stream started
// again is a new one: refused over its old topics, with --reuse-topics it
// snapshots again instead of resuming.
func TestDropKafkaStream(t *testing.T) {
	env := testenv.Get(t)
	brokers := env.Kafka(t)
	bin := testenv.SluiceBinary(t)
	prefix := testenv.UniqueName("kdrop")
	var opts []stream.Options
	for _, name := range []string{"a", "b"} {
		db := env.NewDatabase(t, "kdrop_"+name)
		mustExec(t, env.MySQL(t, db), "CREATE TABLE t (id INT PRIMARY KEY, v INT)", "INSERT INTO t VALUES (1, 1), (2, 2)")
		o := stream.Options{Sources: []config.MySQL{source(t, env.SourceURL(db))}, Brokers: brokers, Prefix: prefix, Stream: name}
		if err := runStream(t, o); err != nil {
			t.Fatal(err)
		}
		opts = append(opts, o)
	}
	written := time.Now()
	drop := func(args ...string) (int, string) {
		t.Helper()
		out, err := testenv.SluiceCommand(bin, append([]string{"drop", "--kafka", strings.Join(brokers, ","), "--topic-prefix", prefix,
			"--log-level", "warn"}, args...)...).CombinedOutput()
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		if ee != nil {
			return ee.ExitCode(), string(out)
		}
		return 0, string(out)
	}
	if code, out := drop("--stream", "a", "--yes"); code != 2 || !strings.Contains(out, `stream "a" seems to run: its state in `+prefix+".sluice.offsets was written") {
		t.Errorf("drop right after the stream wrote: exit %d, want 2\n%s", code, out)
	}
	time.Sleep(time.Until(written.Add(11 * time.Second)))
	code, out := drop("--stream", "a")
	if code != 2 || !strings.Contains(out, "stream a: 2 records in "+prefix+".sluice.offsets, 2 schema-history records in "+prefix+".sluice.schema (tombstones)") ||
		!strings.Contains(out, "pass --yes") {
		t.Errorf("drop without --yes: exit %d, want 2 and the list\n%s", code, out)
	}
	if code, out = drop("--stream", "nope", "--yes"); code != 2 || !strings.Contains(out, "the streams there are: a, b") {
		t.Errorf("drop of an unknown stream: exit %d, want 2 listing a and b\n%s", code, out)
	}
	if code, out = drop("--stream", "a", "--yes"); code != 0 || !strings.Contains(out, "dropped kafka ") {
		t.Fatalf("drop --yes: exit %d\n%s", code, out)
	}
	ctx := context.Background()
	sts, err := kafkasink.ReadStatus(ctx, brokers, prefix)
	if err != nil {
		t.Fatal(err)
	}
	if len(sts) != 1 || sts[0].Stream != "b" {
		t.Errorf("stream status after the drop: %+v, want only b", sts)
	}
	kept, err := kafkasink.ReadKept(ctx, brokers, prefix)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int{"a": 0, "b": 1} {
		if got := kept.Of(name); len(got) != want {
			t.Errorf("stream %s: %d streams' records left in the state topics, want %d: %+v", name, len(got), want, got)
		}
	}
	topic := prefix + "." + opts[0].Sources[0].Database + ".t"
	reads := func() int {
		n := 0
		for _, e := range consume(t, brokers, topic) {
			if e.Value != nil && e.op() == "r" {
				n++
			}
		}
		return n
	}
	if n := reads(); n != 2 {
		t.Fatalf("%s holds %d snapshot events after the drop, want the 2 it had", topic, n)
	}
	// Started again, a is a new stream over topics that hold its earlier
	// history: refused (exit 2) unless the user asks to write into them.
	if err := runStream(t, opts[0]); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "--reuse-topics") {
		t.Fatalf("stream a started again after its drop, over its old topics: want exit 2 naming --reuse-topics, got %v", err)
	}
	again := opts[0]
	again.ReuseTopics = true
	if err := runStream(t, again); err != nil {
		t.Fatal(err)
	}
	if n := reads(); n != 4 {
		t.Errorf("stream a started again after its drop: %d snapshot events in %s, want 4 (a new stream snapshots again)", n, topic)
	}
}
