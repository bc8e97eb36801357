package alter

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"strings"
	"sync"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// planChunks splits the key space of the table into ranges of about
// --chunk-rows rows; the ranges partition the whole key space, so rows
// inserted later fall in one of them too.
func (r *runner) planChunks(ctx context.Context) ([]chunk, error) {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	var out []chunk
	var lo consistent.Bound
	for seq := 1; ; seq++ {
		hi, err := r.key.NextBound(ctx, conn, r.id, lo, r.o.ChunkRows)
		if err != nil {
			return nil, err
		}
		out = append(out, chunk{Seq: seq, Lo: lo, Hi: hi})
		if hi == nil {
			return out, nil
		}
		lo = hi
	}
}

func (r *runner) columnList() string {
	q := make([]string, len(r.p.shared))
	for i, c := range r.p.shared {
		q[i] = schema.QuoteMySQL(c)
	}
	return strings.Join(q, ", ")
}

// copySQLMode is the copy sessions' sql_mode, the one the appliers' row
// images are written in (internal/sink/mysql's session).
const copySQLMode = "SET SESSION sql_mode = 'NO_AUTO_VALUE_ON_ZERO,NO_ENGINE_SUBSTITUTION'"

// seenWait bounds the wait for the binlog reader to reach a chunk's marker;
// past it the chunk's parked keys are all applied.
const seenWait = 10 * time.Second

// copyChunks copies the chunks not yet done, --workers at a time, each
// as one server-side INSERT IGNORE ... SELECT: a row the binlog apply
// already wrote is newer and stays.
//
// Keys changed in a chunk before it is copied wait in the set (parked) and
// are applied once it is; with skipSeen, those whose last change the copy
// read are not. Before the chunk's read a marker row is written and
// committed; a server that commits transactions in binlog order (MariaDB
// always, MySQL with binlog_order_commits) has then committed every
// transaction before the marker in the binlog, so the read, which starts
// after, sees them: a key whose last change the binlog reader saw before
// the marker is in the chunk's copy as that change left it (or not, if it
// removed the key), and applying it would write the same row again. A key
// changed after the marker is applied (its change may be newer than the
// read), and one changed again after the release comes back into the set.
// Not for a resumed run: a chunk's earlier, interrupted copy may have left
// older rows that INSERT IGNORE keeps.
func (r *runner) copyChunks(ctx context.Context, chunks []chunk, cr *copiedRanges) error {
	todo := make(chan chunk)
	fed := make(chan struct{})
	g, ctx := errgroup.WithContext(ctx)
	g.Go(func() error {
		defer close(fed)
		defer close(todo)
		for _, c := range chunks {
			if c.Done {
				continue
			}
			select {
			case todo <- c:
			case <-ctx.Done():
				return ctx.Err()
			}
		}
		return nil
	})
	// The workers in force follow a "workers N" line of the control file:
	// more are started here, and one above the number stops before its
	// next chunk.
	var mu sync.Mutex
	running := 0
	spawn := func() {
		mu.Lock()
		defer mu.Unlock()
		for ; running < r.ctl.workers(); running++ {
			r.db.SetMaxOpenConns(2*r.ctl.workers() + 8)
			g.Go(func() error {
				return r.copyWorker(ctx, todo, cr, func() bool {
					mu.Lock()
					defer mu.Unlock()
					if running > r.ctl.workers() {
						running--
						return true
					}
					return false
				})
			})
		}
	}
	spawn()
	g.Go(func() error {
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-fed:
				return nil
			case <-ctx.Done():
				return nil
			case <-t.C:
				spawn()
			}
		}
	})
	return g.Wait()
}

