package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
)

// target is the target side of a run: PostgreSQL (Options.Target) or a
// MySQL/MariaDB database (Options.MySQLTarget). It connects, reads and
// records the stream's state outside the sink (the start, the schema at the
// checkpoint) and builds the sink.
type target interface {
	connect(ctx context.Context, o Options) error
	// postGIS reports whether geometry maps to PostGIS (PostgreSQL only).
	postGIS(ctx context.Context) (bool, error)
	loadState(ctx context.Context, stream string) (*checkpoint.State, error)
	loadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error)
	// recordStart writes pos and tables as schema version 1 in one transaction.
	recordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error
	sink(r *runner) (pipeline.Sink, error)
	// loadPolicyChanges and savePolicyChanges keep the stream's counts of
	// values a policy changed (policy.go); a MySQL target gets the source's
	// values unchanged, so it has none.
	loadPolicyChanges(ctx context.Context, stream string) ([]typemap.ChangeCount, error)
	savePolicyChanges(ctx context.Context, stream string, counts []typemap.ChangeCount) error
	close()
}

// pgTarget is a PostgreSQL target: state in its schema sluice.
type pgTarget struct{ pool *pgxpool.Pool }

func (t *pgTarget) connect(ctx context.Context, o Options) error {
	var err error
	conns := pipeline.PoolConns(o.Workers) + 2
	if t.pool, err = pgsink.Connect(ctx, o.Target.ConnString(), conns); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", o.Target.Redacted(), err))
	}
	return nil
}

func (t *pgTarget) postGIS(ctx context.Context) (bool, error) {
	return pgsink.HasExtension(ctx, t.pool, "postgis")
}

func (t *pgTarget) loadState(ctx context.Context, stream string) (*checkpoint.State, error) {
	return checkpoint.Load(ctx, t.pool, stream, binlogpos.Decode)
}

func (t *pgTarget) loadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	return checkpoint.LoadSchema(ctx, t.pool, stream, version)
}

func (t *pgTarget) recordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error {
	if err := checkpoint.Ensure(ctx, t.pool); err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, t.pool, func(tx pgx.Tx) error {
		if err := checkpoint.SaveSchema(ctx, tx, stream, 1, pos, "", tables, nil); err != nil {
			return err
		}
		return checkpoint.Save(ctx, tx, stream, checkpoint.State{Position: pos, SchemaVersion: 1})
	})
}

func (t *pgTarget) sink(r *runner) (pipeline.Sink, error) {
	cfg := pgsink.Config{Stream: r.o.Stream, Workers: r.o.Workers, Mapper: r.mapper,
		Decode: binlogpos.Decode, Naming: r.naming, SourceLogsFKActions: r.info.SQLForeignKeys, Standby: r.o.Standby, Settings: r.o.scopeSettings(), Log: r.log}
	if r.o.run != nil {
		cfg.RunID, cfg.OwnedBefore = r.o.run.id, r.o.run.owned.Load()
	}
	return pgsink.New(cfg, t.pool)
}

func (t *pgTarget) loadPolicyChanges(ctx context.Context, stream string) ([]typemap.ChangeCount, error) {
	return checkpoint.LoadPolicyChanges(ctx, t.pool, stream)
}

func (t *pgTarget) savePolicyChanges(ctx context.Context, stream string, counts []typemap.ChangeCount) error {
	return checkpoint.SavePolicyChanges(ctx, t.pool, stream, counts)
}

func (t *pgTarget) close() {
	if t.pool != nil {
		t.pool.Close()
	}
}

// mysqlTarget is a MySQL/MariaDB target database: state in the target
// server's database sluice.
type mysqlTarget struct {
	db       *sql.DB
	o        Options
	sourceDB string // set by the runner once the scope is known
}

func (t *mysqlTarget) connect(ctx context.Context, o Options) error {
	t.o = o
	if err := mysqlstate.CheckStream(o.Stream); err != nil {
		return exitcode.ConfigError(err)
	}
	var err error
	if t.db, err = mysink.Open(*o.MySQLTarget); err != nil {
		return exitcode.ConfigError(err)
	}
	if err := t.db.PingContext(ctx); err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", o.MySQLTarget.Redacted(), err))
	}
	return nil
}

func (t *mysqlTarget) postGIS(context.Context) (bool, error) { return false, nil }

func (t *mysqlTarget) loadPolicyChanges(context.Context, string) ([]typemap.ChangeCount, error) {
	return nil, nil
}

func (t *mysqlTarget) savePolicyChanges(context.Context, string, []typemap.ChangeCount) error {
	return nil
}

func (t *mysqlTarget) loadState(ctx context.Context, stream string) (*checkpoint.State, error) {
	return mysqlstate.Load(ctx, t.db, stream, binlogpos.Decode)
}

func (t *mysqlTarget) loadSchema(ctx context.Context, stream string, version int64) (map[schema.TableID]*schema.Table, error) {
	return mysqlstate.LoadSchema(ctx, t.db, stream, version)
}

func (t *mysqlTarget) recordStart(ctx context.Context, stream string, pos model.Position, tables []*schema.Table) error {
	if err := mysink.EnsureState(ctx, t.db, t.o.TargetEngine); err != nil {
		return err
	}
	if err := mysqlstate.RefuseOtherWriters(ctx, t.db, stream, t.o.MySQLTarget.Database, schema.TableNames(tables)); err != nil {
		return err
	}
	tx, err := t.db.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("target: begin: %w", err)
	}
	defer func() { _ = tx.Rollback() }()
	if err := mysqlstate.SaveSchema(ctx, tx, stream, 1, pos, "", tables, nil); err != nil {
		return err
	}
	if err := mysqlstate.Save(ctx, tx, stream, checkpoint.State{Position: pos, SchemaVersion: 1}); err != nil {
		return err
	}
	if err := mysqlstate.SaveTarget(ctx, tx, stream, t.o.MySQLTarget.Database); err != nil {
		return err
	}
	return tx.Commit()
}

