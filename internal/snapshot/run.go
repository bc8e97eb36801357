package snapshot

import (
	"context"
	"errors"
	"fmt"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// tableJob is one table of the run: the writer's job (how it is read and
// its target table), the table's --where and --mask, and the runner's
// progress of it.
type tableJob struct {
	*bulkrun.Job
	// policy is the table's --where (in the chunk SELECT) and --mask (on
	// every row read, before the writer sees it).
	policy rowpolicy.Read
	size   mysnap.Size
	order  int // position in the work order (largest first)
	// copied and copiedAll are this run's progress (progress.go): rows
	// copied, every chunk copied.
	copied    atomic.Int64
	copiedAll atomic.Bool

	mu       sync.Mutex
	planned  bool
	pending  int  // chunks known and not yet copied
	finished bool // post-data started
}

// runner holds one Run's source side and shared state; w is the target's.
// The embedded bulkrun.Run is what the writer reads of it (the source, the
// catalog, the jobs, the pass and its position).
type runner struct {
	*bulkrun.Run
	o       Options
	w       bulkWriter
	start   time.Time
	limit   *mysnap.Throttle // --max-rate; nil: none
	jobs    []*tableJob
	byID    map[schema.TableID]*tableJob
	report  *Report
	resumed bool

	sched   *scheduler
	prog    *progress
	postWG  sync.WaitGroup
	postCtx context.Context
	postSem chan struct{}
	stats   chunkStats
}

// Run performs a snapshot. Errors carry exit codes (exitcode.Of): 2 for
// configuration and pre-flight problems, 1 for failures while copying.
func Run(ctx context.Context, opts Options) (rep *Report, err error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if !o.DryRun {
		card := o.Board.Snapshot(o.Stream)
		defer func() { card.Finish(err) }()
	}
	if o.Recopy {
		return runRecopy(ctx, o)
	}
	r := &runner{o: o, start: time.Now(), byID: map[schema.TableID]*tableJob{},
		limit: mysnap.NewThrottle(o.MaxRate)}
	r.report = &Report{Stream: o.Stream, Mode: "full"}
	r.Run = &bulkrun.Run{Opts: o.bulkOptions(), Log: o.Log, RunFingerprint: r.runFingerprint,
		Report: &bulkrun.Notes{NotMigrated: &r.report.NotMigrated, Created: &r.report.Created}}
	if r.w, err = newWriter(r); err != nil {
		return nil, err
	}
	switch {
	case o.DryRun:
		r.report.Mode = "dry-run"
	case o.SchemaOnly:
		r.report.Mode = "schema-only"
	case o.DataOnly:
		r.report.Mode = "data-only"
	}
	defer r.close()
	defer tuneGC()()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	if err := r.loadSource(ctx); err != nil {
		return nil, err
	}
	if err := r.checkCopyRetention(ctx); err != nil {
		return nil, err
	}
	if o.DryRun {
		return r.dryRun(), nil
	}
	return r.run(ctx)
}

// newWriter picks the target engine's writer: the engine's own, through
// the rich contract (bulkrun.Engine: PostgreSQL, MySQL) or the exported
// slim one (target.Snapshotter, writer_engine.go).
func newWriter(r *runner) (bulkWriter, error) {
	if e, ok := r.o.Target.(bulkrun.Engine); ok {
		return e.SnapshotWriter(r.Run)
	}
	if s, ok := r.o.Target.(targets.Snapshotter); ok {
		return newEngineWriter(r, s)
	}
	return nil, exitcode.ConfigError(fmt.Errorf("snapshot: a %s target (%s) is not supported by this command",
		r.o.Target.Name(), r.o.Target.Redacted()))
}

// run takes the stream's lock and copies: a new run, a resumed one, or
// --schema-only.
func (r *runner) run(ctx context.Context) (*Report, error) {
	if err := r.w.EnsureState(ctx); err != nil {
		return nil, err
	}
	if err := r.w.LockStream(ctx); err != nil {
		return nil, err
	}
	if r.o.Restart {
		if err := r.restart(ctx); err != nil {
			return nil, err
		}
	}
	run, err := r.w.LoadRun(ctx)
	if err != nil {
		return nil, err
	}
	var acts map[schema.TableID]action
	switch {
	case r.o.SchemaOnly:
		return r.schemaOnly(ctx, run)
	case run != nil && run.Status == "complete":
		return r.alreadyComplete(ctx, run)
	case run != nil:
		err = r.checkResume(ctx, run)
	default:
		acts, err = r.checkTargets(ctx)
	}
	if err != nil {
		return nil, err
	}
	point, err := r.openPoint(ctx)
	if err != nil {
		return nil, err
	}
	defer point.Close()
	if run == nil {
		if err := r.w.CreateTables(ctx, acts); err != nil {
			return nil, err
		}
	}
	if err := r.copyAll(ctx, point); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("snapshot interrupted (%w): the chunks copied so far are kept; run the same command again to resume", err)
		}
		return nil, err
	}
	// End the source transactions now: a long-open snapshot holds back
	// InnoDB purge, and the rest only writes to the target.
	point.Close()
	if err := r.w.Finish(ctx); err != nil {
		return nil, err
	}
	return r.finalReport(ctx)
}

