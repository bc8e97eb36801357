package pipeline

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// dispatcher state lives in the dispatch goroutine only.
type dispatcher struct {
	a       *Applier
	hasher  *keyHasher
	tables  map[*schema.Table]*tableKeys
	lastSeq uint64
	start   model.Position // checkpoint the run started from
	version int64          // schema version in force
	next    int            // round-robin start for idle-worker choice
	// cascades are the target's foreign key actions (cascade.go), read at
	// start and after every schema change.
	cascades *Cascades
}

// dispatch reads the stream and hands each transaction to a worker, or
// applies it itself behind a barrier (DDL, large transactions).
func (a *Applier) dispatch(ctx context.Context, in <-chan *model.Txn) error {
	wm := a.tr.watermark()
	d := &dispatcher{a: a, hasher: newKeyHasher(a.seed), tables: map[*schema.Table]*tableKeys{},
		start: wm.pos, version: wm.schemaVersion}
	var err error
	if d.cascades, err = a.sink.Cascades(ctx); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case t, ok := <-in:
			if !ok {
				return d.barrier(ctx)
			}
			if err := d.handle(ctx, t, in); err != nil {
				if errors.Is(err, errStreamEnded) {
					return d.barrier(ctx) // shutdown; the partial transaction was rolled back
				}
				return err
			}
		}
	}
}

func (d *dispatcher) handle(ctx context.Context, t *model.Txn, in <-chan *model.Txn) error {
	if t.Seq <= d.lastSeq && d.lastSeq != 0 {
		return fmt.Errorf("apply: transaction seq %d after seq %d: the stream must deliver transactions in order", t.Seq, d.lastSeq)
	}
	d.lastSeq = t.Seq
	if err := d.a.transform(t); err != nil {
		return err
	}
	heartbeat := len(t.Changes) == 0 && t.DDL == nil && !t.Partial
	switch {
	case !heartbeat && !t.Partial && d.covered(t.End):
		// Covered by the checkpoint, so committed: a stream started before
		// the checkpoint (e.g. from a position read before Open) re-reads it.
		d.a.stats.skipped.Add(1)
		d.a.tr.add(d.coveredEntry(t))
		return nil
	case t.Partial:
		return d.applyLarge(ctx, t, in)
	case t.DDL != nil:
		return d.applyDDL(ctx, t)
	case heartbeat:
		d.a.tr.add(d.entry(t, true))
		return nil
	case d.a.alreadyApplied(t.End):
		d.a.stats.skipped.Add(1)
		d.a.tr.add(d.entry(t, true))
		return nil
	}
	it, err := d.newItem(t)
	if err != nil {
		return err
	}
	return d.send(ctx, it)
}

func (d *dispatcher) entry(t *model.Txn, done bool) *entry {
	return &entry{seq: t.Seq, end: t.End, ts: t.Timestamp, bytes: t.Bytes, rows: len(t.Changes),
		schemaVersion: d.version, done: done}
}

// coveredEntry is a done entry for a transaction at or below the
// checkpoint: it must not move the watermark back.
func (d *dispatcher) coveredEntry(t *model.Txn) *entry {
	e := d.entry(t, true)
	e.end, e.ts = nil, time.Time{}
	return e
}

// covered reports whether a transaction ending at end is at or below the
// checkpoint the run started from.
func (d *dispatcher) covered(end model.Position) bool {
	return d.start != nil && end != nil && end.Compare(d.start) <= 0
}

