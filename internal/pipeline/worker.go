package pipeline

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/sluice-db/sluice/internal/model"
)

// worker applies the transactions queued to it, in queue order, on its own
// target session. While a backlog is queued it folds consecutive source
// transactions into one target transaction (a group).
type worker struct {
	id    int
	a     *Applier
	queue chan *item
	// load is the number of queued or in-flight changes (plus one per
	// transaction), for the dispatcher's least-loaded choice.
	load  atomic.Int64
	sess  Session
	gen   uint64
	carry *item // received but left for the next group (group full)
}

func newWorker(id int, a *Applier) *worker {
	return &worker{id: id, a: a, queue: make(chan *item, a.cfg.QueueTxns)}
}

func (w *worker) run(ctx context.Context) error {
	sess, err := w.a.sink.Session(ctx)
	if err != nil {
		return err
	}
	w.sess = sess
	defer sess.Close()
	for {
		group, ok := w.collect(ctx)
		if !ok {
			return ctx.Err()
		}
		if len(group) == 0 {
			return nil // queue closed and drained
		}
		if err := w.applyGroup(ctx, group); err != nil {
			return err
		}
		w.finish(group)
	}
}

// collect returns the next group: the first queued transaction plus those
// already waiting behind it, within the group bounds (the sink's
// GroupLimiter may lower them). It never waits for
// more to arrive, so grouping adds no latency.
func (w *worker) collect(ctx context.Context) ([]*item, bool) {
	first := w.carry
	w.carry = nil
	if first == nil {
		select {
		case <-ctx.Done():
			return nil, false
		case it, ok := <-w.queue:
			if !ok {
				return nil, true
			}
			first = it
		}
	}
	group := []*item{first}
	maxRows, maxBytes := w.a.cfg.GroupRows, w.a.cfg.GroupBytes
	if w.a.limiter != nil {
		r, b := w.a.limiter.GroupLimit(first.txn)
		maxRows, maxBytes = max(1, min(maxRows, r)), max(1, min(maxBytes, b))
	}
	rows, bytes := len(first.txn.Changes), first.txn.Bytes
	for rows < maxRows && bytes < maxBytes {
		select {
		case it, ok := <-w.queue:
			if !ok {
				return group, true
			}
			if rows+len(it.txn.Changes) > maxRows || bytes+it.txn.Bytes > maxBytes {
				w.carry = it
				return group, true
			}
			group = append(group, it)
			rows += len(it.txn.Changes)
			bytes += it.txn.Bytes
		default:
			return group, true
		}
	}
	return group, true
}

// finish releases the group's keys and marks its transactions committed.
// Keys first: the tracker's signal wakes a dispatcher waiting on them.
func (w *worker) finish(group []*item) {
	entries := make([]*entry, len(group))
	var load int64
	for i, it := range group {
		w.a.caus.release(it.keys)
		entries[i] = it.e
		load += int64(len(it.txn.Changes)) + 1
		w.a.stats.txns.Add(1)
		w.a.stats.changes.Add(int64(len(it.txn.Changes)))
		w.a.stats.bytes.Add(it.txn.Bytes)
	}
	w.a.stats.groups.Add(1)
	w.load.Add(-load)
	w.a.tr.complete(entries...)
}

// refresh resets the session after a schema change.
func (w *worker) refresh(ctx context.Context) error {
	gen := w.a.gen.Load()
	if gen == w.gen {
		return nil
	}
	if err := w.sess.Reset(ctx); err != nil {
		return fmt.Errorf("apply: worker %d: %w", w.id, err)
	}
	w.gen = gen
	return nil
}

// groupChanges flattens a group's transactions into row changes with their keys.
func groupChanges(group []*item) []Change {
	n := 0
	for _, it := range group {
		n += len(it.txn.Changes)
	}
	cs := make([]Change, 0, n)
	for _, it := range group {
		for i := range it.txn.Changes {
			c := Change{RowChange: it.txn.Changes[i], Txn: it.txn}
			if it.off != nil {
				c.keys = it.flat[it.off[i]:it.off[i+1]:it.off[i+1]]
				c.Ident, c.HasIdent = it.ident[i], it.hasIdent[i]
			}
			if it.casOff != nil {
				c.cascade = it.cas[it.casOff[i]:it.casOff[i+1]:it.casOff[i+1]]
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// applyGroup compacts and coalesces a group's changes and has the sink
// commit them as one target transaction with the group's applied record.
func (w *worker) applyGroup(ctx context.Context, group []*item) error {
	if err := w.refresh(ctx); err != nil {
		return err
	}
	cs := groupChanges(group)
	if !w.a.cfg.NoCompact {
		before := len(cs)
		cs = compact(cs, w.a.foldReinsert)
		w.a.stats.compacted.Add(int64(before - len(cs)))
		cs = coalesce(cs)
	}
	g := &Group{Txns: make([]*model.Txn, len(group)), Changes: cs,
		One: func(i int) []Change { return groupChanges(group[i : i+1]) }}
	for i, it := range group {
		g.Txns[i] = it.txn
	}
	if w.a.cfg.Workers == 1 {
		last := group[len(group)-1]
		g.Checkpoint = &State{Position: last.txn.End, SchemaVersion: last.e.schemaVersion, SourceTime: last.txn.Timestamp}
	}
	retried, err := w.sess.ApplyGroup(ctx, g, w.a.runStart)
	if err != nil {
		return err
	}
	if retried {
		w.a.stats.retried.Add(1)
	}
	w.a.noteApplied(group[len(group)-1].txn.End)
	return nil
}
