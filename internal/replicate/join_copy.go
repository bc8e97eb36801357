package replicate

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/sluice-db/sluice/internal/addtable"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
	engines "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/window"
)

// tableCopy is one table being copied into the stream.
type tableCopy struct {
	t       *schema.Table
	rec     engines.AddRecord
	last    consistent.Bound // the last merged chunk's key bound
	conn    *sql.Conn        // the chunk session (autocommit, its own lock wait)
	chunker *addtable.Chunker
	gen     int             // the window's generation: a read of an ended one is dropped
	reading bool            // a read is in flight on conn
	chunk   *addtable.Chunk // the filled window's read, until it merges
	win     *window.Window  // the open window (nil between windows)
	stale   bool            // the definition changed during a read: reconnect after it
	retry   time.Time       // after a lock wait: the next window opens then
	// finishAt is where the last chunk merged: the copy is recorded done
	// once the stream's checkpoint reached it (settle).
	finishAt model.Position
}

// chunkRead is a window's read, back from its goroutine.
type chunkRead struct {
	id    schema.TableID
	gen   int
	chunk *addtable.Chunk
	err   error
}

// track starts copying t (a table that joined) from rec's LastKey: the
// upsert mode for its events and the window merge for its chunks.
func (j *joiner) track(ctx context.Context, t *schema.Table, rec engines.AddRecord) error {
	last, err := addtable.DecodeBound(rec.LastKey)
	if err != nil {
		return err
	}
	if err := j.copies.Add(t); err != nil {
		return err
	}
	tc := &tableCopy{t: t, rec: rec, last: last}
	if err := j.connect(ctx, tc); err != nil {
		return err
	}
	j.upsert.Add(t.TableID)
	j.tables[t.TableID] = tc
	return nil
}

// connect opens the table's chunk session and reader for its definition.
func (j *joiner) connect(ctx context.Context, tc *tableCopy) error {
	if tc.conn != nil {
		_ = tc.conn.Close()
	}
	conn, err := j.r.srcDB.Conn(ctx)
	if err != nil {
		return fmt.Errorf("source: a session for the copy of %s: %w", tc.t.TableID, err)
	}
	sel := make([]string, len(tc.t.Columns))
	for i, c := range tc.t.Columns {
		sel[i] = j.chunks.ChunkSelect(c)
	}
	ch, err := addtable.NewChunker(ctx, j.r.src, j.r.info, conn, tc.t, sel, addChunkRows)
	if err != nil {
		_ = conn.Close()
		return err
	}
	tc.conn, tc.chunker = conn, ch
	return nil
}

func (j *joiner) close() {
	for _, tc := range j.tables {
		if tc.conn != nil && !tc.reading {
			_ = tc.conn.Close()
		}
	}
}

// apply is the run's apply with the copies merged into it: the stream's
// transactions go through hand to the applier, which commits them as before.
func (j *joiner) apply(ctx context.Context, in <-chan *model.Txn) error {
	mid := make(chan *model.Txn, 4)
	done := make(chan struct{})
	var applyErr error
	go func() {
		applyErr = j.r.applier.Run(ctx, mid)
		close(done)
	}()
	err := j.hand(ctx, in, mid, done)
	close(mid)
	<-done
	j.close()
	if applyErr != nil || errors.Is(err, errApplyStopped) {
		return applyErr
	}
	return err
}

// errApplyStopped: apply returned while transactions were being handed on
// (its error, if any, is the run's).
var errApplyStopped = errors.New("apply stopped")

// hand passes the stream's transactions on in order, opens the windows,
// fills them with their reads and merges each chunk as a barrier once the
// transaction ending at or past its high watermark was handed on.
func (j *joiner) hand(ctx context.Context, in <-chan *model.Txn, mid chan<- *model.Txn, done <-chan struct{}) error {
	tick := time.NewTicker(250 * time.Millisecond) // lock-wait retries
	defer tick.Stop()
	for {
		j.openWindows(ctx)
		select {
		case t, ok := <-in:
			if !ok {
				return nil
			}
			if err := j.handle(ctx, t, mid, done); err != nil {
				return err
			}
		case rd := <-j.reads:
			if err := j.filled(ctx, rd); err != nil {
				return err
			}
		case <-tick.C:
		case <-done:
			return errApplyStopped
		}
		if err := j.mergeReady(ctx, done); err != nil {
			return err
		}
		if err := j.settle(ctx); err != nil {
			return err
		}
	}
}

