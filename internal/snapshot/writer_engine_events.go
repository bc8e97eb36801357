package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
)

// The runner's side of an engine whose target is a log of events
// (target.EventWriter, Kafka): what it wrote stays written, so a resumed
// pass does not re-check and re-copy the chunks an earlier pass copied;
// the engine brings their rows up to the new point itself (its catch-up)
// and every copied chunk counts as of the new pass.

// beginEventPass starts a pass on such an engine: the run's record for
// this pass and every chunk an earlier pass copied, restamped as of this
// one (so revalidate keeps them without a re-read), committed by the
// engine's BeginPass after its catch-up.
func (e *engineWriter) beginEventPass(ctx context.Context, run *runState) error {
	recs := map[string]any{runKey: run}
	e.mu.Lock()
	var keys []string
	for k := range e.state {
		if strings.HasPrefix(k, "chunk/") {
			keys = append(keys, k)
		}
	}
	e.mu.Unlock()
	for _, k := range keys {
		var c chunkState
		if _, err := e.record(k, &c); err != nil {
			return err
		}
		if c.Done && c.Pass != e.Pass {
			c.Pass, c.Position = e.Pass, e.Pos
			recs[k] = c
		}
	}
	s, err := encodeRecords(recs)
	if err != nil {
		return err
	}
	if err := e.ev.BeginPass(ctx, e.Pos, e.Cat.Tables, s); err != nil {
		return err
	}
	e.committed(s)
	return nil
}

// planBatch bounds the planned chunks saved in one target transaction.
const planBatch = 1000

// planChunk records a planned chunk for such an engine. Each record would
// be a transaction of its own (a Kafka transaction costs a few ms, as much
// as copying a small chunk), so they are saved with the next save, the
// table's "planned" record at the latest: a run killed before loses only
// chunks not copied yet, which the next run plans again from the last one
// saved, and a table is never marked planned without all its chunks.
func (e *engineWriter) planChunk(ctx context.Context, c mysnap.Chunk) error {
	e.mu.Lock()
	if e.planned == nil {
		e.planned = map[string]any{}
	}
	e.planned[chunkKey(c.Table, c.Seq)] = chunkState{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
	n := len(e.planned)
	e.mu.Unlock()
	if n < planBatch {
		return nil
	}
	return e.save(ctx, map[string]any{})
}

// takePlan moves the planned chunks not saved yet into recs (a record of
// the caller's own for the same key is newer and stays).
func (e *engineWriter) takePlan(recs map[string]any) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for k, v := range e.planned {
		if _, ok := recs[k]; !ok {
			recs[k] = v
		}
	}
	e.planned = nil
}

// copyEvents copies one chunk into such an engine, telling it the chunk's
// range and whether the snapshot's last row is among its rows.
func (e *engineWriter) copyEvents(ctx context.Context, sess *sql.Conn, t *task) error {
	j, c := t.job, *t.chunk
	if t.recopy {
		// beginEventPass keeps every copied chunk: nothing is copied twice.
		return fmt.Errorf("snapshot %s: internal error: a chunk copied before is to be copied again into %s", c, e.o.Target.Name())
	}
	e.mu.Lock()
	delete(e.planned, chunkKey(c.Table, c.Seq)) // its done record is saved with it; the plan's would undo it
	e.mu.Unlock()
	last, err := e.lastChunk(ctx, sess)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", c, err)
	}
	rows, err := e.readChunk(ctx, sess, j, c)
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", c, err)
	}
	defer rows.Close()
	var done targets.BulkState
	err = e.ev.CopyEvents(ctx, j.Out.(*engineTable).BulkTable, rows, targets.EventChunk{Lo: c.Lo, Hi: c.Hi, Last: last},
		e.doneRecord(rows, c, &done))
	if err != nil {
		return fmt.Errorf("snapshot %s: %w", c, err)
	}
	e.committed(done)
	return nil
}

// lastChunk reports whether no row of the snapshot follows the chunk about
// to be copied: every table's chunks are known and each one still queued
// is empty at this pass's point (a table's last chunk, or a table, can be
// empty). It needs one reader session, which copies the chunks one by one
// in queue order; with more it says false (no row is marked last).
func (e *engineWriter) lastChunk(ctx context.Context, sess *sql.Conn) (bool, error) {
	if e.o.Workers != 1 {
		return false, nil
	}
	for _, j := range e.jobs {
		j.mu.Lock()
		planned := j.planned
		j.mu.Unlock()
		if !planned {
			return false, nil
		}
	}
	queued := e.queuedChunks(false)
	for i := 0; i < len(queued); i++ {
		empty, err := e.emptyChunk(ctx, sess, queued[i])
		if err != nil || !empty {
			return false, err
		}
		if i == 0 {
			queued = e.queuedChunks(true) // the next one is empty: all of them
		}
	}
	return true, nil
}

// queuedChunks are the chunks the scheduler still holds: the next one
// (the heap's first), or all of them.
func (e *engineWriter) queuedChunks(all bool) []*task {
	e.sched.mu.Lock()
	defer e.sched.mu.Unlock()
	if all || len(e.sched.chunks) == 0 {
		return append([]*task(nil), e.sched.chunks...)
	}
	return []*task{e.sched.chunks[0]}
}

// emptyChunk reports whether a queued chunk has no row to copy.
func (e *engineWriter) emptyChunk(ctx context.Context, sess *sql.Conn, t *task) (bool, error) {
	j, c := t.job, t.chunk
	q, err := mysnap.ChunkQuery(j.Key, j.Source.TableID, []string{"1"}, j.policy.Where, c.Lo, c.Hi)
	if err != nil {
		return false, err
	}
	var one int
	err = sess.QueryRowContext(ctx, q.SQL+" LIMIT 1", q.Args...).Scan(&one)
	if errors.Is(err, sql.ErrNoRows) {
		return true, nil
	}
	if err != nil {
		return false, fmt.Errorf("source: %w", err)
	}
	return false, nil
}
