package kafka

import (
	"strconv"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

func rec(kind string, ts int64, off int64) *kgo.Record {
	return &kgo.Record{Offset: off, Headers: []kgo.RecordHeader{header(hdrKind, kind), header(hdrTS, strconv.FormatInt(ts, 10))}}
}

// TestMergeRelease checks the release rule without Kafka: the earliest
// waiting transaction goes once every shard without one has a watermark at
// or past it; ties go to the earlier shard; a shard's time never goes back.
func TestMergeRelease(t *testing.T) {
	a := &mergeIn{mergeShardState: mergeShardState{Stream: "a"}}
	b := &mergeIn{mergeShardState: mergeShardState{Stream: "b"}}
	m := &merger{ins: []*mergeIn{a, b}}

	a.q = []*kgo.Record{rec("row", 1000, 0), rec("end", 1000, 1)}
	if m.releasable() != nil || m.st.HeldBy != "b" {
		t.Fatalf("b has no watermark: nothing may go (held by %q)", m.st.HeldBy)
	}
	b.q = []*kgo.Record{rec("wm", 999, 0)}
	if m.releasable() != nil || b.Watermark != 999 || b.Offset != 1 {
		t.Fatalf("b's watermark 999 < 1000: nothing may go (wm %d, offset %d)", b.Watermark, b.Offset)
	}
	b.q = []*kgo.Record{rec("wm", 1000, 1)}
	if got := m.releasable(); got != a || m.st.HeldBy != "" {
		t.Fatalf("b's watermark reached 1000: a goes, got %v", got)
	}

	// A tie goes to the earlier shard; b's later transaction waits for a.
	a.q = []*kgo.Record{rec("row", 2000, 2)}
	b.q = []*kgo.Record{rec("row", 2000, 2)}
	if got := m.releasable(); got != a {
		t.Fatalf("tie: want a first, got %v", got)
	}
	a.q = nil
	a.Watermark = 1500
	if m.releasable() != nil || m.st.HeldBy != "a" {
		t.Fatalf("a's watermark 1500 < 2000: b waits (held by %q)", m.st.HeldBy)
	}

	// A binlog time before the shard's watermark or last merge is raised.
	b.q = []*kgo.Record{rec("row", 500, 3)}
	b.Watermark, b.Last = 1200, 1100
	if got := m.mergeTime(b); got != 1200 {
		t.Errorf("merge time %d, want the watermark 1200", got)
	}
	m.st.Released = 1300
	if got := m.mergeTime(b); got != 1300 {
		t.Errorf("merge time %d, want what was released, 1300", got)
	}
}