// handle observes one transaction for the open windows and hands it on; a
// join's schema change puts its table in the upsert mode first, and once
// the target created it, starts its copy.
func (j *joiner) handle(ctx context.Context, t *model.Txn, mid chan<- *model.Txn, done <-chan struct{}) error {
	if _, err := j.copies.Observe(t); err != nil {
		return err
	}
	var joinID schema.TableID
	isJoin := false
	if t.DDL != nil {
		joinID, isJoin = j.joinOf(t.DDL)
		if isJoin {
			j.upsert.Add(joinID)
		}
	}
	select {
	case mid <- t:
	case <-done:
		return errApplyStopped
	}
	j.inTxn = t.Partial
	if t.Partial {
		return nil
	}
	j.at = t.End
	if t.DDL == nil || !isJoin && !j.copying(t.DDL) {
		return nil // an ordinary stream never waits here
	}
	if err := j.barrier(ctx, done); err != nil {
		return err
	}
	if isJoin {
		return j.started(ctx, joinID, t)
	}
	return j.schemaChanged(ctx, t.DDL)
}

// copying says whether a schema change names a table being copied.
func (j *joiner) copying(d *model.DDL) bool {
	for _, t := range d.Tables {
		if j.tables[t.TableID] != nil {
			return true
		}
	}
	for _, id := range d.Dropped {
		if j.tables[id] != nil {
			return true
		}
	}
	return false
}

// started records the table's join at the schema change's end and starts
// its copy.
func (j *joiner) started(ctx context.Context, id schema.TableID, t *model.Txn) error {
	var tbl *schema.Table
	for _, x := range t.DDL.Tables {
		if x.TableID == id {
			tbl = x
		}
	}
	if tbl == nil {
		return fmt.Errorf("snapshot --add %s: the join's schema change lost the table", id)
	}
	rec := engines.AddRecord{Table: id, State: engines.AddCopying, Joined: t.End.Encode()}
	if err := j.adder.SaveAdd(ctx, j.r.o.Stream, rec); err != nil {
		return err
	}
	j.r.log.Info("table joined the stream; copying it in windows", "table", id.String(), "at", model.PositionString(t.End))
	return j.track(ctx, tbl, rec)
}

// schemaChanged follows an applied schema change of a table being copied:
// its open window was ended (window.Copies.Observe), its chunks are read
// with the new definition from LastKey on, from the start if the key
// changed; a dropped table's copy ends.
func (j *joiner) schemaChanged(ctx context.Context, d *model.DDL) error {
	for _, id := range d.Dropped {
		if tc := j.tables[id]; tc != nil && len(d.Tables) > 0 {
			// A rename (or a drop beside a create): the rows copied so far
			// went to the old name; refused rather than finished short.
			return fmt.Errorf("snapshot --add %s: the table was renamed on the source while it was being copied (%s), which the online copy "+
				"does not follow yet; stop replicate, drop the table on the target, delete its add record (DELETE FROM sluice.add_table WHERE stream = '%s' "+
				"AND database = '%s' AND table_name = '%s'), start replicate and add the table again under its new name", id, clip(d.Statement), j.r.o.Stream, id.Database, id.Name)
		}
		if tc := j.tables[id]; tc != nil {
			j.r.log.Warn("a table being added was dropped on the source; its copy ends", "table", id.String())
			tc.rec.State = engines.AddDone
			if err := j.adder.SaveAdd(ctx, j.r.o.Stream, tc.rec); err != nil {
				return err
			}
			j.finish(tc)
		}
	}
	for _, t := range d.Tables {
		tc := j.tables[t.TableID]
		if tc == nil {
			continue
		}
		oldKey, _ := window.KeyColumnsOf(tc.t)
		j.copies.Remove(t.TableID)
		if err := j.copies.Add(t); err != nil {
			return fmt.Errorf("a table being added changed: %w", err)
		}
		newKey, _ := window.KeyColumnsOf(t)
		if fmt.Sprint(oldKey) != fmt.Sprint(newKey) {
			tc.last = nil
		}
		tc.t, tc.win, tc.chunk = t, nil, nil
		tc.gen++
		tc.stale = true
		if !tc.reading {
			if err := j.reconnect(ctx, tc); err != nil {
				return err
			}
		}
		j.r.log.Info("a table being added changed on the source; its copy continues with the new definition", "table", t.TableID.String())
	}
	return nil
}

func (j *joiner) reconnect(ctx context.Context, tc *tableCopy) error {
	tc.stale = false
	return j.connect(ctx, tc)
}

// openWindows opens a window for each copy without one, at the end of the
// last transaction handed on (Correction 9: before its low watermark is
// read), and reads its chunk in a goroutine of its own.
func (j *joiner) openWindows(ctx context.Context) {
	now := time.Now()
	for id, tc := range j.tables {
		if tc.reading || tc.win != nil || tc.finishAt != nil || now.Before(tc.retry) || j.at == nil {
			continue
		}
		w, err := j.copies.Open(id, j.at)
		if err != nil {
			j.r.log.Warn("cannot open a window of a table being added", "table", id.String(), "err", err)
			continue
		}
		tc.win, tc.reading = w, true
		tc.gen++
		gen, ch, last := tc.gen, tc.chunker, tc.last
		go func() {
			c, err := ch.Read(ctx, last)
			j.reads <- chunkRead{id: id, gen: gen, chunk: c, err: err}
		}()
	}
}

