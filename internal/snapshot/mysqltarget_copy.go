package snapshot

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// copyAll runs one worker per reader session (runWorkers) until every table
// is copied.
func (r *myRunner) copyAll(ctx context.Context, p *mysnap.Point) error {
	b := r.b
	r.pass++
	r.pos = p.Position
	b.report.Pass = r.pass
	if err := mysqlstate.StartSnapshotPass(ctx, r.db, r.o.Stream, r.pass, r.pos.Encode(), string(p.Method), p.LockHeld.Milliseconds()); err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.sched = newScheduler(b.jobs)
	b.prog = b.newProgress(ctx)
	runWorkers(ctx, cancel, b.sched, p.Sessions, r)
	b.prog.stop()
	if err := b.sched.failed(); err != nil {
		return err
	}
	for _, j := range b.jobs {
		if !j.finished {
			return fmt.Errorf("internal error: table %s was not completed", j.t.TableID)
		}
	}
	return ctx.Err()
}

// prepare makes a table's chunks known, as the PostgreSQL snapshot's
// prepare does: on resume it re-checks chunks an earlier pass copied,
// queues the ones not copied yet, and plans the rest of the key space in
// this session's snapshot.
func (r *myRunner) prepare(ctx context.Context, sess *sql.Conn, j *tableJob) error {
	tc := r.db
	db, name := j.t.Database, j.t.Name
	chunks, err := mysqlstate.LoadSnapshotChunks(ctx, tc, r.o.Stream, db, name)
	if err != nil {
		return err
	}
	if r.resumed {
		if err := r.revalidate(ctx, sess, j, chunks); err != nil {
			return err
		}
	}
	var last *mysnap.Chunk
	for _, c := range chunks {
		mc := mysnap.Chunk{Table: j.t.TableID, Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
		last = &mc
		if !c.Done {
			r.enqueue(j, &mc, false)
		}
	}
	if !j.state.Planned && last != nil && last.Hi == nil {
		j.state.Planned = true
		if err := mysqlstate.SetSnapshotTablePlanned(ctx, tc, r.o.Stream, db, name); err != nil {
			return err
		}
	}
	if j.state.Planned {
		r.planned(j)
		return nil
	}
	lo, seq := mysnap.Bound(nil), 1
	if last != nil {
		lo, seq = last.Hi, last.Seq+1
	}
	for {
		var hi mysnap.Bound
		if j.key != nil {
			if hi, err = j.key.NextBound(ctx, sess, j.t.TableID, lo, r.o.ChunkRows); err != nil {
				return fmt.Errorf("snapshot %s: %w", j.t.TableID, err)
			}
		}
		c := mysnap.Chunk{Table: j.t.TableID, Seq: seq, Lo: lo, Hi: hi}
		if err := mysqlstate.InsertSnapshotChunk(ctx, tc, r.o.Stream, db, name, mysqlstate.SnapshotChunk{Seq: seq, Lo: lo, Hi: hi}); err != nil {
			return err
		}
		r.enqueue(j, &c, false)
		if hi == nil {
			break
		}
		lo, seq = hi, seq+1
	}
	if err := mysqlstate.SetSnapshotTablePlanned(ctx, tc, r.o.Stream, db, name); err != nil {
		return err
	}
	j.state.Planned = true
	r.planned(j)
	return nil
}

// revalidate keeps the chunks an earlier pass copied that still hold the
// same rows at this pass's instant, and queues the others for a re-copy
// (their range is deleted first: on a MySQL target every key's ranges are
// the source's). Afterwards every copied chunk is as of this pass.
func (r *myRunner) revalidate(ctx context.Context, sess *sql.Conn, j *tableJob, chunks []mysqlstate.SnapshotChunk) error {
	posText := r.pos.Encode()
	for _, c := range chunks {
		if !c.Done || c.Pass == r.pass {
			continue
		}
		keep := c.Position != "" && c.Position == posText
		mc := mysnap.Chunk{Table: j.t.TableID, Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
		if !keep {
			n, sum, err := r.b.hashChunk(ctx, sess, j, mc)
			if err != nil {
				return fmt.Errorf("snapshot %s: re-check: %w", mc, err)
			}
			keep = n == c.Rows && bytes.Equal(sum, c.Hash)
		}
		if keep {
			if err := mysqlstate.KeepSnapshotChunk(ctx, r.db, r.o.Stream, j.t.Database, j.t.Name, c.Seq, r.pass, posText); err != nil {
				return err
			}
			r.countKept()
			continue
		}
		r.log.Info("chunk changed since it was copied: copying it again", "chunk", mc.String())
		r.enqueue(j, &mc, true) // stays done (as of its old pass) until the re-copy commits
	}
	return nil
}

func (r *myRunner) enqueue(j *tableJob, c *mysnap.Chunk, recopy bool) {
	j.mu.Lock()
	j.pending++
	j.mu.Unlock()
	r.b.sched.push(&task{job: j, chunk: c, recopy: recopy})
}

func (r *myRunner) planned(j *tableJob) {
	j.markPlanned()
	r.maybeFinishTable(j)
}

func (r *myRunner) chunkDone(j *tableJob, recopy bool) {
	r.stats.done(recopy)
	j.chunkCopied()
	if r.o.afterChunk != nil {
		r.o.afterChunk()
	}
	r.maybeFinishTable(j)
}

// maybeFinishTable counts a table whose chunks are all copied (its indexes
// came with its CREATE TABLE: nothing to build afterwards).
func (r *myRunner) maybeFinishTable(j *tableJob) {
	if j.finishNow() {
		r.b.prog.tableDone()
	}
}

func (r *myRunner) countKept() { r.stats.keep() }

// chunkAttempts bounds how often a chunk is copied again after the target
// gave up its transaction for a lock conflict.
const chunkAttempts = 5

// copyChunk copies one chunk, again when the target resolved a lock
// conflict by rolling its transaction back: InnoDB may pick one of two
// chunks inserting into neighbouring ranges of a unique secondary index as a
// deadlock victim, and says to retry. The source session reads the same rows
// again (it stays at the snapshot's instant).
func (r *myRunner) copyChunk(ctx context.Context, sess *sql.Conn, t *task) error {
	for attempt := 1; ; attempt++ {
		err := r.copyChunkOnce(ctx, sess, t)
		if err == nil || !isLockConflict(err) || attempt == chunkAttempts || ctx.Err() != nil {
			return err
		}
		r.log.Warn("snapshot: the target rolled the chunk's transaction back for a lock conflict; copying the chunk again",
			"chunk", t.chunk.String(), "attempt", attempt, "cause", err)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Duration(attempt) * 100 * time.Millisecond):
		}
	}
}

