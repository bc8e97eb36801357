package pipeline

import (
	"slices"
	"sync"
)

// causality tracks which worker owns each conflict key of the transactions
// that are dispatched but not yet committed.
//
// A transaction may go to a worker only if no other worker owns any of its
// keys: then every earlier transaction it conflicts with is either committed
// or queued before it on the same worker, whose queue is applied in order.
// When its keys are owned by two or more workers, the dispatcher waits until
// the commits of those workers release the keys (a targeted "flush": only the
// conflicting workers are waited for, the others keep running).
//
// Unlike TiDB DM's causality, which forgets all relations at every flush,
// keys are reference counted per transaction and released on commit, so the
// table stays as small as the in-flight window.
type causality struct {
	mu    sync.Mutex
	owner map[uint64]keyOwner
}

type keyOwner struct {
	worker int32
	refs   int32 // in-flight transactions holding the key
}

func newCausality() *causality {
	return &causality{owner: make(map[uint64]keyOwner)}
}

// place returns the single worker that owns some of keys (or -1 when none
// does), and conflict=true when keys are owned by more than one worker.
// keys must be deduplicated.
func (c *causality) place(keys []uint64) (worker int, conflict bool) {
	return c.placeChecked(keys, nil)
}

// placeChecked is place for a transaction that also follows the owners of
// check: keys it must be ordered after but does not hold (acquire is given
// only keys), so transactions that merely check a key never wait for each
// other.
func (c *causality) placeChecked(keys, check []uint64) (worker int, conflict bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	worker = -1
	for _, k := range slices.Concat(keys, check) {
		o, ok := c.owner[k]
		if !ok {
			continue
		}
		switch {
		case worker < 0:
			worker = int(o.worker)
		case int(o.worker) != worker:
			return worker, true
		}
	}
	return worker, false
}

// acquire records that worker now holds keys (deduplicated). The caller has
// checked with place that no other worker owns any of them.
func (c *causality) acquire(keys []uint64, worker int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		o := c.owner[k]
		o.worker = int32(worker)
		o.refs++
		c.owner[k] = o
	}
}

// release drops one reference per key, after the transaction that acquired
// them has committed.
func (c *causality) release(keys []uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, k := range keys {
		o, ok := c.owner[k]
		if !ok {
			continue
		}
		if o.refs <= 1 {
			delete(c.owner, k)
			continue
		}
		o.refs--
		c.owner[k] = o
	}
}

// size returns the number of owned keys (for metrics and tests).
func (c *causality) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.owner)
}