func (r *runner) close() {
	r.w.Close()
	if r.Src != nil {
		r.Src.Close()
	}
}

// connect opens the source pool (one connection per reader session, one
// for metadata, one for the lock), then the target.
func (r *runner) connect(ctx context.Context) error {
	var err error
	if r.Src, err = mysnap.OpenSource(ctx, r.o.Source, r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", r.o.Source.Redacted(), err))
	}
	return r.w.Connect(ctx)
}

// loadSource reads the source schema and has the writer plan every table:
// anything sluice cannot copy stops here, before a single row is copied.
func (r *runner) loadSource(ctx context.Context) error {
	if err := r.w.RefuseOptions(); err != nil {
		return err
	}
	var err error
	if r.Filter, err = schema.NewFilter(r.o.Include, r.o.Exclude, r.o.Source.Database); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.Naming, err = schema.NewNamingOptions(r.o.NamingOptions()); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.Cat, err = r.loadCatalog(ctx); err != nil {
		return err
	}
	if err := r.o.RowPolicy.Check(r.Cat.Tables); err != nil {
		return err
	}
	planned, err := r.w.Plan(ctx)
	if err != nil {
		return err
	}
	for _, j := range planned {
		r.jobs = append(r.jobs, &tableJob{Job: j})
	}
	if err := r.planPolicy(); err != nil {
		return err
	}
	sizes, err := r.Src.TableSizes(ctx, r.Cat.Tables)
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		j.size = sizes[j.Source.TableID]
		r.byID[j.Source.TableID] = j
	}
	sort.SliceStable(r.jobs, func(a, b int) bool { return r.jobs[a].size.Bytes > r.jobs[b].size.Bytes })
	r.Jobs = make([]*bulkrun.Job, len(r.jobs))
	for i, j := range r.jobs {
		j.order = i
		r.Jobs[i] = j.Job
	}
	for _, o := range r.Cat.NotMigrated {
		r.report.NotMigrated = append(r.report.NotMigrated, o.String())
	}
	return nil
}

// loadCatalog runs schema.Load; an --include naming a missing table is a
// configuration error.
func (r *runner) loadCatalog(ctx context.Context) (*schema.Catalog, error) {
	cat, err := schema.Load(ctx, r.Src.DB, r.Filter)
	if err != nil {
		// An unknown literal --include is already a configuration error.
		return nil, fmt.Errorf("source: %w", err)
	}
	return cat, nil
}

// sameTables reports the tables whose definition differs between two
// catalogs (or that only one has).
func changedTables(a, b []*schema.Table) []string {
	am := map[schema.TableID]string{}
	for _, t := range a {
		am[t.TableID] = tableJSON(t)
	}
	var out []string
	seen := map[schema.TableID]bool{}
	for _, t := range b {
		seen[t.TableID] = true
		if am[t.TableID] != tableJSON(t) {
			out = append(out, t.TableID.String())
		}
	}
	for id := range am {
		if !seen[id] {
			out = append(out, id.String())
		}
	}
	sort.Strings(out)
	return out
}

// errStop is the error workers get after another worker failed.
var errStop = errors.New("stopped")

// dryRun is the report of --dry-run: every table in scope with the source's
// size estimate and the DDL the snapshot would run, in the copy's order.
// Nothing is written to the target.
func (r *runner) dryRun() *Report {
	rep := r.report
	rep.Tables = len(r.jobs)
	for _, j := range r.jobs {
		rep.Plan = append(rep.Plan, PlannedTable{Source: j.Source.TableID.String(), Target: j.Out.TargetName(),
			Rows: j.size.Rows, Bytes: j.size.Bytes, DDL: j.Out.DryRunDDL(), Warnings: j.Out.PlanWarnings(),
			Where: j.policy.Where, Masks: j.policy.Masks})
	}
	return rep
}

// planPolicy resolves each job's --where and --mask for its read.
func (r *runner) planPolicy() error {
	if r.o.RowPolicy.Empty() {
		return nil
	}
	for _, j := range r.jobs {
		plain := make([]bool, len(j.Cols))
		for i, c := range j.Cols {
			// The column itself, or its stored bytes (the MySQL writer's
			// CAST AS BINARY): for the UTF-8 text masks accept, both are
			// the bytes the binlog gives.
			q := schema.QuoteMySQL(j.Source.Columns[c].Name)
			plain[i] = j.Selects[i] == q || j.Selects[i] == "CAST("+q+" AS BINARY)"
		}
		var err error
		if j.policy, err = r.o.RowPolicy.ForRead(j.Source, j.Cols, plain); err != nil {
			return err
		}
	}
	return nil
}
