package pipeline

import (
	"context"
	"testing"

	"github.com/sluice-db/sluice/internal/model"
)

// limitSink is a Sink whose GroupLimiter bounds every group to rows.
type limitSink struct {
	Sink
	rows int
}

func (l limitSink) GroupLimit(*model.Txn) (int, int64) { return l.rows, 1 << 40 }

func TestCollectHonoursGroupLimiter(t *testing.T) {
	a, err := New(Config{Workers: 1, GroupRows: 100}, limitSink{rows: 3})
	if err != nil {
		t.Fatal(err)
	}
	w := newWorker(0, a)
	for range 5 {
		w.queue <- &item{txn: &model.Txn{Changes: make([]model.RowChange, 1)}}
	}
	for i, want := range []int{3, 2} {
		g, ok := w.collect(context.Background())
		if !ok || len(g) != want {
			t.Fatalf("group %d: %d transactions (ok %v), want %d", i, len(g), ok, want)
		}
	}
}
