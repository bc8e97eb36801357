package pipeline

import (
	"math/rand/v2"
	"testing"

	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
)

func TestCausalityPlacement(t *testing.T) {
	c := newCausality()
	if w, conflict := c.place([]uint64{1, 2}); w != -1 || conflict {
		t.Fatalf("free keys: got worker %d conflict %v", w, conflict)
	}
	c.acquire([]uint64{1, 2}, 0)
	c.acquire([]uint64{3}, 1)
	if w, conflict := c.place([]uint64{2, 9}); w != 0 || conflict {
		t.Fatalf("key owned by worker 0: got %d %v", w, conflict)
	}
	if _, conflict := c.place([]uint64{1, 3}); !conflict {
		t.Fatal("keys of workers 0 and 1: want conflict")
	}
	// A second transaction on worker 0 holding key 1 keeps it owned after
	// the first releases.
	c.acquire([]uint64{1}, 0)
	c.release([]uint64{1, 2})
	if w, _ := c.place([]uint64{1}); w != 0 {
		t.Fatalf("key 1 still held by a second txn: got worker %d", w)
	}
	c.release([]uint64{1})
	if _, conflict := c.place([]uint64{1, 3}); conflict {
		t.Fatal("after worker 0 released everything the conflict must be gone")
	}
	c.release([]uint64{3})
	if c.size() != 0 {
		t.Fatalf("all released: %d keys left", c.size())
	}
}

// simTxn is a transaction in the scheduling simulation.
type simTxn struct {
	seq  int
	keys []uint64
}

// TestCausalityKeepsConflictOrder simulates the dispatcher and workers that
// commit in random order, and checks the invariant the scheduler exists for:
// of two transactions sharing a key, the later one commits after the earlier.
func TestCausalityKeepsConflictOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const workers, txns, keySpace = 4, 5000, 60
	c := newCausality()
	queues := make([][]simTxn, workers)
	committedAt := map[int]int{} // seq → commit step
	var stream []simTxn
	for i := 0; i < txns; i++ {
		n := 1 + rng.IntN(3)
		keys := make([]uint64, n)
		for j := range keys {
			keys[j] = uint64(rng.IntN(keySpace))
		}
		stream = append(stream, simTxn{seq: i, keys: dedupe(keys)})
	}
	step := 0
	commitOne := func() bool {
		var busy []int
		for w, q := range queues {
			if len(q) > 0 {
				busy = append(busy, w)
			}
		}
		if len(busy) == 0 {
			return false
		}
		w := busy[rng.IntN(len(busy))]
		tx := queues[w][0]
		queues[w] = queues[w][1:]
		c.release(tx.keys)
		step++
		committedAt[tx.seq] = step
		return true
	}
	next := 0
	for _, tx := range stream {
		// Random interleaving of commits with dispatching.
		for rng.IntN(3) == 0 && commitOne() {
		}
		w, conflict := c.place(tx.keys)
		for conflict {
			if !commitOne() {
				t.Fatal("conflict with nothing in flight")
			}
			w, conflict = c.place(tx.keys)
		}
		if w < 0 {
			w = next % workers
			next++
		}
		c.acquire(tx.keys, w)
		queues[w] = append(queues[w], tx)
	}
	for commitOne() {
	}
	if c.size() != 0 {
		t.Fatalf("%d keys left after all commits", c.size())
	}
	last := map[uint64]int{} // key → seq of last txn with it
	for _, tx := range stream {
		for _, k := range tx.keys {
			if prev, ok := last[k]; ok && committedAt[prev] > committedAt[tx.seq] {
				t.Fatalf("txn %d committed before txn %d although both hold key %d", tx.seq, prev, k)
			}
			last[k] = tx.seq
		}
	}
}

func TestTrackerWatermarkOverOutOfOrderCommits(t *testing.T) {
	tr := newTracker(mark{pos: binlogpos.Position{File: "b.000001", Pos: 4}, schemaVersion: 1})
	pos := func(p uint32) binlogpos.Position { return binlogpos.Position{File: "b.000001", Pos: p} }
	e1 := tr.add(&entry{seq: 1, end: pos(100), bytes: 10, schemaVersion: 1})
	e2 := tr.add(&entry{seq: 2, end: pos(200), bytes: 20, schemaVersion: 1})
	tr.add(&entry{seq: 3, end: pos(300), done: true, schemaVersion: 1}) // heartbeat
	e4 := tr.add(&entry{seq: 4, end: pos(400), bytes: 40, schemaVersion: 2})
	if n, b := tr.pending(); n != 3 || b != 70 {
		t.Fatalf("pending: %d txns %d bytes, want 3 and 70", n, b)
	}
	tr.complete(e2, e4)
	if wm := tr.watermark(); wm.pos.(binlogpos.Position).Pos != 4 {
		t.Fatalf("txn 1 not committed: watermark must stay at the start, got %v", wm.pos)
	}
	tr.complete(e1)
	wm := tr.watermark()
	if wm.pos.(binlogpos.Position).Pos != 400 || wm.seq != 4 || wm.schemaVersion != 2 {
		t.Fatalf("all committed: watermark %+v, want pos 400 seq 4 version 2", wm)
	}
	if !tr.idle() {
		t.Fatal("tracker must be idle")
	}
	// A repeated older position (a heartbeat of a stream started before
	// the checkpoint) does not move the watermark back.
	tr.add(&entry{seq: 5, end: pos(250), done: true, schemaVersion: 2})
	if wm := tr.watermark(); wm.pos.(binlogpos.Position).Pos != 400 || wm.seq != 5 {
		t.Fatalf("watermark moved back to %v", wm.pos)
	}
	select {
	case <-tr.changed:
	default:
		t.Fatal("completion must signal")
	}
}
