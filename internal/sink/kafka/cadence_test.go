package kafka

import (
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

func TestCadenceBacklogTakesFullBounds(t *testing.T) {
	var c cadence
	now := time.Now()
	c.observe(groupRows, groupBytes/4, time.Time{}, time.Second) // over budget: live bound 1/5
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
	c.observe(100, 10000, time.Time{}, 20*time.Millisecond)
	if rows, _ := c.limit(live, now); rows != groupRows {
		t.Fatalf("after a small fast group: %d rows, want the full %d", rows, groupRows)
	}
	// A stall: a small group over budget shrinks the bound to its floor.
	c.observe(300, 30000, time.Time{}, 2400*time.Millisecond)
	floor := int(minFill * groupRows)
	if rows, _ := c.limit(live, now); rows != floor {
		t.Fatalf("after a stall: %d rows, want the floor %d", rows, floor)
	}
	// Full groups committed well within budget grow it back, at most 4x a time.
	want := []int{4 * floor, 16 * floor, groupRows}
	for i, w := range want {
		rows, _ := c.limit(live, now)
		c.observe(rows, int64(rows)*100, time.Time{}, 10*time.Millisecond)
		if got, _ := c.limit(live, now); got != w {
			t.Fatalf("step %d: %d rows, want %d", i, got, w)
		}
	}
	// A full group taking twice the budget halves it.
	c.observe(groupRows, 1000, time.Time{}, 2*liveBudget)
	if rows, _ := c.limit(live, now); rows != groupRows/2 {
		t.Fatalf("after a group over budget: %d rows, want %d", rows, groupRows/2)
	}
	// Bytes count too: a group of few large rows over budget bounds bytes.
	c.observe(10, groupBytes/2, time.Time{}, 2*liveBudget)
	if _, bytes := c.limit(live, now); bytes != groupBytes/4 {
		t.Fatalf("after a large-row group over budget: %d bytes, want %d", bytes, groupBytes/4)
	}
}

// A commit whose fixed cost is over budget (a busy machine) shrinks the
// budget's bound to its floor, but the bound still holds twice what the
// source wrote during the last commit: the shard keeps up.
func TestCadenceKeepsUpWithTheSource(t *testing.T) {
	var c cadence
	src := time.Now().Add(-time.Minute)
	live := func() (int, int64) { return c.limit(&model.Txn{Timestamp: time.Now()}, time.Now()) }
	// 3,600 rows (360 kB) a second of source time, each group 300 ms of it,
	// each commit taking 300 ms: far over the 200 ms budget.
	for range 10 {
		src = src.Add(300 * time.Millisecond)
		c.observe(1080, 108000, src, 300*time.Millisecond)
	}
	rows, bytes := live()
	if want := 2 * 1080; rows < want-50 || rows > want+50 {
		t.Fatalf("live bound at 3,600 rows/s and 300 ms commits = %d rows, want about %d (keep up twice over)", rows, want)
	}
	if want := int64(2 * 108000); bytes < want-5000 {
		t.Fatalf("live byte bound = %d, want at least about %d", bytes, want)
	}
	// The budget's own bound is the floor of the fraction (minFill): the
	// rate is what holds the bound up.
	if f := int(minFill * groupRows); rows <= f {
		t.Fatalf("live bound %d rows is not above the budget's floor %d", rows, f)
	}
	// Fast commits again: the rate floor shrinks with them, the budget's
	// bound grows back.
	for range 4 {
		src = src.Add(20 * time.Millisecond)
		r, _ := live()
		n := min(r, 72)
		c.observe(n, int64(n)*100, src, 10*time.Millisecond)
	}
	if rows, _ := live(); rows <= int(minFill*groupRows) {
		t.Fatalf("after fast commits: %d rows, want the budget's bound above its floor", rows)
	}
}

// MariaDB's commit times have whole seconds: groups within one second teach
// no rate until the time moves on.
func TestCadenceRateWholeSeconds(t *testing.T) {
	var c cadence
	sec := time.Now().Truncate(time.Second)
	c.observe(100, 1000, sec, 300*time.Millisecond) // starts the window
	for range 5 {
		c.observe(100, 1000, sec, 300*time.Millisecond)
	}
	if c.rate != 0 {
		t.Fatalf("rate learnt within one second of commit time: %v", c.rate)
	}
	c.observe(100, 1000, sec.Add(time.Second), 300*time.Millisecond)
	if c.rate != 600 {
		t.Fatalf("rate = %v rows/s, want 600", c.rate)
	}
	// A load starting: taken at once. Then falling: half way.
	c.observe(3600, 36000, sec.Add(2*time.Second), 300*time.Millisecond)
	if c.rate != 3600 {
		t.Fatalf("rate after a rise = %v rows/s, want 3600", c.rate)
	}
	c.observe(400, 4000, sec.Add(3*time.Second), 300*time.Millisecond)
	if c.rate != 2000 {
		t.Fatalf("rate after a fall = %v rows/s, want 2000", c.rate)
	}
}