// filled gives a window its read.
func (j *joiner) filled(ctx context.Context, rd chunkRead) error {
	tc := j.tables[rd.id]
	if tc == nil {
		return nil
	}
	tc.reading = false
	if tc.stale {
		if err := j.reconnect(ctx, tc); err != nil {
			return err
		}
	}
	if rd.gen != tc.gen {
		return nil // the window ended (a schema change): the next one reads again
	}
	if rd.err != nil {
		if !addtable.IsLockWait(rd.err) {
			return rd.err
		}
		j.r.log.Info("a source transaction holds rows of the next chunk; reading the window again", "table", rd.id.String())
		j.copies.Remove(rd.id)
		if err := j.copies.Add(tc.t); err != nil {
			return err
		}
		tc.win, tc.retry = nil, time.Now().Add(time.Second)
		return nil
	}
	if err := tc.win.Fill(rd.chunk.High, rd.chunk.Rows); err != nil {
		return err
	}
	tc.chunk = rd.chunk
	return nil
}

// mergeReady merges every window the stream has passed the high watermark
// of: the chunk without the keys the window's changes touched, applied as
// a barrier with the add record (its LastKey; done after the last chunk).
func (j *joiner) mergeReady(ctx context.Context, done <-chan struct{}) error {
	if j.at == nil || j.inTxn {
		// Between two fragments of a large transaction: apply commits it
		// only once it has every fragment, so the barrier would wait
		// forever; the merge waits for its end.
		return nil
	}
	for _, id := range j.copies.Ready(j.at) {
		tc := j.tables[id]
		rows, err := j.copies.Merge(id)
		if err != nil {
			return err
		}
		ch := tc.chunk
		tc.win, tc.chunk = nil, nil
		if err := j.barrier(ctx, done); err != nil {
			return err
		}
		rec := tc.rec
		if ch.Last != nil {
			if rec.LastKey, err = addtable.EncodeBound(ch.Last); err != nil {
				return err
			}
		}
		rec.Rows += int64(len(rows))
		rec.Chunks++
		if err := j.chunks.ApplyChunk(ctx, engines.Chunk{Stream: j.r.o.Stream, Table: tc.t, Naming: j.r.naming, Mapper: j.r.mapper,
			Rows: rows, Record: rec}); err != nil {
			return fmt.Errorf("snapshot --add %s: %w", id, err)
		}
		tc.rec = rec
		if ch.Last != nil {
			tc.last = ch.Last
		}
		if ch.Done {
			tc.finishAt = j.at
		}
	}
	return nil
}

// settle records a copy whose last chunk merged as done once the stream's
// checkpoint passed the merge, and returns the table to the exact apply.
// Not before: a restart replays from the checkpoint, and a done table's
// replayed events are applied exactly, which a row the chunk already
// wrote would refuse as a divergence; until then the record stays
// copying, and a restart reads the exhausted range's empty chunk again.
func (j *joiner) settle(ctx context.Context) error {
	saved := j.r.applier.SavedPosition()
	for id, tc := range j.tables {
		if tc.finishAt == nil || saved == nil || saved.Compare(tc.finishAt) < 0 {
			continue
		}
		rec := tc.rec
		rec.State = engines.AddDone
		if err := j.adder.SaveAdd(ctx, j.r.o.Stream, rec); err != nil {
			return err
		}
		j.r.log.Info("table added to the stream: its copy is done", "table", id.String(), "rows", rec.Rows, "chunks", rec.Chunks)
		j.finish(tc)
	}
	return nil
}

// finish returns a table to the ordinary exact apply: nothing is in flight
// (the merge is a barrier), and what is handed on from now on is applied
// with row counts checked.
func (j *joiner) finish(tc *tableCopy) {
	id := tc.t.TableID
	j.upsert.Remove(id)
	j.copies.Remove(id)
	if tc.conn != nil && !tc.reading {
		_ = tc.conn.Close()
	}
	delete(j.tables, id)
}

// barrier waits until apply committed every transaction handed on.
func (j *joiner) barrier(ctx context.Context, done <-chan struct{}) error {
	a := j.r.applier
	for {
		if a.QueueDepth() == 0 {
			if p := a.Position(); p != nil && p.Compare(j.at) >= 0 {
				return nil
			}
		}
		select {
		case <-done:
			return errApplyStopped
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(2 * time.Millisecond):
		}
	}
}
