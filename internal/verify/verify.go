// Package verify proves that the target equals the source: it compares
// every selected table chunk by chunk with checksums computed inside both
// databases, narrows differing chunks down to rows, reports them, and on
// request repairs the target. docs/verify.md describes the method.
//
// This package runs the comparison (workers, chunk sizes, online
// re-checks, repairs, the report); what one table's comparison computes
// is internal/verify/verifydb, and the target side is the engine's
// (verifydb.Verifier, implemented in internal/sink/postgres and
// internal/sink/mysql).
package verify

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// Options configure a verify run.
type Options struct {
	Source config.MySQL
	// Engine is the target (what internal/target opens from --target); it
	// opens its side of the comparison (verifydb.Verifier). A MySQL/MariaDB
	// target compares source table db.t with t in the target URL's
	// database, stored values byte for byte (the snapshot's --zero-date and
	// --nul-char policies do not apply).
	Engine target.Engine
	Tables []*schema.Table // source tables to compare (schema.Load)
	Naming schema.Naming
	Mapper *typemap.Mapper // the snapshot's policies (--zero-date, --nul-char)

	Workers int // parallel chunk comparisons (each uses one connection per side)
	// ChunkRows fixes the rows per chunk; 0 adapts it so that a chunk takes
	// about ChunkTime.
	ChunkRows int
	ChunkTime time.Duration
	// FetchRows is the size up to which a differing chunk is fetched row
	// by row instead of being split further.
	FetchRows int
	MaxRateMB float64 // source MB/s over all workers; 0 = unlimited
	MaxDiffs  int     // rows listed per table in the report

	Repair    bool      // write the differing rows into the target
	RepairSQL io.Writer // or write the statements here instead

	Online      string // OnlineAuto, OnlineOn or OnlineOff
	Stream      string // replication stream whose checkpoint online mode waits for
	Recheck     int    // online re-reads of rows that still differ
	RecheckWait time.Duration

	Progress Progress // nil: none
	Log      *slog.Logger
}

