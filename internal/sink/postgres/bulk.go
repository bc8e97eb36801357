package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
	"github.com/sluice-db/sluice/internal/typemap"
)

// pgWriter is the bulk writer of a PostgreSQL target: tables translated by
// ddl.CreateTables (created without their primary key, which is built after
// the data with the indexes), rows converted and loaded with binary COPY,
// run state in schema sluice (bulk_state.go).
type pgWriter struct {
	*bulkrun.Run
	cfg   config.Postgres // the target
	pg    *pgxpool.Pool
	lock  *pgxpool.Conn // holds the stream's snapshot lock
	mopts typemap.Options
	// replicaRole: some target table has foreign keys already (tables the
	// user created), so TRUNCATE is not used (COPY always runs with
	// session_replication_role = replica, which skips their checks).
	replicaRole bool
}

// pgTable is a table's plan on a PostgreSQL target.
type pgTable struct {
	plan  *ddl.TablePlan
	ident pgx.Identifier // target table
	names []string       // target names of the copied columns
}

func (t *pgTable) TargetName() string                 { return t.plan.QName }
func (t *pgTable) PlanWarnings() []string             { return t.plan.Warnings }
func (t *pgTable) FillReport(tr *bulkrun.TableReport) {}

// DryRunDDL: create, keys and indexes after the data, foreign keys, sequences.
func (t *pgTable) DryRunDDL() []string {
	p := t.plan
	ddl := append([]string{}, p.CreateKeyless...)
	if p.AddPrimaryKey != "" {
		ddl = append(ddl, p.AddPrimaryKey)
	}
	return append(append(append(ddl, p.PostData...), p.ForeignKeys...), p.Finish...)
}

// SnapshotWriter is the engine's writer of a snapshot run (bulkrun.Engine).
func (e engine) SnapshotWriter(r *bulkrun.Run) (bulkrun.Writer, error) {
	return &pgWriter{Run: r, cfg: e.cfg}, nil
}

func (r *pgWriter) RefuseOptions() error { return nil }

func (r *pgWriter) Fingerprint(*bulkrun.Fingerprint) {}

// Connect opens the target pool: a COPY and an index build per worker,
// plus bookkeeping.
func (r *pgWriter) Connect(ctx context.Context) error {
	var err error
	if r.pg, err = Connect(ctx, r.cfg.ConnString(), 2*r.Opts.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", r.cfg.Redacted(), err))
	}
	return nil
}

func (r *pgWriter) Close() {
	if r.lock != nil {
		_, _ = r.lock.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", SnapshotLockKey(r.Opts.Stream))
		r.lock.Release()
	}
	if r.pg != nil {
		r.pg.Close()
	}
}

// SnapshotLockKey names the advisory lock a snapshot of a stream holds:
// pg_advisory_lock(hashtext('sluice snapshot <stream>')).
func SnapshotLockKey(stream string) string { return "sluice snapshot " + stream }

// LockStream makes sure one snapshot per stream runs at a time: a session
// advisory lock, released when the run ends or its connection dies.
func (r *pgWriter) LockStream(ctx context.Context) error {
	c, err := r.pg.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	err = bulkrun.RetryLock(ctx, r.Opts.Stream, r.Opts.StreamLockWait, func() (ok bool, err error) {
		err = c.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1))", SnapshotLockKey(r.Opts.Stream)).Scan(&ok)
		return ok, err
	})
	if err != nil {
		c.Release()
		return err
	}
	r.lock = c
	return nil
}

// Plan checks the naming against the catalog, compiles every table's
// converters and plans its DDL.
func (r *pgWriter) Plan(ctx context.Context) ([]*bulkrun.Job, error) {
	var dbs []string
	for _, d := range r.Cat.Databases {
		dbs = append(dbs, d.Name)
	}
	if err := r.Naming.CheckDatabases(dbs); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	if err := r.Naming.Check(r.Cat.Tables); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	for _, u := range r.Naming.Unmatched(r.Cat.Tables) {
		r.Log.Warn("naming entry matches nothing yet; it applies when DDL creates it (a typo?)", "entry", u)
	}
	if err := r.RefuseEmpty(); err != nil {
		return nil, err
	}
	var err error
	if r.mopts, err = r.typeOptions(ctx); err != nil {
		return nil, err
	}
	plans, err := ddl.CreateTables(r.Cat.Tables, typemap.New(r.mopts, nil), r.Naming)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("cannot translate the schema: %w", err))
	}
	jobs := make([]*bulkrun.Job, len(r.Cat.Tables))
	for i, t := range r.Cat.Tables {
		if jobs[i], err = r.newJob(t, plans[i]); err != nil {
			return nil, exitcode.ConfigError(err)
		}
	}
	return jobs, nil
}