// isLockConflict is MySQL's deadlock (1213) or lock wait timeout (1205).
func isLockConflict(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// copyChunkOnce reads one chunk from the source session and writes it with
// multi-row INSERTs in one target transaction together with its done row,
// so a chunk is either fully in the target and recorded, or neither.
func (r *myRunner) copyChunkOnce(ctx context.Context, sess *sql.Conn, t *task) error {
	j, c := t.job, *t.chunk
	mt := j.my
	fail := func(err error) error { return fmt.Errorf("snapshot %s: %w", c, err) }
	start := time.Now()
	q, err := mysnap.ChunkQuery(j.key, j.t.TableID, j.selects, c.Lo, c.Hi)
	if err != nil {
		return fail(err)
	}
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("target: %w", err))
	}
	defer tx.Rollback()
	if t.recopy || !mt.transactional {
		if err := r.clearChunk(ctx, tx, j, c); err != nil {
			return fail(err)
		}
	}
	rows, err := mysnap.Read(ctx, sess, q)
	if err != nil {
		return fail(fmt.Errorf("source: %w", err))
	}
	defer rows.Close()
	rows.Limit(ctx, r.b.limit)
	h := newRowHasher()
	ins := &inserter{head: mt.insertHead, modes: mt.lits, checks: mt.checks, limit: r.limit, exec: func(stmt string) error {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			if errors.Is(err, mysql.ErrPktTooLarge) {
				return fmt.Errorf("target: insert into %s: a row's statement (%d bytes) exceeds the target's max_allowed_packet: "+
					"raise it on the target to at least twice the largest row (binary values are escaped)", mt.qname, len(stmt))
			}
			return fmt.Errorf("target: insert into %s: %w", mt.qname, err)
		}
		return nil
	}}
	var n, size, pRows, pBytes int64
	for rows.Next() {
		raw := rows.Values()
		sz := h.add(raw)
		n++
		size += sz
		pRows++
		pBytes += sz
		if err := ins.add(raw); err != nil {
			return fail(err)
		}
		if pRows >= 1024 {
			r.b.prog.add(pRows, pBytes)
			pRows, pBytes = 0, 0
		}
	}
	r.b.prog.add(pRows, pBytes)
	if err := rows.Err(); err != nil {
		return fail(fmt.Errorf("source: read row %d: %w", n+1, err))
	}
	if err := ins.flush(); err != nil {
		return fail(err)
	}
	st := mysqlstate.SnapshotChunk{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi, Done: true, Rows: n, Bytes: size, Hash: h.sum(),
		Pass: r.pass, Position: r.pos.Encode()}
	if err := withUniqueChecks(ctx, tx, func() error {
		return mysqlstate.MarkSnapshotChunkDone(ctx, tx, r.o.Stream, j.t.Database, j.t.Name, st)
	}); err != nil {
		return fail(err)
	}
	if err := tx.Commit(); err != nil {
		return fail(fmt.Errorf("target: commit: %w", err))
	}
	mt.mu.Lock()
	mt.seconds += time.Since(start).Seconds()
	mt.bytes += size
	mt.mu.Unlock()
	r.chunkDone(j, t.recopy)
	return nil
}

// clearChunk deletes a chunk's rows from the target: before a re-copy, and
// before every copy into a table without transactions (an interrupted
// earlier attempt may have left part of the chunk there).
func (r *myRunner) clearChunk(ctx context.Context, tx *sql.Tx, j *tableJob, c mysnap.Chunk) error {
	q := "DELETE FROM " + j.my.qname
	var args []any
	if j.key != nil {
		where, a, err := j.key.RangeWhere(c.Lo, c.Hi)
		if err != nil {
			return err
		}
		if where != "" {
			q += " WHERE " + where
		}
		args = a
	}
	if _, err := tx.ExecContext(ctx, q, args...); err != nil {
		return fmt.Errorf("target: empty the chunk's range: %w", err)
	}
	return nil
}