// copyWorker copies chunks from todo until it is closed, or until excess
// says the run has more workers than it is to have.
func (r *runner) copyWorker(ctx context.Context, todo <-chan chunk, cr *copiedRanges, excess func() bool) error {
	conn, err := r.db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	// A consistent non-locking read of the table: the copy takes no
	// row locks the application would wait for. The appliers'
	// sql_mode: values are copied as the table holds them (a zero
	// in a date stays, as the appliers write it, instead of the
	// zero date a strict mode's INSERT IGNORE makes of it; a 0 in
	// an AUTO_INCREMENT column stays 0).
	for _, q := range []string{"SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED", copySQLMode} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("alter: prepare a copy session (%s): %w", q, err)
		}
	}
	for !excess() {
		c, ok := <-todo
		if !ok {
			return nil
		}
		if err := r.ctl.gate(ctx); err != nil {
			return err
		}
		if err := r.pacer.begin(ctx); err != nil {
			return err
		}
		// A marker committed before the chunk's read: every change
		// before it in the binlog is committed, so the read sees it.
		var marker int64
		if r.skipSeen {
			if marker, err = writeMarker(ctx, r.db, r.id.Database, r.id.Name); err != nil {
				return err
			}
		}
		start := time.Now()
		n, err := r.copyChunk(ctx, conn, c)
		if err := r.pacer.end(ctx); err != nil {
			return err
		}
		if err != nil {
			return fmt.Errorf("alter: copy chunk %d of %s: %w", c.Seq, r.id, err)
		}
		r.copied.Add(n)
		if err := markChunk(ctx, r.db, r.id.Database, r.id.Name, c.Seq); err != nil {
			return fmt.Errorf("alter: record chunk %d: %w", c.Seq, err)
		}
		r.chunksDone.Add(1)
		if cr != nil {
			var seen int64 // 0 (not read in time): every parked key is applied
			if marker > 0 {
				seen, _ = r.tr.seqAt(ctx, marker, seenWait)
			}
			i := c.Seq - 1
			r.seen.Add(int64(r.keys.release(i, func() { cr.done[i].Store(true) }, seen)))
		}
		if r.o.afterChunk != nil {
			r.o.afterChunk(c.Seq)
		}
		if nice := r.ctl.niceRatio(); nice > 0 {
			if err := sleep(ctx, time.Duration(float64(time.Since(start))*nice)); err != nil {
				return err
			}
		}
	}
	return nil
}

// copyChunk copies chunk c: one INSERT IGNORE ... SELECT, or, with a
// chunk-rows line below the plan's chunk size, one for each piece of at
// most that many rows (the pieces partition the chunk, so a row inserted
// since is in one of them). It returns the rows copied.
func (r *runner) copyChunk(ctx context.Context, conn *sql.Conn, c chunk) (int64, error) {
	cols := r.columnList()
	force := ""
	if r.key.Index != "" {
		force = " FORCE INDEX (" + schema.QuoteMySQL(r.key.Index) + ")"
	}
	var total int64
	for lo := c.Lo; ; {
		hi := c.Hi
		if size := r.ctl.chunkRows(); size < r.o.ChunkRows {
			b, err := r.key.NextBoundBefore(ctx, conn, r.id, lo, c.Hi, size)
			if err != nil {
				return total, err
			}
			if b != nil {
				hi = b
			}
		}
		where, args, err := r.key.RangeWhere(lo, hi)
		if err != nil {
			return total, err
		}
		q := "INSERT IGNORE INTO " + r.quoted(shadowName(r.id.Name)) + " (" + cols + ") SELECT " + cols +
			" FROM " + r.quoted(r.id.Name) + force
		if where != "" {
			q += " WHERE " + where
		}
		res, err := execRetry(ctx, conn, q, args...)
		if err != nil {
			return total, err
		}
		n, _ := res.RowsAffected()
		total += n
		r.pieces.Add(1)
		if equalBound(hi, c.Hi) {
			return total, nil
		}
		lo = hi
	}
}

// equalBound tells whether two chunk bounds are the same key (nil: open).
func equalBound(a, b consistent.Bound) bool {
	if (a == nil) != (b == nil) || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}
