package apply

import (
	"context"
	"errors"
	"fmt"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
)

// largeFlushRows bounds the rows of one pipelined batch inside a large
// transaction, so the encoded batch stays small whatever the fragment size.
const largeFlushRows = 2000

// applyLarge applies a transaction that arrives in fragments (larger than
// the source's memory bound). After a barrier it streams the fragments into
// one PostgreSQL transaction as they arrive, so memory holds one fragment at
// a time and the commit stays atomic. Being alone in flight, it saves the
// checkpoint at its end position in that same transaction.
func (d *dispatcher) applyLarge(ctx context.Context, first *model.Txn, in <-chan *model.Txn) error {
	a := d.a
	if err := d.barrier(ctx); err != nil {
		return err
	}
	conn, err := a.acquire(ctx)
	if err != nil {
		return err
	}
	defer a.release(conn)
	plans := newPlanCache(a.naming, a.cfg.Mapper, a.cfg.Writable)
	wr := newWriter(conn.Conn(), plans, a.cfg.CopyRows, largeFlushRows)
	wr.queue(stmt{sql: "BEGIN", expect: -1})
	seq := first.Seq
	frag, rows := first, 0
	first = nil // hold one fragment at a time
	for {
		cs := make([]change, len(frag.Changes))
		for i := range frag.Changes {
			cs[i] = change{rc: frag.Changes[i]}
		}
		if err := wr.write(ctx, cs); err != nil {
			a.rollback(conn)
			return largeError(err, plans, frag)
		}
		rows += len(frag.Changes)
		if !frag.Partial {
			break
		}
		frag, cs = nil, nil // let the fragment go before the next one arrives
		frag, err = nextFragment(ctx, in, seq)
		if err != nil {
			a.rollback(conn)
			return err
		}
	}
	end := frag
	if d.covered(end.End) {
		a.rollback(conn)
		a.tr.add(d.coveredEntry(end))
		return nil
	}
	if a.alreadyApplied(end.End) {
		a.rollback(conn)
		a.tr.add(d.entry(end, true))
		return nil
	}
	a.ckMu.Lock()
	defer a.ckMu.Unlock()
	err = func() error {
		if err := wr.flush(ctx); err != nil {
			return err
		}
		if err := checkpoint.Save(ctx, conn, a.cfg.Stream, checkpoint.State{
			Position: end.End, SchemaVersion: d.version, SourceTime: end.Timestamp}); err != nil {
			return err
		}
		if err := checkpoint.DeleteApplied(ctx, conn, a.cfg.Stream); err != nil {
			return err
		}
		_, err := conn.Exec(ctx, "COMMIT")
		return err
	}()
	if err != nil {
		a.rollback(conn)
		return largeError(err, plans, end)
	}
	a.takeCovered(end.End)
	e := d.entry(end, true)
	e.rows = rows
	a.tr.add(e)
	a.saved = a.tr.watermark()
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

func largeError(err error, plans *planCache, t *model.Txn) error {
	err = describe(err, plans)
	var e *Error
	if errors.As(err, &e) && e.Position == nil {
		e.Position, e.GTID = t.End, t.GTID
	}
	return err
}
