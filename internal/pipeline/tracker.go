package pipeline

import (
	"sync"
	"time"

	"github.com/sluice-db/sluice/internal/model"
)

// entry is one source transaction between dispatch and commit.
type entry struct {
	seq   uint64
	end   model.Position
	ts    time.Time
	bytes int64
	rows  int
	// schemaVersion is the schema-history version in force after this
	// transaction, saved with the checkpoint that covers it.
	schemaVersion int64
	done          bool
}

// mark is the low watermark: everything up to and including this source
// transaction is committed in the target.
type mark struct {
	seq           uint64
	pos           model.Position
	ts            time.Time
	schemaVersion int64
}

// tracker keeps dispatched transactions in stream order and advances the low
// watermark over the committed prefix. Workers commit out of order; the
// watermark only moves past a transaction once all earlier ones are done.
type tracker struct {
	mu       sync.Mutex
	queue    []*entry // dispatch order; queue[0] is the oldest not-yet-watermarked
	head     int      // queue[:head] are already folded into wm
	wm       mark
	inflight struct {
		txns  int
		bytes int64
	}
	// changed is signalled (without blocking) whenever an entry completes,
	// so a dispatcher waiting for a conflict or a barrier wakes up.
	changed chan struct{}
}

func newTracker(start mark) *tracker {
	return &tracker{wm: start, changed: make(chan struct{}, 1)}
}

// add registers a dispatched transaction and returns its entry.
func (t *tracker) add(e *entry) *entry {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.queue = append(t.queue, e)
	t.inflight.txns++
	t.inflight.bytes += e.bytes
	if e.done { // heartbeats and skipped transactions are done at once
		t.inflight.txns--
		t.inflight.bytes -= e.bytes
		t.advanceLocked()
	}
	return e
}

// complete marks entries committed and advances the watermark.
func (t *tracker) complete(es ...*entry) {
	t.mu.Lock()
	for _, e := range es {
		if e.done {
			continue
		}
		e.done = true
		t.inflight.txns--
		t.inflight.bytes -= e.bytes
	}
	t.advanceLocked()
	t.mu.Unlock()
	t.signal()
}

func (t *tracker) signal() {
	select {
	case t.changed <- struct{}{}:
	default:
	}
}

func (t *tracker) advanceLocked() {
	for t.head < len(t.queue) && t.queue[t.head].done {
		e := t.queue[t.head]
		t.wm.seq = e.seq
		// Never backwards: a stream started before the checkpoint repeats
		// positions (and heartbeats) the watermark has passed already.
		if e.end != nil && e.end.Compare(t.wm.pos) >= 0 {
			t.wm.pos = e.end
		}
		if e.ts.After(t.wm.ts) {
			t.wm.ts = e.ts
		}
		t.wm.schemaVersion = e.schemaVersion
		t.queue[t.head] = nil
		t.head++
	}
	// Compact the slice once the consumed prefix dominates it.
	if t.head > 1024 && t.head*2 > len(t.queue) {
		n := copy(t.queue, t.queue[t.head:])
		clear(t.queue[n:])
		t.queue = t.queue[:n]
		t.head = 0
	}
}

// oldestPending is the source time of the oldest dispatched transaction
// not yet committed (zero when none is).
func (t *tracker) oldestPending() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.head < len(t.queue) {
		return t.queue[t.head].ts
	}
	return time.Time{}
}

// watermark returns the current low watermark.
func (t *tracker) watermark() mark {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.wm
}

// pending returns the number of dispatched, uncommitted transactions and
// their decoded size.
func (t *tracker) pending() (txns int, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.inflight.txns, t.inflight.bytes
}

// idle reports whether every dispatched transaction is committed.
func (t *tracker) idle() bool {
	n, _ := t.pending()
	return n == 0
}
