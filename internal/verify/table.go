package verify

import (
	"context"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// tableRun is the state of one table during a run.
type tableRun struct {
	plan      *verifydb.Plan
	start     time.Time
	pending   sync.WaitGroup // tasks not finished yet
	chunkRows atomic.Int64   // current chunk size (adaptive)

	mu          sync.Mutex
	rep         TableReport
	repairedAll bool // every difference found so far was repaired and re-checked
}

func (r *tableRun) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rep.Error != ""
}

func (r *tableRun) fail(err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rep.Error == "" {
		r.rep.Error = err.Error()
	}
}

func (r *tableRun) addChunk(rows, bytes int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Rows += rows
	r.rep.Bytes += bytes
	r.rep.Chunks++
}

// addInFlight counts rows that still differed after every online re-check
// while their source side kept changing: in flight, not differences.
func (r *tableRun) addInFlight(n int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.InFlight += n
}

// addDiffs records differences in the report (listing at most maxDiffs).
func (r *tableRun) addDiffs(diffs []verifydb.RowDiff, rechecked int64, maxDiffs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Rechecked += rechecked
	for _, d := range diffs {
		switch d.Kind {
		case verifydb.OnlyInSource:
			r.rep.OnlyInSource++
		case verifydb.OnlyInTarget:
			r.rep.OnlyInTarget++
		default:
			r.rep.Differing++
		}
		if len(r.rep.Diffs) < maxDiffs {
			r.rep.Diffs = append(r.rep.Diffs, rowReport(r.plan, d))
		} else {
			r.rep.Truncated = true
		}
	}
}

// produce splits a table into tasks and queues them.
func (e *engine) produce(ctx context.Context, r *tableRun, tasks chan<- task) {
	send := func(s verifydb.Scope) bool {
		r.pending.Add(1)
		select {
		case tasks <- task{run: r, s: s}:
			return true
		case <-ctx.Done():
			r.pending.Done()
			return false
		}
	}
	if r.plan.Mode != verifydb.ModeRange {
		send(verifydb.Scope{})
		return
	}
	dense, err := r.plan.DenseIntKey(ctx, e.src)
	if err != nil {
		r.fail(err)
		return
	}
	var lo verifydb.KeyBound
	for !r.failed() {
		var hi verifydb.KeyBound
		if dense != nil {
			hi = dense.Next(lo, r.plan.CapRows(r.chunkRows.Load()))
		} else {
			hi, err = r.plan.StepBound(ctx, e.src, lo, nil, int(r.plan.CapRows(r.chunkRows.Load())))
		}
		if err != nil {
			r.fail(err)
			return
		}
		if !send(verifydb.Scope{Lo: lo, Hi: hi}) || hi == nil {
			return
		}
		lo = hi
	}
}

// checksums computes a scope's checksum on both sides at the same time.
func (e *engine) checksums(ctx context.Context, p *verifydb.Plan, s verifydb.Scope, byBucket bool) (src, tgt map[int]verifydb.Agg, err error) {
	var wg sync.WaitGroup
	var tgtErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tgt, tgtErr = e.tgt.Checksum(ctx, p, s, byBucket)
	}()
	src, err = p.SourceChecksum(ctx, e.src, s, byBucket)
	wg.Wait()
	if err == nil {
		err = tgtErr
	}
	return src, tgt, err
}

// compareChunk compares one key range and narrows a difference down to rows.
func (e *engine) compareChunk(ctx context.Context, r *tableRun, s verifydb.Scope) error {
	p := r.plan
	start := time.Now()
	if p.DigestRows > 0 {
		sd, td, err := e.digests(ctx, p, s)
		if err != nil {
			return err
		}
		if sd == td {
			return e.chunkDone(ctx, r, sd.Count, time.Since(start))
		}
		// Differing digests prove nothing (digest.go): the row-hash sums decide.
	}
	src, tgt, err := e.checksums(ctx, p, s, false)
	if err != nil {
		return err
	}
	n := src[0].Count
	if err := e.chunkDone(ctx, r, n, time.Since(start)); err != nil {
		return err
	}
	if src[0] == tgt[0] {
		return nil
	}
	return e.resolveRange(ctx, r, s, n)
}

// chunkDone accounts a compared chunk of n source rows: chunk size,
// report, progress and the rate limit.
func (e *engine) chunkDone(ctx context.Context, r *tableRun, n int64, took time.Duration) error {
	e.adaptChunk(r, n, took)
	b := r.plan.BytesFor(n)
	r.addChunk(n, b)
	e.o.Progress.Advance(b)
	return e.throttle.wait(ctx, b)
}

// adaptChunk steers the chunk size towards ChunkTime per chunk.
func (e *engine) adaptChunk(r *tableRun, rows int64, took time.Duration) {
	if e.o.ChunkRows > 0 || rows < 100 || took <= 0 {
		return
	}
	want := float64(rows) * float64(e.o.ChunkTime) / float64(took)
	cur := float64(r.chunkRows.Load())
	next := int64(0.5*cur + 0.5*want)
	r.chunkRows.Store(min(max(next, 1000), 1_000_000))
}

// resolveRange finds the differing rows of a key range whose checksums
// differ: small ranges are compared row by row, larger ones are split into
// ranges of FetchRows rows whose checksums are compared first.
func (e *engine) resolveRange(ctx context.Context, r *tableRun, s verifydb.Scope, srcRows int64) error {
	p := r.plan
	if srcRows > int64(e.o.FetchRows) {
		subs, err := p.Split(ctx, e.src, s, e.o.FetchRows)
		if err != nil {
			return err
		}
		if len(subs) > 1 {
			for _, sub := range subs {
				src, tgt, err := e.checksums(ctx, p, sub, false)
				if err != nil {
					return err
				}
				if src[0] == tgt[0] {
					continue
				}
				if err := e.resolveRange(ctx, r, sub, src[0].Count); err != nil {
					return err
				}
			}
			return nil
		}
	}
	return e.diffScope(ctx, r, s)
}

// compareBuckets compares a table whose key order differs between the
// engines: per-bucket checksums in one pass per side, then the rows of the
// differing buckets.
func (e *engine) compareBuckets(ctx context.Context, r *tableRun) error {
	p := r.plan
	per := r.chunkRows.Load()
	n := int(min(max(p.EstRows/per, 1), 100_000))
	src, tgt, err := e.checksums(ctx, p, verifydb.Scope{NBuckets: n}, true)
	if err != nil {
		return err
	}
	var rows int64
	var differ []int
	for b := range n {
		rows += src[b].Count
		if src[b] != tgt[b] {
			differ = append(differ, b)
		}
	}
	bytes := p.BytesFor(rows)
	r.mu.Lock()
	r.rep.Rows, r.rep.Bytes, r.rep.Chunks = rows, bytes, int64(n)
	r.mu.Unlock()
	e.o.Progress.Advance(bytes)
	// Fetch the differing buckets in batches of about one chunk of rows.
	var batch []int
	var batchRows int64
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		err := e.diffScope(ctx, r, verifydb.Scope{NBuckets: n, Buckets: batch})
		batch, batchRows = nil, 0
		return err
	}
	for _, b := range differ {
		batch = append(batch, b)
		batchRows += max(src[b].Count, tgt[b].Count)
		if batchRows >= per {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// sortDiffs orders differences by key text, for stable reports.
func sortDiffs(d []verifydb.RowDiff) {
	sort.Slice(d, func(i, j int) bool { return d[i].KeyText() < d[j].KeyText() })
}
