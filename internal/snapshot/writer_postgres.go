package snapshot

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/ddl"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sink/postgres"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/typemap"
)

// pgWriter is the bulk writer of a PostgreSQL target: tables translated by
// ddl.CreateTables (created without their primary key, which is built after
// the data with the indexes), rows converted and loaded with binary COPY,
// run state in schema sluice (state.go).
type pgWriter struct {
	*runner
	cfg   config.Postgres // the target (target.PostgresOf)
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

func (t *pgTable) targetName() string         { return t.plan.QName }
func (t *pgTable) planWarnings() []string     { return t.plan.Warnings }
func (t *pgTable) fillReport(tr *TableReport) {}

// dryRunDDL: create, keys and indexes after the data, foreign keys, sequences.
func (t *pgTable) dryRunDDL() []string {
	p := t.plan
	ddl := append([]string{}, p.CreateKeyless...)
	if p.AddPrimaryKey != "" {
		ddl = append(ddl, p.AddPrimaryKey)
	}
	return append(append(append(ddl, p.PostData...), p.ForeignKeys...), p.Finish...)
}

func (r *pgWriter) refuseOptions() error { return nil }

func (r *pgWriter) fingerprint(*fingerprint) {}

// connect opens the target pool: a COPY and an index build per worker,
// plus bookkeeping.
func (r *pgWriter) connect(ctx context.Context) error {
	var err error
	if r.pg, err = postgres.Connect(ctx, r.cfg.ConnString(), 2*r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", r.cfg.Redacted(), err))
	}
	return nil
}

func (r *pgWriter) close() {
	if r.lock != nil {
		_, _ = r.lock.Exec(context.Background(), "SELECT pg_advisory_unlock(hashtext($1))", lockKey(r.o.Stream))
		r.lock.Release()
	}
	if r.pg != nil {
		r.pg.Close()
	}
}

// lockKey names the advisory lock a snapshot of a stream holds:
// pg_advisory_lock(hashtext('sluice snapshot <stream>')).
func lockKey(stream string) string { return "sluice snapshot " + stream }

// lockStream makes sure one snapshot per stream runs at a time: a session
// advisory lock, released when the run ends or its connection dies.
func (r *pgWriter) lockStream(ctx context.Context) error {
	c, err := r.pg.Acquire(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	err = retryLock(ctx, r.o.Stream, r.o.StreamLockWait, func() (ok bool, err error) {
		err = c.QueryRow(ctx, "SELECT pg_try_advisory_lock(hashtext($1))", lockKey(r.o.Stream)).Scan(&ok)
		return ok, err
	})
	if err != nil {
		c.Release()
		return err
	}
	r.lock = c
	return nil
}

// plan checks the naming against the catalog, compiles every table's
// converters and plans its DDL.
func (r *pgWriter) plan(ctx context.Context) ([]*tableJob, error) {
	var dbs []string
	for _, d := range r.cat.Databases {
		dbs = append(dbs, d.Name)
	}
	if err := r.naming.CheckDatabases(dbs); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	if err := r.naming.Check(r.cat.Tables); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	for _, u := range r.naming.Unmatched(r.cat.Tables) {
		r.log.Warn("naming entry matches nothing yet; it applies when DDL creates it (a typo?)", "entry", u)
	}
	if err := r.refuseEmpty(); err != nil {
		return nil, err
	}
	var err error
	if r.mopts, err = r.typeOptions(ctx); err != nil {
		return nil, err
	}
	plans, err := ddl.CreateTables(r.cat.Tables, typemap.New(r.mopts, nil), r.naming)
	if err != nil {
		return nil, exitcode.ConfigError(fmt.Errorf("cannot translate the schema: %w", err))
	}
	jobs := make([]*tableJob, len(r.cat.Tables))
	for i, t := range r.cat.Tables {
		if jobs[i], err = r.newJob(t, plans[i]); err != nil {
			return nil, exitcode.ConfigError(err)
		}
	}
	return jobs, nil
}

// typeOptions are the conversion policies plus what the servers offer:
// PostGIS on the target, the source's charset tables.
func (r *pgWriter) typeOptions(ctx context.Context) (typemap.Options, error) {
	opts := typemap.Options{ZeroDate: r.o.ZeroDate, Nul: r.o.Nul, SourceFlavor: r.src.Flavor}
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
func (r *pgWriter) newJob(t *schema.Table, plan *ddl.TablePlan) (*tableJob, error) {
	conv, err := typemap.New(r.mopts, nil).Compile(t)
	if err != nil {
		return nil, err
	}
	pt := &pgTable{plan: plan, ident: r.naming.Ident2(t.TableID)}
	cols := ddl.WritableColumnsIn(t, r.naming)
	var selects []string
	for _, i := range cols {
		c := t.Columns[i]
		selects = append(selects, typemap.SelectExpr(c, mysnap.QuoteMy(c.Name)))
		pt.names = append(pt.names, r.naming.Column(t.TableID, c.Name))
	}
	j, warnings := newJob(t, pt, cols, selects)
	plan.Warnings = append(plan.Warnings, warnings...)
	if j.key != nil {
		// Integers and decimals compare alike in MySQL and PostgreSQL.
		j.rangeSafe = true
		for _, name := range j.key.Names() {
			switch conv.Columns[t.ColumnIndex(name)].Kind {
			case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal:
			default:
				j.rangeSafe = false
			}
		}
	}
	plan.Warnings = append(plan.Warnings, nonTransactional(t, "innodb")...)
	return j, nil
}

func (r *pgWriter) ensureState(ctx context.Context) error { return ensureState(ctx, r.pg) }

func (r *pgWriter) loadRun(ctx context.Context) (*runState, error) {
	return loadRun(ctx, r.pg, r.o.Stream)
}

func (r *pgWriter) tableStates(ctx context.Context) (map[schema.TableID]*tableState, error) {
	return loadTableStates(ctx, r.pg, r.o.Stream)
}

// checkResume: the target tables need no check (a resumed chunk copy
// fails on a table changed since).
func (r *pgWriter) checkResume(context.Context) error { return nil }

// startPass looks for foreign keys on the target tables, then records the
// pass.
func (r *pgWriter) startPass(ctx context.Context, p *mysnap.Point) error {
	if err := r.detectForeignKeys(ctx); err != nil {
		return err
	}
	return startPass(ctx, r.pg, r.o.Stream, r.pass, r.pos, string(p.Method), p.LockHeld.Milliseconds())
}

func (r *pgWriter) loadChunks(ctx context.Context, id schema.TableID) ([]chunkState, error) {
	return loadChunks(ctx, r.pg, r.o.Stream, id)
}

func (r *pgWriter) insertChunk(ctx context.Context, c mysnap.Chunk) error {
	return insertChunk(ctx, r.pg, r.o.Stream, c.Table, c)
}

func (r *pgWriter) setPlanned(ctx context.Context, id schema.TableID) error {
	return setTableFlag(ctx, r.pg, r.o.Stream, id, "planned", true)
}

func (r *pgWriter) keepChunk(ctx context.Context, id schema.TableID, seq int) error {
	return keepChunk(ctx, r.pg, r.o.Stream, id, seq, r.pass, r.pos)
}
