package snapshot

import (
	"context"
	"errors"
	"fmt"
	"github.com/sluice-db/sluice/internal/rowpolicy"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	targets "github.com/sluice-db/sluice/internal/target"
)

// tableJob is one table of the run: how it is read, the writer's plan of
// its target table, and its progress.
type tableJob struct {
	t   *schema.Table
	out targetTable // the writer's plan of the target table
	key *mysnap.Key // nil: copied as one chunk
	// cols are the copied columns, selects their MySQL select expressions
	// (both the writer's choice).
	cols    []int
	selects []string
	// policy is the table's --where (in the chunk SELECT) and --mask (on
	// every row read, before the writer sees it).
	policy rowpolicy.Read
	// keyPos are the positions of the key columns among cols (for messages).
	keyPos []int
	// rangeSafe: the target orders and compares the key as the source does,
	// so a chunk's rows can be deleted by range on the target.
	rangeSafe bool
	size      mysnap.Size
	order     int // position in the work order (largest first)
	state     *tableState
	// copied and copiedAll are this run's progress (progress.go): rows
	// copied, every chunk copied.
	copied    atomic.Int64
	copiedAll atomic.Bool

	mu       sync.Mutex
	planned  bool
	pending  int  // chunks known and not yet copied
	finished bool // post-data started
	touched  bool // a chunk was copied in this pass
}

