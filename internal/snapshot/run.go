package snapshot

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// tableJob is one table of the run: its plan, how it is read and written,
// and its progress.
type tableJob struct {
	t     *schema.Table
	plan  *ddl.TablePlan // PostgreSQL target
	my    *myTable       // MySQL target
	ident pgx.Identifier // target table
	key   *mysnap.Key    // nil: copied as one chunk
	// cols are the copied columns (ddl.WritableColumns), selects their
	// MySQL select expressions, names their target column names.
	cols    []int
	selects []string
	names   []string
	// keyPos are the positions of the key columns among cols (for messages).
	keyPos []int
	// rangeSafe: the key compares alike in MySQL and PostgreSQL (integers,
	// decimals), so a chunk's rows can be deleted by range on the target.
	rangeSafe bool
	size      mysnap.Size
	order     int // position in the work order (largest first)
	state     *tableState

	mu       sync.Mutex
	planned  bool
	pending  int  // chunks known and not yet copied
	finished bool // post-data started
	touched  bool // a chunk was copied in this pass
}

// runner holds one Run's connections and shared state.
type runner struct {
	o       Options
	log     *slog.Logger
	start   time.Time
	src     *mysnap.Source
	limit   *mysnap.Throttle // --max-rate; nil: none
	pg      *pgxpool.Pool
	filter  schema.Filter
	naming  schema.Naming
	cat     *schema.Catalog
	mopts   typemap.Options
	jobs    []*tableJob
	byID    map[schema.TableID]*tableJob
	report  *Report
	lock    *pgxpool.Conn // holds the stream's snapshot lock
	pass    int
	pos     binlogpos.Position
	resumed bool
	// replicaRole: some target table has foreign keys already (tables the
	// user created), so TRUNCATE is not used (COPY always runs with
	// session_replication_role = replica, which skips their checks).
	replicaRole bool

	sched   *scheduler
	prog    *progress
	postWG  sync.WaitGroup
	postCtx context.Context
	postSem chan struct{}
	stats   chunkStats
}

