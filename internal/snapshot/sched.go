package snapshot

import (
	"container/heap"
	"sync"

	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// task is one unit of work for a reader session: prepare a table (plan its
// chunks, or on resume re-check the chunks an earlier pass copied), or copy
// one chunk.
type task struct {
	job   *tableJob
	chunk *mysnap.Chunk // nil: prepare job
	// recopy: the chunk was copied by an earlier pass and changed since;
	// its rows are deleted from the target first.
	recopy bool
}

// scheduler hands tasks to the workers: table preparations first (they
// produce the chunks), then chunks of the largest tables first. Workers
// block in next until work appears or everything is done.
type scheduler struct {
	mu     sync.Mutex
	cond   *sync.Cond
	prep   []*tableJob
	chunks chunkHeap
	active int
	err    error
}

func newScheduler(jobs []*tableJob) *scheduler {
	s := &scheduler{prep: append([]*tableJob(nil), jobs...)}
	s.cond = sync.NewCond(&s.mu)
	return s
}

// next returns the next task, or nil when all work is done or a task failed.
func (s *scheduler) next() *task {
	s.mu.Lock()
	defer s.mu.Unlock()
	for {
		switch {
		case s.err != nil:
			return nil
		case len(s.prep) > 0:
			j := s.prep[0]
			s.prep = s.prep[1:]
			s.active++
			return &task{job: j}
		case s.chunks.Len() > 0:
			s.active++
			return heap.Pop(&s.chunks).(*task)
		case s.active == 0:
			return nil
		}
		s.cond.Wait()
	}
}

// push adds a chunk task.
func (s *scheduler) push(t *task) {
	s.mu.Lock()
	heap.Push(&s.chunks, t)
	s.mu.Unlock()
	s.cond.Signal()
}

// done ends a task taken with next.
func (s *scheduler) done() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
	s.cond.Broadcast()
}

// fail records the first error; every worker stops at its next call to next.
func (s *scheduler) fail(err error) {
	s.mu.Lock()
	if s.err == nil {
		s.err = err
	}
	s.mu.Unlock()
	s.cond.Broadcast()
}

func (s *scheduler) failed() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// chunkHeap orders chunk tasks by table (largest first), then key order.
type chunkHeap []*task

func (h chunkHeap) Len() int { return len(h) }
func (h chunkHeap) Less(a, b int) bool {
	if h[a].job.order != h[b].job.order {
		return h[a].job.order < h[b].job.order
	}
	return h[a].chunk.Seq < h[b].chunk.Seq
}
func (h chunkHeap) Swap(a, b int) { h[a], h[b] = h[b], h[a] }
func (h *chunkHeap) Push(x any)   { *h = append(*h, x.(*task)) }
func (h *chunkHeap) Pop() any {
	old := *h
	t := old[len(old)-1]
	*h = old[:len(old)-1]
	return t
}
