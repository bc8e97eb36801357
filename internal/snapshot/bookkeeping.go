package snapshot

import "sync"

// Chunk and table bookkeeping shared by the runner of every target engine.

// chunkStats counts a run's chunks by what happened to them.
type chunkStats struct {
	mu                     sync.Mutex
	copied, kept, recopied int
}

// done counts a chunk copied (again, when recopy: it changed since an
// earlier pass).
func (s *chunkStats) done(recopy bool) {
	s.mu.Lock()
	if recopy {
		s.recopied++
	} else {
		s.copied++
	}
	s.mu.Unlock()
}

// keep counts a chunk an earlier pass copied and that did not change.
func (s *chunkStats) keep() {
	s.mu.Lock()
	s.kept++
	s.mu.Unlock()
}

// fill writes the counts into the report.
func (s *chunkStats) fill(rep *Report) {
	s.mu.Lock()
	rep.ChunksCopied, rep.ChunksKept, rep.ChunksRecopied = s.copied, s.kept, s.recopied
	s.mu.Unlock()
}

// markPlanned notes that all of j's chunks are known.
func (j *tableJob) markPlanned() {
	j.mu.Lock()
	j.planned = true
	j.mu.Unlock()
}

// chunkCopied notes one of j's chunks copied in this pass.
func (j *tableJob) chunkCopied() {
	j.mu.Lock()
	j.pending--
	j.Touched.Store(true)
	j.mu.Unlock()
}

// finishNow reports true exactly once: when j's chunks are all known and
// copied, so its post-data work may start.
func (j *tableJob) finishNow() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	if !j.planned || j.pending != 0 || j.finished {
		return false
	}
	j.finished = true
	return true
}
