package kafka

import (
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

func TestCadenceBacklogTakesFullBounds(t *testing.T) {
	var c cadence
	now := time.Now()
	c.observe(groupRows, groupBytes/4, time.Second) // over budget: live bound 1/5
	rows, bytes := c.limit(&model.Txn{Timestamp: now.Add(-backlogLag)}, now)
	if rows != groupRows || bytes != groupBytes {
		t.Fatalf("backlog limit = %d rows, %d bytes; want the full %d, %d", rows, bytes, groupRows, groupBytes)
	}
	rows, _ = c.limit(&model.Txn{Timestamp: now.Add(-time.Second)}, now)
	if want := groupRows / 5; rows != want {
		t.Fatalf("live limit after a full group took 1 s = %d rows, want %d", rows, want)
	}
	// No commit time (a fragment's or snapshot's transaction): full bounds.
	if rows, _ := c.limit(&model.Txn{}, now); rows != groupRows {
		t.Fatalf("limit without a commit time = %d rows, want %d", rows, groupRows)
	}
}

func TestCadenceLearnsTheLiveBound(t *testing.T) {
	var c cadence
	now := time.Now()
	live := &model.Txn{Timestamp: now}
	if rows, _ := c.limit(live, now); rows != groupRows {
		t.Fatalf("before any commit: %d rows, want the full %d", rows, groupRows)
	}
	// Small groups within budget teach nothing.
	c.observe(100, 10000, 20*time.Millisecond)
	if rows, _ := c.limit(live, now); rows != groupRows {
		t.Fatalf("after a small fast group: %d rows, want the full %d", rows, groupRows)
	}
	// A stall: a small group over budget shrinks the bound to its floor.
	c.observe(300, 30000, 2400*time.Millisecond)
	floor := int(minFill * groupRows)
	if rows, _ := c.limit(live, now); rows != floor {
		t.Fatalf("after a stall: %d rows, want the floor %d", rows, floor)
	}
	// Full groups committed well within budget grow it back, at most 4x a time.
	want := []int{4 * floor, 16 * floor, groupRows}
	for i, w := range want {
		rows, _ := c.limit(live, now)
		c.observe(rows, int64(rows)*100, 10*time.Millisecond)
		if got, _ := c.limit(live, now); got != w {
			t.Fatalf("step %d: %d rows, want %d", i, got, w)
		}
	}
	// A full group taking twice the budget halves it.
	c.observe(groupRows, 1000, 2*liveBudget)
	if rows, _ := c.limit(live, now); rows != groupRows/2 {
		t.Fatalf("after a group over budget: %d rows, want %d", rows, groupRows/2)
	}
	// Bytes count too: a group of few large rows over budget bounds bytes.
	c.observe(10, groupBytes/2, 2*liveBudget)
	if _, bytes := c.limit(live, now); bytes != groupBytes/4 {
		t.Fatalf("after a large-row group over budget: %d bytes, want %d", bytes, groupBytes/4)
	}
}
