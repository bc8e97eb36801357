package snapshot

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
)

// queryChunk reads a chunk's rows on a reader session.
func (r *runner) queryChunk(ctx context.Context, sess *sql.Conn, j *tableJob, c mysnap.Chunk) (*mysnap.Rows, error) {
	q, err := mysnap.ChunkQuery(j.Key, j.Source.TableID, j.Selects, j.policy.Where, c.Lo, c.Hi)
	if err != nil {
		return nil, err
	}
	rd, err := mysnap.Read(ctx, sess, q)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	rd.SetMask(j.policy.Mask) // before the chunk hash and the writer: nothing of a clear value goes on
	return rd, nil
}

// readChunk starts a chunk's copy read, at --max-rate; its rows add to
// the progress as they are read.
func (r *runner) readChunk(ctx context.Context, sess *sql.Conn, j *tableJob, c mysnap.Chunk) (*targets.ChunkRows, error) {
	rd, err := r.queryChunk(ctx, sess, j, c)
	if err != nil {
		return nil, err
	}
	rd.Limit(ctx, r.limit)
	return targets.NewChunkRows(rd, func(rows, bytes int64) { r.prog.add(j, rows, bytes) }), nil
}

// hashChunk reads a chunk and returns its row count and hash, without
// writing anything (resume: did the chunk change since it was copied?).
func (r *runner) hashChunk(ctx context.Context, sess *sql.Conn, j *tableJob, c mysnap.Chunk) (int64, []byte, error) {
	rd, err := r.queryChunk(ctx, sess, j, c)
	if err != nil {
		return 0, nil, err
	}
	defer rd.Close()
	h := targets.NewRowHash()
	var n int64
	for rd.Next() {
		h.Add(rd.Values())
		n++
	}
	if err := rd.Err(); err != nil {
		return 0, nil, fmt.Errorf("source: %w", err)
	}
	return n, h.Sum(), nil
}

// revalidate runs when a resumed pass reads at a later instant than the
// chunks an earlier pass copied. A chunk whose rows are the same now (same
// count and hash) is as valid at the new instant as at the old one and is
// kept; a chunk that changed is copied again (its range deleted first; for
// keys the target orders differently than MySQL the whole table is emptied
// and copied again). Afterwards every copied chunk is as of this pass's
// position, which is the one position the run records.
func (r *runner) revalidate(ctx context.Context, sess *sql.Conn, j *tableJob, chunks []chunkState) ([]chunkState, error) {
	keyed := false
	for _, c := range chunks {
		if !c.Done || c.Pass == r.Pass {
			continue
		}
		mc := mysnap.Chunk{Table: j.Source.TableID, Seq: c.Seq, Lo: c.Lo, Hi: c.Hi}
		// Same position: no transaction committed between the two reads,
		// nothing can differ.
		keep := !c.Position.IsZero() && c.Position == r.Pos
		if !keep {
			n, sum, err := r.hashChunk(ctx, sess, j, mc)
			if err != nil {
				return nil, fmt.Errorf("snapshot %s: re-check: %w", mc, err)
			}
			keep = n == c.Rows && bytes.Equal(sum, c.Hash)
		}
		if keep {
			if err := r.w.KeepChunk(ctx, j.Source.TableID, c.Seq); err != nil {
				return nil, err
			}
			r.stats.keep()
			continue
		}
		r.Log.Info("chunk changed since it was copied: copying it again", "chunk", mc.String())
		if j.RangeSafe && !keyed && (c.Lo != nil || c.Hi != nil) {
			if err := r.w.BeforeRecopy(ctx, j.Job); err != nil {
				return nil, err
			}
			keyed = true
		}
		if j.RangeSafe || (c.Lo == nil && c.Hi == nil) {
			// Stays "done" (as of its old pass) until the re-copy commits.
			r.enqueue(j, &mc, true)
			continue
		}
		if err := r.w.ResetTable(ctx, j.Job); err != nil {
			return nil, err
		}
		return r.w.LoadChunks(ctx, j.Source.TableID)
	}
	return chunks, nil
}
