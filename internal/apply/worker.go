package apply

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
)

// worker applies the transactions queued to it, in queue order, on its own
// PostgreSQL session. While a backlog is queued it folds consecutive source
// transactions into one target transaction (a group).
type worker struct {
	id    int
	a     *Applier
	queue chan *item
	// load is the number of queued or in-flight changes (plus one per
	// transaction), for the dispatcher's least-loaded choice.
	load  atomic.Int64
	conn  *pgxpool.Conn
	plans *planCache
	gen   uint64
	carry *item // received but left for the next group (group full)
}

func newWorker(id int, a *Applier) *worker {
	return &worker{id: id, a: a, queue: make(chan *item, a.cfg.QueueTxns),
		plans: newPlanCache(a.naming, a.cfg.Mapper, a.cfg.Writable)}
}

func (w *worker) run(ctx context.Context) error {
	conn, err := w.a.acquire(ctx)
	if err != nil {
		return err
	}
	w.conn = conn
	defer w.a.release(conn)
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
// already waiting behind it, within the group bounds. It never waits for
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
	rows, bytes := len(first.txn.Changes), first.txn.Bytes
	for rows < w.a.cfg.GroupRows && bytes < w.a.cfg.GroupBytes {
		select {
		case it, ok := <-w.queue:
			if !ok {
				return group, true
			}
			if rows+len(it.txn.Changes) > w.a.cfg.GroupRows || bytes+it.txn.Bytes > w.a.cfg.GroupBytes {
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

// refresh drops plans and prepared statements after a schema change.
func (w *worker) refresh(ctx context.Context) error {
	gen := w.a.gen.Load()
	if gen == w.gen {
		return nil
	}
	w.plans.reset()
	if err := w.conn.Conn().DeallocateAll(ctx); err != nil {
		return fmt.Errorf("apply: worker %d: drop prepared statements after a schema change: %w", w.id, err)
	}
	w.gen = gen
	return nil
}

// changes flattens a group's transactions into row changes with their keys.
func groupChanges(group []*item) []change {
	n := 0
	for _, it := range group {
		n += len(it.txn.Changes)
	}
	cs := make([]change, 0, n)
	for _, it := range group {
		for i := range it.txn.Changes {
			c := change{rc: it.txn.Changes[i], src: it}
			if it.off != nil {
				c.keys = it.flat[it.off[i]:it.off[i+1]:it.off[i+1]]
				c.ident, c.hasIdent = it.ident[i], it.hasIdent[i]
			}
			if it.casOff != nil {
				c.cascade = it.cas[it.casOff[i]:it.casOff[i+1]:it.casOff[i+1]]
			}
			cs = append(cs, c)
		}
	}
	return cs
}

// applyGroup writes a group as one target transaction together with its
// sluice.applied record. If PostgreSQL refuses it, the group is re-applied
// one source transaction and one statement at a time, which either pinpoints
// the failing change or (if the failure came from grouping) applies it.
func (w *worker) applyGroup(ctx context.Context, group []*item) error {
	if err := w.refresh(ctx); err != nil {
		return err
	}
	cs := groupChanges(group)
	if !w.a.cfg.NoCompact {
		before := len(cs)
		cs = compact(cs)
		w.a.stats.compacted.Add(int64(before - len(cs)))
		cs = coalesce(cs)
	}
	wr := newWriter(w.conn.Conn(), w.plans, w.a.cfg.CopyRows, 0)
	err := w.a.writeTxn(ctx, wr, cs, group)
	if err == nil {
		return nil
	}
	w.a.rollback(w.conn)
	if !isDataError(err) || ctx.Err() != nil {
		return describe(err, w.plans)
	}
	if len(group) == 1 && len(cs) <= 1 {
		return describe(err, w.plans)
	}
	w.a.cfg.Log.Debug("apply: group failed, re-applying one transaction at a time", "worker", w.id,
		"txns", len(group), "error", err)
	for _, it := range group {
		one := []*item{it}
		wr := newWriter(w.conn.Conn(), w.plans, 0, 0)
		wr.single = true
		if err := w.a.writeTxn(ctx, wr, groupChanges(one), one); err != nil {
			w.a.rollback(w.conn)
			return describe(err, w.plans)
		}
	}
	w.a.stats.retried.Add(1)
	w.a.cfg.Log.Warn("apply: a grouped target transaction failed but its source transactions applied one by one",
		"worker", w.id, "txns", len(group), "error", describe(err, w.plans))
	return nil
}

// writeTxn writes changes of the given source transactions as one target
// transaction: BEGIN, the changes, the sluice.applied record, COMMIT, in as
// few round trips as the batching allows.
func (a *Applier) writeTxn(ctx context.Context, wr *writer, cs []change, group []*item) error {
	wr.queue(stmt{sql: "BEGIN", expect: -1})
	if err := wr.write(ctx, cs); err != nil {
		return err
	}
	last := group[len(group)-1].txn.End
	ends := make([]string, len(group))
	for i, it := range group {
		ends[i] = it.txn.End.Key()
	}
	var start string
	if a.runStart != nil {
		start = a.runStart.Key()
	}
	wr.queue(stmt{sql: checkpoint.InsertAppliedSQL, expect: 1}, a.cfg.Stream, last.Key(), ends, start)
	wr.queue(stmt{sql: "COMMIT", expect: -1, tag: "COMMIT"})
	if err := wr.flush(ctx); err != nil {
		return err
	}
	a.noteApplied(last)
	return nil
}
