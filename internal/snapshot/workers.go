package snapshot

import (
	"context"
	"database/sql"
	"sync"
)

// runWorkers runs one worker per reader session until the scheduler has no
// work left or a task failed (the first error is in s.failed()).
func runWorkers(ctx context.Context, cancel context.CancelFunc, s *scheduler, sessions []*sql.Conn, w *runner) {
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

// worker runs tasks on one reader session: a table's preparation (its
// chunks planned, or re-checked on resume) or a chunk's copy.
func worker(ctx context.Context, cancel context.CancelFunc, s *scheduler, sess *sql.Conn, w *runner) {
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