func (t *mysqlTarget) sink(r *runner) (pipeline.Sink, error) {
	cfg := mysink.Config{Stream: r.o.Stream, Decode: binlogpos.Decode, SourceDB: t.sourceDB,
		TargetDB: t.o.MySQLTarget.Database, Engine: t.o.TargetEngine, SourceLogsFKActions: r.info.SQLForeignKeys, SourceUTF8MB4Collation: r.info.UTF8MB4Collation,
		SourceCharsetDefaults: r.info.CharsetDefaults, Standby: r.o.Standby, Settings: r.o.scopeSettings(), Log: r.log}
	if r.o.run != nil {
		cfg.RunID, cfg.OwnedBefore = r.o.run.id, r.o.run.owned.Load()
	}
	return mysink.New(cfg, t.db)
}

func (t *mysqlTarget) close() {
	if t.db != nil {
		_ = t.db.Close()
	}
}

// refuseFlavor refuses a MariaDB source into a MySQL (not MariaDB) target,
// as the snapshot does (mysink.FlavorRefusal).
func (t *mysqlTarget) refuseFlavor(ctx context.Context, srcFlavor, srcVersion string) error {
	var version string
	if err := t.db.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return fmt.Errorf("target: %w", err)
	}
	if err := mysink.FlavorRefusal(srcFlavor, srcVersion, version); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// refuseTriggers refuses a target database with triggers, as the snapshot
// and the way back do (mysink.RefuseForwardTriggers).
func (t *mysqlTarget) refuseTriggers(ctx context.Context) error {
	return mysink.RefuseForwardTriggers(ctx, t.db, t.o.MySQLTarget.Database)
}

// refuseCascades refuses, on a MySQL target, tables whose foreign key
// actions the target would not run (mysink.CascadeRefusal): their engine on
// the target (the table there, else --target-engine or the source's) has no
// foreign keys and the source does not log the rows the actions change.
func (r *runner) refuseCascades(ctx context.Context, tables []*schema.Table) error {
	t, ok := r.tgt.(*mysqlTarget)
	if !ok || r.info.SQLForeignKeys {
		return nil
	}
	existing, err := mysink.TargetEngines(ctx, t.db, t.o.MySQLTarget.Database)
	if err != nil {
		return err
	}
	if err := mysink.CascadeRefusal(tables, mysink.EngineOf(t.o.TargetEngine, existing), false); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// inScope lists the tables of a schema version that the filter keeps.
func (r *runner) inScope(tables map[schema.TableID]*schema.Table) []*schema.Table {
	var out []*schema.Table
	for id, t := range tables {
		if r.filter.Match(id.Database, id.Name) {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b *schema.Table) int { return strings.Compare(a.TableID.String(), b.TableID.String()) })
	return out
}

// refuseSourceDatabase refuses a target database on the source server that
// is the source database or in the source scope (mysink.SourceScopeRefusal),
// as the snapshot does.
func (t *mysqlTarget) refuseSourceDatabase(ctx context.Context, src *sql.DB) error {
	filter, err := schema.NewFilter(t.o.Include, t.o.Exclude, t.o.Source.Database)
	if err != nil {
		return exitcode.ConfigError(err)
	}
	tdb := t.o.MySQLTarget.Database
	isSource, inScope := t.sourceDB == tdb, filter.MatchDatabase(tdb)
	if !isSource && !inScope {
		return nil
	}
	same, err := mysink.SameServer(ctx, t.db, src)
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("%s: %w", t.o.MySQLTarget.Redacted(), err))
	}
	if !same {
		return nil
	}
	if err := mysink.SourceScopeRefusal(tdb, isSource, inScope, filter); err != nil {
		return exitcode.ConfigError(err)
	}
	return nil
}

// scopeDatabase is the one source database a MySQL target database
// receives: more than one in scope is refused.
func scopeDatabase(o Options, cat *schema.Catalog) (string, error) {
	seen := map[string]bool{}
	var dbs []string
	add := func(d string) {
		if d != "" && !seen[d] {
			seen[d] = true
			dbs = append(dbs, d)
		}
	}
	for _, d := range cat.Databases {
		add(d.Name)
	}
	for _, t := range cat.Tables {
		add(t.Database)
	}
	if len(dbs) == 0 {
		add(o.Source.Database)
	}
	if len(dbs) != 1 {
		return "", exitcode.ConfigError(fmt.Errorf("a MySQL target database (%s) receives the tables of one source database, "+
			"but %d are in scope (%v): narrow --include to one database, and replicate each into its own target database with its own --stream",
			o.MySQLTarget.Redacted(), len(dbs), dbs))
	}
	if o.MySQLTarget.Database == "" {
		return "", exitcode.ConfigError(fmt.Errorf("the MySQL --target URL names no database: add the database that receives the tables, e.g. mysql://user:pw@host:3306/replica"))
	}
	if len(o.SchemaMap) > 0 {
		return "", exitcode.ConfigError(fmt.Errorf("--schema-map does not apply to a MySQL target: the --target URL's database receives the tables"))
	}
	if err := schema.RefuseForMySQL(o.NamingOptions()); err != nil {
		return "", exitcode.ConfigError(err)
	}
	return dbs[0], nil
}