// runner holds one Run's source side and shared state; w is the target's.
type runner struct {
	o       Options
	w       bulkWriter
	log     *slog.Logger
	start   time.Time
	src     *mysnap.Source
	limit   *mysnap.Throttle // --max-rate; nil: none
	filter  schema.Filter
	naming  schema.Naming
	cat     *schema.Catalog
	jobs    []*tableJob
	byID    map[schema.TableID]*tableJob
	report  *Report
	pass    int
	pos     binlogpos.Position
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
	r := &runner{o: o, log: o.Log, start: time.Now(), byID: map[schema.TableID]*tableJob{},
		limit: mysnap.NewThrottle(o.MaxRate)}
	if r.w, err = newWriter(r); err != nil {
		return nil, err
	}
	r.report = &Report{Stream: o.Stream, Mode: "full"}
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
// the exported bulk contract (target.Snapshotter), or else the PostgreSQL
// or MySQL writer of this package by the engine's parsed settings
// (target.Parsed). That choice is the one left in this package until those
// two writers move into their engines' packages behind the same contract.
func newWriter(r *runner) (bulkWriter, error) {
	if s, ok := r.o.Target.(targets.Snapshotter); ok {
		return newEngineWriter(r, s)
	}
	if my := targets.MySQLOf(r.o.Target); my != nil {
		return newMyWriter(r, *my)
	}
	if pg, ok := targets.PostgresOf(r.o.Target); ok {
		return &pgWriter{runner: r, cfg: pg}, nil
	}
	return nil, exitcode.ConfigError(fmt.Errorf("snapshot: a %s target (%s) is not supported by this command",
		r.o.Target.Name(), r.o.Target.Redacted()))
}

// run takes the stream's lock and copies: a new run, a resumed one, or
// --schema-only.
func (r *runner) run(ctx context.Context) (*Report, error) {
	if err := r.w.ensureState(ctx); err != nil {
		return nil, err
	}
	if err := r.w.lockStream(ctx); err != nil {
		return nil, err
	}
	if r.o.Restart {
		if err := r.restart(ctx); err != nil {
			return nil, err
		}
	}
	run, err := r.w.loadRun(ctx)
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
		if err := r.w.createTables(ctx, acts); err != nil {
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
	if err := r.w.finish(ctx); err != nil {
		return nil, err
	}
	return r.finalReport(ctx)
}

func (r *runner) close() {
	r.w.close()
	if r.src != nil {
		r.src.Close()
	}
}

// connect opens the source pool (one connection per reader session, one
// for metadata, one for the lock), then the target.
func (r *runner) connect(ctx context.Context) error {
	var err error
	if r.src, err = mysnap.OpenSource(ctx, r.o.Source, r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", r.o.Source.Redacted(), err))
	}
	return r.w.connect(ctx)
}

// loadSource reads the source schema and has the writer plan every table:
// anything sluice cannot copy stops here, before a single row is copied.
func (r *runner) loadSource(ctx context.Context) error {
	if err := r.w.refuseOptions(); err != nil {
		return err
	}
	var err error
	if r.filter, err = schema.NewFilter(r.o.Include, r.o.Exclude, r.o.Source.Database); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.naming, err = schema.NewNamingOptions(r.o.NamingOptions()); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.cat, err = r.loadCatalog(ctx); err != nil {
		return err
	}
	if err := r.o.RowPolicy.Check(r.cat.Tables); err != nil {
		return err
	}
	if r.jobs, err = r.w.plan(ctx); err != nil {
		return err
	}
	if err := r.planPolicy(); err != nil {
		return err
	}
	sizes, err := r.src.TableSizes(ctx, r.cat.Tables)
	if err != nil {
		return err
	}
	for _, j := range r.jobs {
		j.size = sizes[j.t.TableID]
		r.byID[j.t.TableID] = j
	}
	sort.SliceStable(r.jobs, func(a, b int) bool { return r.jobs[a].size.Bytes > r.jobs[b].size.Bytes })
	for i, j := range r.jobs {
		j.order = i
	}
	for _, o := range r.cat.NotMigrated {
		r.report.NotMigrated = append(r.report.NotMigrated, o.String())
	}
	return nil
}

// refuseEmpty refuses a scope without tables.
func (r *runner) refuseEmpty() error {
	if len(r.cat.Tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope (%s) on the source: check --include/--exclude and the database in --source", r.filter))
	}
	return nil
}

// loadCatalog runs schema.Load; an --include naming a missing table is a
// configuration error.
func (r *runner) loadCatalog(ctx context.Context) (*schema.Catalog, error) {
	cat, err := schema.Load(ctx, r.src.DB, r.filter)
	if err != nil {
		// An unknown literal --include is already a configuration error.
		return nil, fmt.Errorf("source: %w", err)
	}
	return cat, nil
}

// newJob is a job for t with the writer's plan of its target table and
// copied columns; it finds the key the chunks split (warnings: none usable).
func newJob(t *schema.Table, out targetTable, cols []int, selects []string) (j *tableJob, warnings []string) {
	j = &tableJob{t: t, out: out, cols: cols, selects: selects}
	key, err := mysnap.NewKey(t)
	switch {
	case err != nil:
		warnings = append(warnings, fmt.Sprintf("%s: copied as one chunk: %v", t.TableID, err))
		key = nil
	case key == nil:
		warnings = append(warnings, fmt.Sprintf("%s: no primary key or NOT NULL unique key: copied as one chunk "+
			"(not split, and an interrupted copy of it starts over)", t.TableID))
	}
	j.key = key
	if key != nil {
		for _, name := range key.Names() {
			ci := t.ColumnIndex(name)
			for p, c := range j.cols {
				if c == ci {
					j.keyPos = append(j.keyPos, p)
				}
			}
		}
	}
	return j, warnings
}

// nonTransactional warns about a source table whose engine is not among
// the transactional ones the consistent snapshot covers.
func nonTransactional(t *schema.Table, txn ...string) []string {
	e := strings.ToLower(t.Engine)
	if e == "" || slices.Contains(txn, e) {
		return nil
	}
	return []string{fmt.Sprintf("%s: engine %s is not transactional: the consistent snapshot does not "+
		"cover it, rows written to it during the copy may be missing or extra", t.TableID, t.Engine)}
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
		rep.Plan = append(rep.Plan, PlannedTable{Source: j.t.TableID.String(), Target: j.out.targetName(),
			Rows: j.size.Rows, Bytes: j.size.Bytes, DDL: j.out.dryRunDDL(), Warnings: j.out.planWarnings(),
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
		plain := make([]bool, len(j.cols))
		for i, c := range j.cols {
			// The column itself, or its stored bytes (the MySQL writer's
			// CAST AS BINARY): for the UTF-8 text masks accept, both are
			// the bytes the binlog gives.
			q := mysnap.QuoteMy(j.t.Columns[c].Name)
			plain[i] = j.selects[i] == q || j.selects[i] == "CAST("+q+" AS BINARY)"
		}
		var err error
		if j.policy, err = r.o.RowPolicy.ForRead(j.t, j.cols, plain); err != nil {
			return err
		}
	}
	return nil
}