// newItem computes the conflict keys of a transaction.
func (d *dispatcher) newItem(t *model.Txn) (*item, error) {
	it := &item{txn: t, off: make([]int32, len(t.Changes)+1),
		ident: make([]uint64, len(t.Changes)), hasIdent: make([]bool, len(t.Changes))}
	var held []uint64 // cascade keys: held, but not a change's own keys (compaction)
	for i := range t.Changes {
		rc := &t.Changes[i]
		if rc.Table == nil {
			return nil, fmt.Errorf("apply: source transaction ending at %s: change %d has no table", t.End, i)
		}
		tk, ok := d.tables[rc.Table]
		if !ok {
			tk = newTableKeys(rc.Table)
			tk.target = d.a.sink.TargetName(rc.Table.TableID)
			d.tables[rc.Table] = tk
		}
		it.flat = d.hasher.changeKeys(it.flat, tk, rc)
		h0, c0 := len(held), len(it.check)
		held, it.check = d.cascadeKeys(tk, rc, held, it.check)
		if len(held) > h0 || len(it.check) > c0 || it.casOff != nil {
			if it.casOff == nil {
				it.casOff = make([]int32, len(t.Changes)+1)
			}
			it.cas = append(append(it.cas, held[h0:]...), it.check[c0:]...)
			it.casOff[i+1] = int32(len(it.cas))
		}
		it.off[i+1] = int32(len(it.flat))
		it.ident[i], it.hasIdent[i] = d.hasher.identityKey(tk, rowIdentityImage(rc))
	}
	it.keys = dedupe(append(append([]uint64(nil), it.flat...), held...))
	it.check = dedupe(it.check)
	return it, nil
}

// send waits until the transaction may run (memory budget, conflicts), then
// queues it on the worker that owns its keys, or the least loaded one.
func (d *dispatcher) send(ctx context.Context, it *item) error {
	a := d.a
	for {
		n, b := a.tr.pending()
		if n == 0 || b+it.txn.Bytes <= a.cfg.MaxInflightBytes {
			break
		}
		if err := d.wait(ctx); err != nil {
			return err
		}
	}
	w, conflict := a.caus.placeChecked(it.keys, it.check)
	if conflict {
		a.stats.conflicts.Add(1)
		for conflict {
			if err := d.wait(ctx); err != nil {
				return err
			}
			w, conflict = a.caus.placeChecked(it.keys, it.check)
		}
	}
	if w < 0 {
		w = d.leastLoaded()
	}
	a.caus.acquire(it.keys, w)
	it.e = a.tr.add(d.entry(it.txn, false))
	wk := a.workers[w]
	wk.load.Add(int64(len(it.txn.Changes)) + 1)
	select {
	case wk.queue <- it:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// leastLoaded picks the worker with the fewest queued changes, starting the
// scan after the last pick so ties rotate.
func (d *dispatcher) leastLoaded() int {
	ws := d.a.workers
	best, bestLoad := -1, int64(0)
	for k := 0; k < len(ws); k++ {
		i := (d.next + k) % len(ws)
		l := ws[i].load.Load()
		if best < 0 || l < bestLoad {
			best, bestLoad = i, l
		}
		if l == 0 {
			break
		}
	}
	d.next = (best + 1) % len(ws)
	return best
}

// wait blocks until some transaction commits.
func (d *dispatcher) wait(ctx context.Context) error {
	select {
	case <-d.a.tr.changed:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// barrier waits until every dispatched transaction is committed.
func (d *dispatcher) barrier(ctx context.Context) error {
	for !d.a.tr.idle() {
		if err := d.wait(ctx); err != nil {
			return err
		}
	}
	return nil
}

// rowIdentityImage is the image that names the row a change is about: the
// before image of an update or delete, the after image of an insert.
func rowIdentityImage(rc *model.RowChange) []any {
	if rc.Op == model.Insert {
		return rc.After
	}
	return rc.Before
}

// transform applies Config.Rows to a transaction (or fragment) as it
// enters the pipeline. A transaction it empties is applied as a heartbeat
// (its position still advances the checkpoint).
func (a *Applier) transform(t *model.Txn) error {
	if a.cfg.Rows == nil || len(t.Changes) == 0 {
		return nil
	}
	cs, err := a.cfg.Rows.Changes(t.Changes)
	if err != nil {
		return fmt.Errorf("apply: source transaction ending at %s: %w", model.PositionString(t.End), err)
	}
	t.Changes = cs
	return nil
}
