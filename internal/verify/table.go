package verify

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// tableRun is the state of one table during a run.
type tableRun struct {
	plan      *tablePlan
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
func (r *tableRun) addDiffs(diffs []rowDiff, rechecked int64, maxDiffs int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Rechecked += rechecked
	for _, d := range diffs {
		switch d.kind {
		case OnlyInSource:
			r.rep.OnlyInSource++
		case OnlyInTarget:
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

// loadStats reads the source's row and size estimates of the table.
func (p *tablePlan) loadStats(ctx context.Context, db *sql.DB) error {
	var rows, data sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT TABLE_ROWS, DATA_LENGTH FROM information_schema.TABLES
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?`, p.table.Database, p.table.Name).Scan(&rows, &data)
	if err == sql.ErrNoRows {
		return fmt.Errorf("source table %s does not exist", p.name)
	}
	if err != nil {
		return fmt.Errorf("source table %s statistics: %w", p.name, err)
	}
	p.estRows, p.estBytes = max(rows.Int64, 0), max(data.Int64, 0)
	return nil
}

// bytesFor estimates the source bytes of n rows.
func (p *tablePlan) bytesFor(n int64) int64 {
	if p.estRows <= 0 {
		return 0
	}
	return n * p.estBytes / p.estRows
}

// produce splits a table into tasks and queues them.
func (e *engine) produce(ctx context.Context, r *tableRun, tasks chan<- task) {
	send := func(s scope) bool {
		r.pending.Add(1)
		select {
		case tasks <- task{run: r, s: s}:
			return true
		case <-ctx.Done():
			r.pending.Done()
			return false
		}
	}
	if r.plan.mode != modeRange {
		send(scope{})
		return
	}
	dense, err := r.plan.denseIntKey(ctx, e.src)
	if err != nil {
		r.fail(err)
		return
	}
	var lo keyBound
	for !r.failed() {
		var hi keyBound
		if dense != nil {
			hi = dense.next(lo, r.plan.capRows(r.chunkRows.Load()))
		} else {
			hi, err = r.plan.stepBound(ctx, e.src, lo, nil, int(r.plan.capRows(r.chunkRows.Load())))
		}
		if err != nil {
			r.fail(err)
			return
		}
		if !send(scope{lo: lo, hi: hi}) || hi == nil {
			return
		}
		lo = hi
	}
}

// denseKey describes a single integer key whose values fill their range
// (auto-increment keys): chunk boundaries are then computed, not read.
type denseKey struct {
	min, max int64
	perRow   float64 // key values per row
}

// denseIntKey returns the key's range when the key is one signed integer
// column and its values are dense (at most 2 key values per row on
// average), else nil: index stepping then keeps chunks even.
func (p *tablePlan) denseIntKey(ctx context.Context, db *sql.DB) (*denseKey, error) {
	if len(p.key) != 1 || p.cols[p.key[0]].Kind != typemap.KindInt {
		return nil, nil
	}
	k := schema.QuoteMySQL(p.cols[p.key[0]].Name)
	var lo, hi sql.NullInt64
	// An exact count costs a scan of the key; the statistics' estimate is
	// enough to choose the method (a wrong guess only makes chunks uneven).
	if err := db.QueryRowContext(ctx, "SELECT MIN("+k+"), MAX("+k+") FROM "+p.myTable).Scan(&lo, &hi); err != nil {
		return nil, fmt.Errorf("key range of %s: %w", p.name, err)
	}
	n := p.estRows
	if !lo.Valid || n <= 0 {
		return nil, nil
	}
	span := float64(hi.Int64) - float64(lo.Int64) + 1
	if span > 2*float64(n) {
		return nil, nil
	}
	return &denseKey{min: lo.Int64, max: hi.Int64, perRow: span / float64(n)}, nil
}

// next is the upper bound of the chunk after lo holding about n rows, or
// nil for the last (open) chunk.
func (d *denseKey) next(lo keyBound, n int64) keyBound {
	start := d.min - 1
	if lo != nil {
		start, _ = strconv.ParseInt(string(lo[0]), 10, 64)
	}
	step := int64(float64(n) * d.perRow)
	if step < 1 {
		step = 1
	}
	if start >= d.max-step {
		return nil
	}
	return keyBound{[]byte(strconv.FormatInt(start+step, 10))}
}

// stepBound returns the key prefix of the n-th row after lo (up to hi), or
// nil when fewer rows remain: the next chunk boundary, read from the
// source's key index.
func (p *tablePlan) stepBound(ctx context.Context, db *sql.DB, lo, hi keyBound, n int) (keyBound, error) {
	where, args, err := p.myRangeWhere(lo, hi)
	if err != nil {
		return nil, err
	}
	q := "SELECT " + strings.Join(p.myKeySel[:p.rangeN], ", ") + " FROM " + p.myTable + " WHERE " + where +
		" ORDER BY " + p.myKeyOrder(p.rangeN) + fmt.Sprintf(" LIMIT 1 OFFSET %d", max(n-1, 0))
	rows, err := db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("chunk boundary of %s: %w", p.name, err)
	}
	src := sqlRows{rows}
	defer src.Close()
	if !src.Next() {
		return nil, src.Err()
	}
	vals, err := src.Values(p.rangeN)
	if err != nil {
		return nil, fmt.Errorf("chunk boundary of %s: %w", p.name, err)
	}
	b := make(keyBound, len(vals))
	for i, v := range vals {
		b[i] = bytes.Clone(v)
	}
	return b, nil
}

// checksums computes a scope's checksum on both sides at the same time.
func (e *engine) checksums(ctx context.Context, p *tablePlan, s scope, byBucket bool) (src, tgt map[int]agg, err error) {
	var wg sync.WaitGroup
	var tgtErr error
	wg.Add(1)
	go func() {
		defer wg.Done()
		tgt, tgtErr = e.tgt.checksum(ctx, p, s, byBucket)
	}()
	src, err = p.sourceChecksum(ctx, e.src, s, byBucket)
	wg.Wait()
	if err == nil {
		err = tgtErr
	}
	return src, tgt, err
}

// compareChunk compares one key range and narrows a difference down to rows.
func (e *engine) compareChunk(ctx context.Context, r *tableRun, s scope) error {
	p := r.plan
	start := time.Now()
	if p.digestRows > 0 {
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
	b := r.plan.bytesFor(n)
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
func (e *engine) resolveRange(ctx context.Context, r *tableRun, s scope, srcRows int64) error {
	p := r.plan
	if srcRows > int64(e.o.FetchRows) {
		subs, err := p.split(ctx, e.src, s, e.o.FetchRows)
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

// split cuts a key range into ranges of about n source rows.
func (p *tablePlan) split(ctx context.Context, db *sql.DB, s scope, n int) ([]scope, error) {
	var subs []scope
	lo := s.lo
	for {
		b, err := p.stepBound(ctx, db, lo, s.hi, n)
		if err != nil {
			return nil, err
		}
		if b == nil || sameBound(b, s.hi) {
			return append(subs, scope{lo: lo, hi: s.hi}), nil
		}
		subs = append(subs, scope{lo: lo, hi: b})
		lo = b
	}
}

func sameBound(a, b keyBound) bool {
	if a == nil || b == nil || len(a) != len(b) {
		return false
	}
	for i := range a {
		if !bytes.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// compareBuckets compares a table whose key order differs between the
// engines: per-bucket checksums in one pass per side, then the rows of the
// differing buckets.
func (e *engine) compareBuckets(ctx context.Context, r *tableRun) error {
	p := r.plan
	per := r.chunkRows.Load()
	n := int(min(max(p.estRows/per, 1), 100_000))
	src, tgt, err := e.checksums(ctx, p, scope{nBuckets: n}, true)
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
	bytes := p.bytesFor(rows)
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
		err := e.diffScope(ctx, r, scope{nBuckets: n, buckets: batch})
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
func sortDiffs(d []rowDiff) {
	sort.Slice(d, func(i, j int) bool { return d[i].keyText() < d[j].keyText() })
}
