package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

func (r *myWriter) StartPass(ctx context.Context, p *mysnap.Point) error {
	return mysqlstate.StartSnapshotPass(ctx, r.db, r.Opts.Stream, r.Pass, r.Pos.Encode(), string(p.Method), p.LockHeld.Milliseconds())
}

func (r *myWriter) LoadChunks(ctx context.Context, id schema.TableID) ([]bulkrun.ChunkState, error) {
	rows, err := mysqlstate.LoadSnapshotChunks(ctx, r.db, r.Opts.Stream, id.Database, id.Name)
	if err != nil {
		return nil, err
	}
	out := make([]bulkrun.ChunkState, len(rows))
	for i, c := range rows {
		out[i] = bulkrun.ChunkState{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi, Done: c.Done, Rows: c.Rows, Bytes: c.Bytes, Hash: c.Hash, Pass: c.Pass}
		if c.Position == "" {
			continue
		}
		if out[i].Position, err = binlogpos.Parse(c.Position); err != nil {
			return nil, fmt.Errorf("snapshot state: chunk %d of %s: %w", c.Seq, id, err)
		}
	}
	return out, nil
}

func (r *myWriter) InsertChunk(ctx context.Context, c mysnap.Chunk) error {
	return mysqlstate.InsertSnapshotChunk(ctx, r.db, r.Opts.Stream, c.Table.Database, c.Table.Name,
		mysqlstate.SnapshotChunk{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi})
}

func (r *myWriter) SetPlanned(ctx context.Context, id schema.TableID) error {
	return mysqlstate.SetSnapshotTablePlanned(ctx, r.db, r.Opts.Stream, id.Database, id.Name)
}

func (r *myWriter) KeepChunk(ctx context.Context, id schema.TableID, seq int) error {
	return mysqlstate.KeepSnapshotChunk(ctx, r.db, r.Opts.Stream, id.Database, id.Name, seq, r.Pass, r.Pos.Encode())
}

// BeforeRecopy: the table has its keys from its CREATE TABLE.
func (r *myWriter) BeforeRecopy(context.Context, *bulkrun.Job) error { return nil }

// ResetTable is never needed: every key's ranges are the source's
// (rangeSafe), so a changed chunk is cleared by its range.
func (r *myWriter) ResetTable(_ context.Context, j *bulkrun.Job) error {
	return fmt.Errorf("internal error: %s: a MySQL target clears a changed chunk by its key range", j.Source.TableID)
}

// FinishTable: the table's indexes came with its CREATE TABLE.
func (r *myWriter) FinishTable(context.Context, *bulkrun.Job) error { return nil }

// chunkAttempts bounds how often a chunk is copied again after the target
// gave up its transaction for a lock conflict.
const chunkAttempts = 5

// CopyChunk copies one chunk, again when the target resolved a lock
// conflict by rolling its transaction back: InnoDB may pick one of two
// chunks inserting into neighbouring ranges of a unique secondary index as a
// deadlock victim, and says to retry. The source session reads the same rows
// again (it stays at the snapshot's instant).
func (r *myWriter) CopyChunk(ctx context.Context, t bulkrun.Task, read bulkrun.ReadFunc) error {
	for attempt := 1; ; attempt++ {
		err := r.copyChunkOnce(ctx, t, read)
		if err == nil || !isLockConflict(err) || attempt == chunkAttempts || ctx.Err() != nil {
			return err
		}
		r.Log.Warn("snapshot: the target rolled the chunk's transaction back for a lock conflict; copying the chunk again",
			"chunk", t.Chunk.String(), "attempt", attempt, "cause", err)
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
func (r *myWriter) copyChunkOnce(ctx context.Context, t bulkrun.Task, read bulkrun.ReadFunc) error {
	j, c := t.Job, *t.Chunk
	mt := j.Out.(*myTable)
	fail := func(err error) error { return fmt.Errorf("snapshot %s: %w", c, err) }
	start := time.Now()
	tx, err := r.db.BeginTx(ctx, nil)
	if err != nil {
		return fail(fmt.Errorf("target: %w", err))
	}
	defer tx.Rollback()
	if t.Recopy || !mt.transactional {
		if err := r.clearChunk(ctx, tx, j, c); err != nil {
			return fail(err)
		}
	}
	rows, err := read(ctx)
	if err != nil {
		return fail(err)
	}
	defer rows.Close()
	ins := &inserter{head: mt.insertHead, modes: mt.lits, checks: mt.checks, limit: r.insertLimit, exec: func(stmt string) error {
		if _, err := tx.ExecContext(ctx, stmt); err != nil {
			if errors.Is(err, mysql.ErrPktTooLarge) {
				return fmt.Errorf("target: insert into %s: a row's statement (%d bytes) exceeds the target's max_allowed_packet: "+
					"raise it on the target to at least twice the largest row (binary values are escaped)", mt.qname, len(stmt))
			}
			return fmt.Errorf("target: insert into %s: %w", mt.qname, err)
		}
		return nil
	}}
	for rows.Next() {
		if err := ins.add(rows.Values()); err != nil {
			return fail(err)
		}
	}
	rows.Flush()
	if err := rows.Err(); err != nil {
		return fail(err)
	}
	if err := ins.flush(); err != nil {
		return fail(err)
	}
	size := rows.Bytes()
	st := mysqlstate.SnapshotChunk{Seq: c.Seq, Lo: c.Lo, Hi: c.Hi, Done: true, Rows: rows.Rows(), Bytes: size, Hash: rows.Sum(),
		Pass: r.Pass, Position: r.Pos.Encode()}
	if err := withUniqueChecks(ctx, tx, func() error {
		return mysqlstate.MarkSnapshotChunkDone(ctx, tx, r.Opts.Stream, j.Source.Database, j.Source.Name, st)
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
	return nil
}

// clearChunk deletes a chunk's rows from the target: before a re-copy, and
// before every copy into a table without transactions (an interrupted
// earlier attempt may have left part of the chunk there).
func (r *myWriter) clearChunk(ctx context.Context, tx *sql.Tx, j *bulkrun.Job, c mysnap.Chunk) error {
	q := "DELETE FROM " + j.Out.(*myTable).qname
	var args []any
	if j.Key != nil {
		where, a, err := j.Key.RangeWhere(c.Lo, c.Hi)
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