// Run performs a snapshot. Errors carry exit codes (exitcode.Of): 2 for
// configuration and pre-flight problems, 1 for failures while copying.
func Run(ctx context.Context, opts Options) (*Report, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if o.Recopy {
		return runRecopy(ctx, o)
	}
	if o.MySQLTarget != nil {
		return runMySQL(ctx, o)
	}
	r := &runner{o: o, log: o.Log, start: time.Now(), byID: map[schema.TableID]*tableJob{},
		limit: mysnap.NewThrottle(o.MaxRate)}
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
	if err := ensureState(ctx, r.pg); err != nil {
		return nil, err
	}
	if err := r.lockStream(ctx); err != nil {
		return nil, err
	}
	if o.Restart {
		if err := r.restart(ctx); err != nil {
			return nil, err
		}
	}
	run, err := loadRun(ctx, r.pg, o.Stream)
	if err != nil {
		return nil, err
	}
	var acts map[schema.TableID]action
	switch {
	case o.SchemaOnly:
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
		if err := r.createTargets(ctx, acts); err != nil {
			return nil, err
		}
	}
	if err := r.detectForeignKeys(ctx); err != nil {
		return nil, err
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
	if err := r.finish(ctx); err != nil {
		return nil, err
	}
	return r.finalReport(ctx)
}

func (r *runner) close() {
	if r.lock != nil {
		_, _ = r.lock.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", lockKey(r.o.Stream))
		r.lock.Release()
	}
	if r.src != nil {
		r.src.Close()
	}
	if r.pg != nil {
		r.pg.Close()
	}
}

// connect opens the source pool (one connection per reader session, one
// for metadata, one for the lock) and the target pool (a COPY and an index
// build per worker, plus bookkeeping).
func (r *runner) connect(ctx context.Context) error {
	var err error
	if r.src, err = mysnap.OpenSource(ctx, r.o.Source, r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", r.o.Source.Redacted(), err))
	}
	if r.pg, err = postgres.Connect(ctx, r.o.Target.ConnString(), 2*r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", r.o.Target.Redacted(), err))
	}
	return nil
}

// lockKey names the advisory lock a snapshot of a stream holds:
// pg_advisory_lock(hashtext('sluice snapshot <stream>')).
func lockKey(stream string) string { return "sluice snapshot " + stream }

// lockStream makes sure one snapshot per stream runs at a time: a session
// advisory lock, released when the run ends or its connection dies.
func (r *runner) lockStream(ctx context.Context) error {
	c, err := r.pg.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	deadline := time.Now().Add(r.o.StreamLockWait)
	for {
		var ok bool
		if err := c.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1))", lockKey(r.o.Stream)).Scan(&ok); err != nil {
			c.Release()
			return fmt.Errorf("target: lock stream %q: %w", r.o.Stream, err)
		}
		if ok {
			r.lock = c
			return nil
		}
		if time.Now().After(deadline) {
			c.Release()
			return exitcode.ConfigError(fmt.Errorf("another sluice snapshot of stream %q is running against this target "+
				"(waited %s for its lock); wait for it to finish, or use another --stream", r.o.Stream, r.o.StreamLockWait))
		}
		select {
		case <-ctx.Done():
			c.Release()
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// loadSource reads the source schema, compiles every table's converters
// and plans its DDL: anything sluice cannot translate stops here, before a
// single row is copied.
func (r *runner) loadSource(ctx context.Context) error {
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
	var dbs []string
	for _, d := range r.cat.Databases {
		dbs = append(dbs, d.Name)
	}
	if err := r.naming.CheckDatabases(dbs); err != nil {
		return exitcode.ConfigError(err)
	}
	if err := r.naming.Check(r.cat.Tables); err != nil {
		return exitcode.ConfigError(err)
	}
	for _, u := range r.naming.Unmatched(r.cat.Tables) {
		r.log.Warn("naming entry matches nothing yet; it applies when DDL creates it (a typo?)", "entry", u)
	}
	if len(r.cat.Tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope (%s) on the source: check --include/--exclude and the database in --source", r.filter))
	}
	if r.mopts, err = r.typeOptions(ctx); err != nil {
		return err
	}
	plans, err := ddl.CreateTables(r.cat.Tables, typemap.New(r.mopts, nil), r.naming)
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("cannot translate the schema: %w", err))
	}
	sizes, err := r.src.TableSizes(ctx, r.cat.Tables)
	if err != nil {
		return err
	}
	for i, t := range r.cat.Tables {
		j, err := r.newJob(t, plans[i])
		if err != nil {
			return exitcode.ConfigError(err)
		}
		j.size = sizes[t.TableID]
		r.jobs = append(r.jobs, j)
		r.byID[t.TableID] = j
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

// typeOptions are the conversion policies plus what the servers offer:
// PostGIS on the target, the source's charset tables.
func (r *runner) typeOptions(ctx context.Context) (typemap.Options, error) {
	opts := typemap.Options{ZeroDate: r.o.ZeroDate, Nul: r.o.Nul}
	var err error
	if opts.PostGIS, err = postgres.HasExtension(ctx, r.pg, "postgis"); err != nil {
		return opts, err
	}
	if opts.Charsets, err = typemap.LoadCharsets(ctx, r.src.DB, typemap.CharsetsOf(r.cat.Tables)...); err != nil {
		return opts, fmt.Errorf("source: %w", err)
	}
	return opts, nil
}

// newJob compiles a table's converters (refusing types sluice cannot map)
// and prepares its reads and writes.
func (r *runner) newJob(t *schema.Table, plan *ddl.TablePlan) (*tableJob, error) {
	conv, err := typemap.New(r.mopts, nil).Compile(t)
	if err != nil {
		return nil, err
	}
	j := &tableJob{t: t, plan: plan, ident: r.naming.Ident2(t.TableID), cols: ddl.WritableColumnsIn(t, r.naming)}
	for _, i := range j.cols {
		c := t.Columns[i]
		j.selects = append(j.selects, typemap.SelectExpr(c, mysnap.QuoteMy(c.Name)))
		j.names = append(j.names, r.naming.Column(t.TableID, c.Name))
	}
	key, err := mysnap.NewKey(t)
	if err != nil {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s: copied as one chunk: %v", t.TableID, err))
		key = nil
	}
	if key == nil && err == nil {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s: no primary key or NOT NULL unique key: copied as one chunk "+
			"(not split, and an interrupted copy of it starts over)", t.TableID))
	}
	j.key = key
	if key != nil {
		j.rangeSafe = true
		for _, name := range key.Names() {
			ci := t.ColumnIndex(name)
			switch conv.Columns[ci].Kind {
			case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
			default:
				j.rangeSafe = false
			}
			for p, c := range j.cols {
				if c == ci {
					j.keyPos = append(j.keyPos, p)
				}
			}
		}
	}
	if e := strings.ToLower(t.Engine); e != "" && e != "innodb" {
		plan.Warnings = append(plan.Warnings, fmt.Sprintf("%s: engine %s is not transactional: the consistent snapshot does not "+
			"cover it, rows written to it during the copy may be missing or extra", t.TableID, t.Engine))
	}
	return j, nil
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
// size estimate and the DDL the snapshot would run (create, keys and
// indexes after the data, foreign keys, sequences), in the copy's order.
// Nothing is written to the target.
func (r *runner) dryRun() *Report {
	rep := r.report
	rep.Tables = len(r.jobs)
	for _, j := range r.jobs {
		p := j.plan
		ddl := append([]string{}, p.CreateKeyless...)
		if p.AddPrimaryKey != "" {
			ddl = append(ddl, p.AddPrimaryKey)
		}
		ddl = append(append(append(ddl, p.PostData...), p.ForeignKeys...), p.Finish...)
		rep.Plan = append(rep.Plan, PlannedTable{Source: j.t.TableID.String(), Target: p.QName,
			Rows: j.size.Rows, Bytes: j.size.Bytes, DDL: ddl, Warnings: p.Warnings})
	}
	return rep
}
