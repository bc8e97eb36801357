package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// openPoint opens the reader sessions at one instant and checks that the
// schema read before still holds at that instant (a DDL in between would
// make the tables sluice planned differ from the data it reads).
func (r *runner) openPoint(ctx context.Context) (*mysnap.Point, error) {
	p, err := r.Src.OpenPoint(ctx, mysnap.PointOptions{
		Sessions: r.o.Workers, Method: r.o.Method, LockWaitTimeout: r.o.LockWaitTimeout, LockAttempts: r.o.LockAttempts, Log: r.Log,
		Tables: r.Cat.Tables, NonTransactional: mysnap.NonTransactional(r.Cat.Tables),
	})
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	cat, err := r.loadCatalog(ctx)
	if err != nil {
		p.Close()
		return nil, err
	}
	if changed := changedTables(r.Cat.Tables, cat.Tables); len(changed) > 0 {
		p.Close()
		return nil, fmt.Errorf("source: the schema of %s changed while the snapshot started (a DDL ran at the same time); "+
			"nothing was copied, run the command again", strings.Join(changed, ", "))
	}
	r.Log.Info("consistent point", "position", p.Position.String(), "method", p.Method, "sessions", len(p.Sessions),
		"lock_held_ms", p.LockHeld.Milliseconds())
	r.report.Method, r.report.LockHeldMS, r.report.Sessions = string(p.Method), p.LockHeld.Milliseconds(), len(p.Sessions)
	r.report.Warnings = append(r.report.Warnings, p.Warnings...)
	return p, nil
}

// copyAll runs one worker per reader session until every table is copied
// and indexed.
func (r *runner) copyAll(ctx context.Context, p *mysnap.Point) error {
	r.Pass++
	r.Pos = p.Position
	r.report.Pass = r.Pass
	if err := r.w.StartPass(ctx, p); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.sched = newScheduler(r.jobs)
	r.postSem = make(chan struct{}, r.o.Workers)
	r.postCtx = ctx
	r.prog = r.newProgress(ctx)
	runWorkers(ctx, cancel, r.sched, p.Sessions, r)
	r.postWG.Wait()
	r.prog.stop()
	if err := r.sched.failed(); err != nil {
		return err
	}
	for _, j := range r.jobs {
		if !j.finished {
			return fmt.Errorf("internal error: table %s was not completed", j.Source.TableID)
		}
	}
	return ctx.Err()
}

// prepare makes a table's chunks known: on resume it re-checks chunks an
// earlier pass copied, queues the ones not copied yet, and plans the rest
// of the key space by stepping through the key's index in this session's
// snapshot, queueing each chunk as soon as its upper bound is known.
func (r *runner) prepare(ctx context.Context, sess *sql.Conn, j *tableJob) error {
	chunks, err := r.w.LoadChunks(ctx, j.Source.TableID)
	if err != nil {
		return err
	}
	if r.resumed {
		if chunks, err = r.revalidate(ctx, sess, j, chunks); err != nil {
			return err
		}
	}
	var last *mysnap.Chunk
	for _, c := range chunks {
		mc := mysnap.Chunk{Table: j.Source.TableID, Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
		last = &mc
		if !c.Done {
			r.enqueue(j, &mc, false)
		}
	}
	if !j.State.Planned && last != nil && last.Hi == nil {
		// The last chunk was recorded but the run stopped before marking the plan complete.
		if err := r.w.SetPlanned(ctx, j.Source.TableID); err != nil {
			return err
		}
		j.State.Planned = true
	}
	if j.State.Planned {
		r.planned(j)
		return nil
	}
	lo, seq := mysnap.Bound(nil), 1
	if last != nil {
		lo, seq = last.Hi, last.Seq+1
	}
	for {
		var hi mysnap.Bound
		if j.Key != nil {
			if hi, err = j.Key.NextBound(ctx, sess, j.Source.TableID, lo, r.o.ChunkRows); err != nil {
				return fmt.Errorf("snapshot %s: %w", j.Source.TableID, err)
			}
		}
		c := mysnap.Chunk{Table: j.Source.TableID, Seq: seq, Lo: lo, Hi: hi}
		if err := r.w.InsertChunk(ctx, c); err != nil {
			return err
		}
		r.enqueue(j, &c, false)
		if hi == nil {
			break
		}
		lo, seq = hi, seq+1
	}
	if err := r.w.SetPlanned(ctx, j.Source.TableID); err != nil {
		return err
	}
	j.State.Planned = true
	r.planned(j)
	return nil
}

func (r *runner) enqueue(j *tableJob, c *mysnap.Chunk, recopy bool) {
	j.mu.Lock()
	j.pending++
	j.mu.Unlock()
	r.sched.push(&task{job: j, chunk: c, recopy: recopy})
}

// planned notes that all of j's chunks are known.
func (r *runner) planned(j *tableJob) {
	j.markPlanned()
	r.maybeFinishTable(j)
}

// copyChunk has the writer copy one chunk and notes it done.
func (r *runner) copyChunk(ctx context.Context, sess *sql.Conn, t *task) error {
	var err error
	if ew, ok := r.w.(*engineWriter); ok && ew.ev != nil {
		// An event log's engine (target.EventWriter) is also told whether
		// the chunk holds the snapshot's last row, probed on the session.
		err = ew.copyEvents(ctx, sess, t)
	} else {
		read := func(ctx context.Context) (*targets.ChunkRows, error) { return r.readChunk(ctx, sess, t.job, *t.chunk) }
		err = r.w.CopyChunk(ctx, bulkrun.Task{Job: t.job.Job, Chunk: t.chunk, Recopy: t.recopy}, read)
	}
	if err != nil {
		return err
	}
	r.chunkDone(t.job, t.recopy)
	return nil
}

// chunkDone notes a copied chunk.
func (r *runner) chunkDone(j *tableJob, recopy bool) {
	r.stats.done(recopy)
	j.chunkCopied()
	if r.o.afterChunk != nil {
		r.o.afterChunk()
	}
	r.maybeFinishTable(j)
}

// maybeFinishTable starts the post-data work of a table whose chunks are
// all copied (bulkrun.Writer.FinishTable: on PostgreSQL its indexes, sequences
// and ANALYZE), in parallel with the copy of other tables.
func (r *runner) maybeFinishTable(j *tableJob) {
	if !j.finishNow() {
		return
	}
	r.prog.tableDone(j)
	r.postWG.Add(1)
	go func() {
		defer r.postWG.Done()
		r.postSem <- struct{}{}
		defer func() { <-r.postSem }()
		if err := r.w.FinishTable(r.postCtx, j.Job); err != nil {
			r.sched.fail(err)
		}
	}()
}
