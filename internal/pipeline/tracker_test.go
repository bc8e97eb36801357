package pipeline

import (
	"testing"
	"time"
)

// TestOldestPending: the lag of a stream that has applied nothing yet is
// the age of its oldest pending transaction, not 0; it follows the
// watermark as transactions commit, out of order included.
func TestOldestPending(t *testing.T) {
	tr := newTracker(mark{})
	if got := tr.oldestPending(); !got.IsZero() {
		t.Fatalf("empty tracker: %v, want zero", got)
	}
	t0 := time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)
	var es []*entry
	for i := 0; i < 3; i++ {
		es = append(es, tr.add(&entry{seq: uint64(i + 1), ts: t0.Add(time.Duration(i) * time.Second)}))
	}
	if got := tr.oldestPending(); !got.Equal(t0) {
		t.Fatalf("three pending: %v, want %v", got, t0)
	}
	tr.complete(es[1]) // out of order: the oldest is still pending
	if got := tr.oldestPending(); !got.Equal(t0) {
		t.Fatalf("second done: %v, want %v", got, t0)
	}
	tr.complete(es[0])
	if got := tr.oldestPending(); !got.Equal(t0.Add(2 * time.Second)) {
		t.Fatalf("first two done: %v, want %v", got, t0.Add(2*time.Second))
	}
	tr.complete(es[2])
	if got := tr.oldestPending(); !got.IsZero() {
		t.Fatalf("all done: %v, want zero", got)
	}
}
