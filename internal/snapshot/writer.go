package snapshot

import (
	"context"
	"database/sql"
	"sync"
)

// chunkWriter is a target's side of the copy loop. The loop itself (one
// worker per reader session of the consistent point, the scheduler, the
// key-range chunks, the chunk hash) is the source's and the same for every
// target; a writer plans a table's chunks into its own run state and
// writes a chunk together with its done row in one target transaction.
// *runner writes PostgreSQL (binary COPY, state in schema sluice);
// *myRunner writes MySQL/MariaDB (multi-row INSERTs of the source's bytes,
// state in database sluice, mysqltarget*.go).
type chunkWriter interface {
	// prepare makes a table's chunks known (on resume: re-checks the chunks
	// an earlier pass copied) and queues them.
	prepare(ctx context.Context, sess *sql.Conn, j *tableJob) error
	// copyChunk reads a chunk on the reader session and writes it.
	copyChunk(ctx context.Context, sess *sql.Conn, t *task) error
}

// runWorkers runs one worker per reader session until the scheduler has no
// work left or a task failed (the first error is in s.failed()).
func runWorkers(ctx context.Context, cancel context.CancelFunc, s *scheduler, sessions []*sql.Conn, w chunkWriter) {
	var wg sync.WaitGroup
	for _, sess := range sessions {
		wg.Add(1)
		go func() {
			defer wg.Done()
			worker(ctx, cancel, s, sess, w)
		}()
	}
	wg.Wait()
}

func worker(ctx context.Context, cancel context.CancelFunc, s *scheduler, sess *sql.Conn, w chunkWriter) {
	for {
		t := s.next()
		if t == nil {
			return
		}
		var err error
		if t.chunk == nil {
			err = w.prepare(ctx, sess, t.job)
		} else {
			err = w.copyChunk(ctx, sess, t)
		}
		if err != nil {
			if ctx.Err() != nil && s.failed() != nil {
				err = s.failed() // a consequence of the first failure
			}
			s.fail(err)
			cancel()
		}
		s.done()
	}
}
