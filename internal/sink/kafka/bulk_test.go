package kafka

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target"
)

// A snapshot's chunks move its copy progress in key order, one table key
// per table (what a resumed pass's catch-up splits the binlog at); a chunk
// that does not continue its table's copied range is refused rather than
// leaving a gap the catch-up would treat as copied.
func TestSnapshotChunksMoveTheCopyProgress(t *testing.T) {
	id := schema.TableID{Database: "db", Name: "t"}
	st := &stateRecord{Copy: &copyProgress{Tables: map[string]*copyTable{"db.t": {}, "db.u": {}}}}
	b := &bulk{store: &Store{state: st}}
	k := func(s string) consistent.Bound { return consistent.Bound{[]byte(s)} }
	if err := b.checkOrder(id, target.EventChunk{Lo: k("5"), Hi: k("9")}); err == nil || !strings.Contains(err.Error(), "key order") {
		t.Errorf("a first chunk from key 5: %v, want refused", err)
	}
	if err := b.checkOrder(id, target.EventChunk{Hi: k("5")}); err != nil {
		t.Errorf("the first chunk: %v", err)
	}
	finishChunk(st, id, k("5"))
	if got := st.Copy.Tables["db.t"]; got.Done || string(got.Last[0]) != "5" {
		t.Errorf("after the first chunk: %+v, want last key 5", got)
	}
	if err := b.checkOrder(id, target.EventChunk{Lo: k("5")}); err != nil {
		t.Errorf("the next chunk: %v", err)
	}
	finishChunk(st, id, nil)
	if got := st.Copy.Tables["db.t"]; !got.Done {
		t.Errorf("after the last chunk: %+v, want done", got)
	}
	if err := b.checkOrder(id, target.EventChunk{Lo: k("9")}); err == nil {
		t.Error("a chunk of a table copied whole: want refused")
	}
	if got := st.Copy.String(); got != "1 of 2 tables copied, 0 in part" {
		t.Errorf("status: %q", got)
	}
}

// The runner's records are records of the stream (its key up to the NUL,
// as status and drop read keys), a nil value a tombstone.
func TestBulkRecordsAreTheStreams(t *testing.T) {
	s := &Store{cfg: Config{Prefix: "p", Stream: "shop"}}
	recs := s.bulkRecords(target.BulkState{"run": []byte(`{}`), "chunk/db.t/1": nil})
	got := map[string]bool{}
	for _, r := range recs {
		if r.Topic != "p.sluice.offsets" {
			t.Errorf("topic %s", r.Topic)
		}
		stream, _, _ := strings.Cut(string(r.Key), "\x00")
		if stream != "shop" {
			t.Errorf("key %q is not stream shop's", r.Key)
		}
		got[string(r.Key)] = r.Value == nil
	}
	want := map[string]bool{"shop\x00bulk/run": false, "shop\x00bulk/chunk/db.t/1": true}
	if len(got) != len(want) || got["shop\x00bulk/run"] || !got["shop\x00bulk/chunk/db.t/1"] {
		t.Errorf("records (key: tombstone) %v, want %v", got, want)
	}
}