func (o *Options) defaults() {
	if o.Workers <= 0 {
		o.Workers = 1
	}
	if o.ChunkTime <= 0 {
		o.ChunkTime = 500 * time.Millisecond
	}
	if o.FetchRows <= 0 {
		o.FetchRows = 1000
	}
	if o.MaxDiffs <= 0 {
		o.MaxDiffs = 100
	}
	if o.Recheck <= 0 {
		o.Recheck = 3
	}
	if o.RecheckWait <= 0 {
		o.RecheckWait = 30 * time.Second
	}
	if o.Stream == "" {
		o.Stream = checkpoint.DefaultStream
	}
	if o.Log == nil {
		o.Log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if o.Progress == nil {
		o.Progress = noProgress{}
	}
	if o.Mapper == nil {
		o.Mapper = typemap.New(typemap.DefaultOptions(), nil)
	}
}

// engine is one run's shared state.
type engine struct {
	o        Options
	src      *sql.DB
	tgt      verifydb.Target
	online   bool
	digest   verifydb.RowDigest // MD5, or SHA-256 on a source without MD5() (hash.go)
	throttle *throttle
	repairMu sync.Mutex // guards deferred and sqlRepairs (repair_order.go)
	// deferred are repairs a foreign key refused, tried again at the end.
	deferred []deferredRepair
	// sqlRepairs are the --repair-sql statements per target table.
	sqlRepairs map[string]*sqlRepair
	stalled    atomic.Bool // online: the replicator's checkpoint does not move
}

// Run compares the tables and returns the report. An error is returned
// only when nothing could be compared (connections, options); a table that
// fails is reported with ResultError and the others still run.
func Run(ctx context.Context, o Options) (*Report, error) {
	o.defaults()
	start := time.Now()
	// Each worker may hold a checksum query on both sides at once, plus the
	// producers' boundary queries and the online position/checkpoint reads.
	src, err := verifydb.OpenSource(ctx, o.Source, o.Workers+producers(o.Workers)+1)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	tgt, err := openTargetDB(ctx, &o)
	if err != nil {
		return nil, err
	}
	defer tgt.Close()
	o.Mapper = tgt.Mapper(o.Mapper)
	e := &engine{o: o, src: src, tgt: tgt, throttle: newThrottle(o.MaxRateMB * 1e6)}
	if e.online, err = resolveOnline(ctx, tgt, o.Online, o.Stream); err != nil {
		return nil, err
	}
	if e.digest, err = verifydb.ChooseDigest(ctx, src, tgt); err != nil {
		return nil, err
	}
	if e.digest != verifydb.DigestMD5 {
		o.Log.Info("the source has no MD5() (MySQL 9 without component_classic_hashing): rows are hashed with SHA-256 on both sides")
	}
	if e.online {
		o.Log.Info("online mode: differing rows are re-checked after the replicator's checkpoint passes them",
			"stream", o.Stream, "recheck", o.Recheck)
	}
	runs, rep := e.planTables(ctx)
	rep.Online = e.online
	switch {
	case o.RepairSQL != nil:
		rep.Repair = "sql"
	case o.Repair:
		rep.Repair = "applied"
	}
	e.runTables(ctx, runs)
	e.retryDeferred(ctx)
	if o.RepairSQL != nil {
		if err := e.writeRepairSQL(ctx, o.RepairSQL); err != nil {
			return nil, fmt.Errorf("--repair-sql: %w", err)
		}
	}
	quoted := map[string]string{} // db.table → its quoted source name
	for _, r := range runs {
		r.settle()
		rep.Tables = append(rep.Tables, r.rep)
		if r.plan != nil {
			quoted[r.rep.Table] = r.plan.MyTable
		}
	}
	e.notePolicyChanges(ctx, rep, quoted)
	rep.Seconds = time.Since(start).Seconds()
	rep.finish()
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	return rep, nil
}

// openTargetDB opens the target side of the comparison: the engine's
// (verifydb.Verifier), which holds its connections and its dialect.
func openTargetDB(ctx context.Context, o *Options) (verifydb.Target, error) {
	if o.Engine == nil {
		return nil, errors.New("verify: no target (Options.Engine)")
	}
	v, ok := o.Engine.(verifydb.Verifier)
	if !ok {
		return nil, exitcode.ConfigError(fmt.Errorf("verify: target %s cannot be compared", o.Engine.Redacted()))
	}
	return v.OpenVerify(ctx, o.openOptions())
}

func (o *Options) openOptions() verifydb.OpenOptions {
	return verifydb.OpenOptions{Conns: o.Workers + 2, Stream: o.Stream, Naming: o.Naming, Tables: o.Tables,
		Repair: o.Repair, Log: o.Log}
}

// planTables compiles every table; tables that cannot be compared are
// reported as errors right away.
func (e *engine) planTables(ctx context.Context) ([]*tableRun, *Report) {
	rep := &Report{}
	var runs []*tableRun
	var totalBytes int64
	for _, t := range e.o.Tables {
		r := &tableRun{rep: TableReport{Table: t.Database + "." + t.Name}}
		err := e.planTable(ctx, r, t)
		if err != nil {
			r.rep.Result, r.rep.Error = ResultError, err.Error()
			e.o.Log.Error("verify", "table", r.rep.Table, "error", err)
			rep.Tables = append(rep.Tables, r.rep)
			continue
		}
		totalBytes += r.plan.EstBytes
		runs = append(runs, r)
	}
	e.o.Progress.Start(len(runs), totalBytes)
	return runs, rep
}

func (e *engine) planTable(ctx context.Context, r *tableRun, t *schema.Table) error {
	tgtSchema, cols, err := e.tgt.Table(ctx, t)
	naming := e.o.Naming
	if e.o.Engine.Capabilities().KeepsSourceNames {
		naming = schema.Naming{} // the MySQL target keeps the source's names
	}
	r.rep.Target = tgtSchema + "." + naming.Table(t.TableID)
	if err != nil {
		return err
	}
	if cols == nil {
		return fmt.Errorf("target table %s.%s does not exist", tgtSchema, naming.Table(t.TableID))
	}
	p, err := verifydb.NewTablePlan(t, e.o.Mapper, naming, tgtSchema, cols, e.digest)
	if err != nil {
		return err
	}
	e.tgt.Prepare(p)
	if err := p.LoadStats(ctx, e.src); err != nil {
		return err
	}
	r.plan = p
	r.rep.Mode = p.Mode
	e.noteColumnOrder(ctx, r)
	r.repairedAll = e.o.Repair && e.o.RepairSQL == nil
	r.chunkRows.Store(int64(e.initialChunkRows()))
	return nil
}

func (e *engine) initialChunkRows() int {
	if e.o.ChunkRows > 0 {
		return e.o.ChunkRows
	}
	return 10_000
}

// producers is how many tables are split into chunks at the same time.
func producers(workers int) int { return min(max(workers/4, 1), 4) }

// runTables feeds chunk tasks of all tables to the workers.
func (e *engine) runTables(ctx context.Context, runs []*tableRun) {
	tasks := make(chan task, e.o.Workers*2)
	var workers sync.WaitGroup
	for range e.o.Workers {
		workers.Add(1)
		go func() {
			defer workers.Done()
			for t := range tasks {
				e.runTask(ctx, t)
			}
		}()
	}
	queue := make(chan *tableRun, len(runs))
	for _, r := range runs {
		queue <- r
	}
	close(queue)
	var prod, done sync.WaitGroup
	for range producers(e.o.Workers) {
		prod.Add(1)
		go func() {
			defer prod.Done()
			for r := range queue {
				r.start = time.Now()
				e.produce(ctx, r, tasks)
				done.Add(1)
				go func() {
					defer done.Done()
					r.pending.Wait()
					e.finishTable(r)
				}()
			}
		}()
	}
	prod.Wait()
	close(tasks)
	workers.Wait()
	done.Wait()
}

// task is one unit of work for a worker.
type task struct {
	run *tableRun
	s   verifydb.Scope
}

func (e *engine) runTask(ctx context.Context, t task) {
	defer t.run.pending.Done()
	if t.run.failed() || ctx.Err() != nil {
		return
	}
	var err error
	switch t.run.plan.Mode {
	case verifydb.ModeRange:
		err = e.compareChunk(ctx, t.run, t.s)
	case verifydb.ModeBucket:
		err = e.compareBuckets(ctx, t.run)
	case verifydb.ModeKeyless:
		err = e.compareMultiset(ctx, t.run)
	}
	if err != nil && !errors.Is(err, context.Canceled) {
		t.run.fail(err)
		e.o.Log.Error("verify", "table", t.run.rep.Table, "error", err)
	}
}

// finishTable closes a table's report.
func (e *engine) finishTable(r *tableRun) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rep.Seconds = time.Since(r.start).Seconds()
	sort.SliceStable(r.rep.Diffs, func(i, j int) bool { return r.rep.Diffs[i].sortKey < r.rep.Diffs[j].sortKey })
	r.rep.Result = r.resultLocked()
	e.o.Progress.TableDone(r.rep)
	e.o.Log.Debug("table verified", "table", r.rep.Table, "rows", r.rep.Rows, "chunks", r.rep.Chunks,
		"seconds", fmt.Sprintf("%.1f", r.rep.Seconds), "result", r.rep.Result, "differences", r.rep.Differences())
}

// resultLocked is the table's result from what is known now (r.mu held).
func (r *tableRun) resultLocked() string {
	switch {
	case r.rep.Error != "":
		return ResultError
	case r.rep.Differences() > 0 && r.repairedAll:
		return ResultRepaired
	case r.rep.Differences() > 0:
		return ResultDifferences
	case r.rep.InFlight > 0:
		return ResultInFlight
	}
	return ResultEqual
}

// settle recomputes the result after the repairs set aside for foreign
// keys were tried again (they may fail, or succeed, after the table finished).
func (r *tableRun) settle() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.rep.Result != "" {
		r.rep.Result = r.resultLocked()
	}
}
