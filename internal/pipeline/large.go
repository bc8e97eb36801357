package pipeline

import (
	"context"
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/model"
)

// applyLarge applies a transaction that arrives in fragments (larger than
// the source's memory bound). After a barrier it streams the fragments into
// one target transaction as they arrive, so memory holds one fragment at a
// time and the commit stays atomic. Being alone in flight, it saves the
// checkpoint at its end position in that same transaction.
func (d *dispatcher) applyLarge(ctx context.Context, first *model.Txn, in <-chan *model.Txn) error {
	a := d.a
	if err := d.barrier(ctx); err != nil {
		return err
	}
	sess, err := a.sink.Session(ctx)
	if err != nil {
		return err
	}
	defer sess.Close()
	lt, err := sess.BeginLarge(ctx)
	if err != nil {
		return err
	}
	seq := first.Seq
	frag, rows := first, 0
	first = nil // hold one fragment at a time
	for {
		cs := make([]Change, len(frag.Changes))
		for i := range frag.Changes {
			cs[i] = Change{RowChange: frag.Changes[i], Txn: frag}
		}
		if err := lt.Write(ctx, cs); err != nil {
			lt.Rollback()
			return largeError(err, frag)
		}
		rows += len(frag.Changes)
		if !frag.Partial {
			break
		}
		frag, cs = nil, nil // let the fragment go before the next one arrives
		frag, err = nextFragment(ctx, in, seq)
		if err == nil {
			err = a.transform(frag)
		}
		if err != nil {
			lt.Rollback()
			return err
		}
	}
	end := frag
	if d.covered(end.End) {
		lt.Rollback()
		a.tr.add(d.coveredEntry(end))
		return nil
	}
	if a.alreadyApplied(end.End) {
		lt.Rollback()
		a.tr.add(d.entry(end, true))
		return nil
	}
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	if err := lt.Commit(ctx, State{Position: end.End, SchemaVersion: d.version, SourceTime: end.Timestamp}); err != nil {
		lt.Rollback()
		return largeError(err, end)
	}
	a.takeCovered(end.End)
	e := d.entry(end, true)
	e.rows = rows
	a.tr.add(e)
	a.setSaved(a.tr.watermark())
	a.stats.large.Add(1)
	a.stats.txns.Add(1)
	a.stats.changes.Add(int64(rows))
	a.cfg.Log.Info("apply: large transaction applied", "position", end.End.String(), "rows", rows)
	return nil
}

// nextFragment receives the next fragment of the large transaction seq.
func nextFragment(ctx context.Context, in <-chan *model.Txn, seq uint64) (*model.Txn, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case t, ok := <-in:
		if !ok {
			// The stream stopped mid-transaction (shutdown): nothing of it
			// is committed, the next start reads it again.
			return nil, errStreamEnded
		}
		if t.Seq != seq {
			return nil, fmt.Errorf("apply: large transaction seq %d: next fragment has seq %d", seq, t.Seq)
		}
		return t, nil
	}
}

// errStreamEnded is the input closing inside a large transaction.
var errStreamEnded = errors.New("apply: stream ended inside a large transaction")

// largeError names the source transaction in an error of a fragment that
// carried no end position yet.
func largeError(err error, t *model.Txn) error {
	var e *Error
	if errors.As(err, &e) && e.Position == nil {
		e.Position, e.GTID = t.End, t.GTID
	}
	return err
}