// typeOptions are the conversion policies plus what the servers offer:
// PostGIS on the target, the source's charset tables.
func (r *pgWriter) typeOptions(ctx context.Context) (typemap.Options, error) {
	opts := typemap.Options{ZeroDate: r.Opts.ZeroDate, Nul: r.Opts.Nul, SourceFlavor: r.Src.Flavor}
	var err error
	if opts.PostGIS, err = HasExtension(ctx, r.pg, "postgis"); err != nil {
		return opts, err
	}
	if opts.Charsets, err = typemap.LoadCharsets(ctx, r.Src.DB, typemap.CharsetsOf(r.Cat.Tables)...); err != nil {
		return opts, fmt.Errorf("source: %w", err)
	}
	return opts, nil
}

// newJob compiles a table's converters (refusing types sluice cannot map)
// and prepares its reads and writes.
func (r *pgWriter) newJob(t *schema.Table, plan *ddl.TablePlan) (*bulkrun.Job, error) {
	conv, err := typemap.New(r.mopts, nil).Compile(t)
	if err != nil {
		return nil, err
	}
	pt := &pgTable{plan: plan, ident: r.Naming.Ident2(t.TableID)}
	cols := ddl.WritableColumnsIn(t, r.Naming)
	var selects []string
	for _, i := range cols {
		c := t.Columns[i]
		selects = append(selects, typemap.SelectExpr(c, schema.QuoteMySQL(c.Name)))
		pt.names = append(pt.names, r.Naming.Column(t.TableID, c.Name))
	}
	j, warnings := bulkrun.NewJob(t, pt, cols, selects)
	plan.Warnings = append(plan.Warnings, warnings...)
	if j.Key != nil {
		// Integers and decimals compare alike in MySQL and PostgreSQL.
		j.RangeSafe = true
		for _, name := range j.Key.Names() {
			switch conv.Columns[t.ColumnIndex(name)].Kind {
			case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
			default:
				j.RangeSafe = false
			}
		}
	}
	plan.Warnings = append(plan.Warnings, bulkrun.NonTransactional(t, "innodb")...)
	return j, nil
}

func (r *pgWriter) EnsureState(ctx context.Context) error { return ensureState(ctx, r.pg) }

func (r *pgWriter) LoadRun(ctx context.Context) (*bulkrun.RunState, error) {
	return loadRun(ctx, r.pg, r.Opts.Stream)
}

func (r *pgWriter) TableStates(ctx context.Context) (map[schema.TableID]*bulkrun.TableState, error) {
	return loadTableStates(ctx, r.pg, r.Opts.Stream)
}

// CheckResume: the target tables need no check (a resumed chunk copy
// fails on a table changed since).
func (r *pgWriter) CheckResume(context.Context) error { return nil }

// StartPass looks for foreign keys on the target tables, then records the
// pass.
func (r *pgWriter) StartPass(ctx context.Context, p *mysnap.Point) error {
	if err := r.detectForeignKeys(ctx); err != nil {
		return err
	}
	return startPass(ctx, r.pg, r.Opts.Stream, r.Pass, r.Pos, string(p.Method), p.LockHeld.Milliseconds())
}

func (r *pgWriter) LoadChunks(ctx context.Context, id schema.TableID) ([]bulkrun.ChunkState, error) {
	return loadChunks(ctx, r.pg, r.Opts.Stream, id)
}

func (r *pgWriter) InsertChunk(ctx context.Context, c mysnap.Chunk) error {
	return insertChunk(ctx, r.pg, r.Opts.Stream, c.Table, c)
}

func (r *pgWriter) SetPlanned(ctx context.Context, id schema.TableID) error {
	return setTableFlag(ctx, r.pg, r.Opts.Stream, id, "planned", true)
}

func (r *pgWriter) KeepChunk(ctx context.Context, id schema.TableID, seq int) error {
	return keepChunk(ctx, r.pg, r.Opts.Stream, id, seq, r.Pass, r.Pos)
}
