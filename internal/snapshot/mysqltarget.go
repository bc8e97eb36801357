package snapshot

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
)

// myRunner is a snapshot into a MySQL/MariaDB target (Options.MySQLTarget).
// The source side is the PostgreSQL snapshot's (b: the consistent reader,
// catalog, key-range chunks, scheduler, progress, chunk hash, report); the
// target side is the source's own CREATE TABLE, rows written byte for byte
// as multi-row INSERTs, and the run state in the target's database sluice
// (mysqlstate), with the same resume rules as the PostgreSQL snapshot.
type myRunner struct {
	b       *runner
	o       Options
	log     *slog.Logger
	db      *sql.DB   // target pool, every connection set up by mySessionSetup
	lock    *sql.Conn // holds the stream's GET_LOCK
	dbName  string    // the target database
	mariadb bool
	// narrowTimestamp: the target's TIMESTAMP ends at 2038 (mysink.CheckTimestamp).
	narrowTimestamp bool
	// fromMySQL: a MySQL 8+ source into a MariaDB target, whose CREATE
	// TABLEs are translated (mysqltarget_dialect.go) with the target's
	// collations.
	fromMySQL  bool
	collations map[string]bool
	// sameServer: the target is the source server (another database of it).
	sameServer bool
	limit      int // statement size of the multi-row INSERTs
	resumed    bool
	pass       int
	pos        binlogpos.Position

	stats chunkStats
}

// maxInsert bounds one multi-row INSERT (and so the memory of a worker's
// statement), below the target's max_allowed_packet.
const maxInsert = 4 << 20

// runMySQL performs a snapshot into a MySQL target; see Run.
func runMySQL(ctx context.Context, o Options) (*Report, error) {
	if err := mysqlstate.CheckStream(o.Stream); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	b := &runner{o: o, log: o.Log, start: time.Now(), byID: map[schema.TableID]*tableJob{},
		limit: mysnap.NewThrottle(o.MaxRate)}
	b.report = &Report{Stream: o.Stream, Mode: "full"}
	switch {
	case o.DryRun:
		b.report.Mode = "dry-run"
	case o.SchemaOnly:
		b.report.Mode = "schema-only"
	case o.DataOnly:
		b.report.Mode = "data-only"
	}
	r := &myRunner{b: b, o: o, log: o.Log, dbName: o.MySQLTarget.Database}
	defer r.close()
	defer tuneGC()()
	if err := r.connect(ctx); err != nil {
		return nil, err
	}
	if err := r.loadSource(ctx); err != nil {
		return nil, err
	}
	if err := b.checkCopyRetention(ctx); err != nil {
		return nil, err
	}
	if o.DryRun {
		return r.dryRun(), nil
	}
	if err := mysqlstate.EnsureSnapshot(ctx, r.db, r.o.TargetEngine); err != nil {
		return nil, fmt.Errorf("target: %w", err)
	}
	if err := r.lockStream(ctx); err != nil {
		return nil, err
	}
	if o.Restart {
		if err := r.restart(ctx); err != nil {
			return nil, err
		}
	}
	run, err := r.loadRun(ctx)
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
	point, err := b.openPoint(ctx)
	if err != nil {
		return nil, err
	}
	defer point.Close()
	if run == nil {
		if err := r.createTargets(ctx, acts); err != nil {
			return nil, err
		}
	}
	if err := r.copyAll(ctx, point); err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("snapshot interrupted (%w): the chunks copied so far are kept; run the same command again to resume", err)
		}
		return nil, err
	}
	point.Close()
	if err := r.copyObjects(ctx); err != nil {
		return nil, err
	}
	if err := r.finish(ctx); err != nil {
		return nil, err
	}
	return r.finalReport(ctx)
}

func (r *myRunner) close() {
	if r.lock != nil {
		_, _ = r.lock.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", mysqlstate.SnapshotLockName(r.o.Stream))
		r.lock.Close()
	}
	if r.db != nil {
		r.db.Close()
	}
	r.b.close()
}

// connect opens the source pool (a reader session per worker, metadata,
// the lock) and the target pool (every connection set up for the load:
// a transaction per chunk, DDL and state, the lock), and refuses a target
// database that is the source database itself.
func (r *myRunner) connect(ctx context.Context) error {
	var err error
	if r.b.src, err = mysnap.OpenSource(ctx, r.o.Source, r.o.Workers+2); err != nil {
		return exitcode.ConfigError(fmt.Errorf("source: cannot connect to %s: %w", r.o.Source.Redacted(), err))
	}
	m := r.o.MySQLTarget.WithDatabase("")
	cfg, err := m.DriverConfig()
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: %w", err))
	}
	cfg.ReadTimeout, cfg.WriteTimeout = 0, 0
	conn, err := mysql.NewConnector(cfg)
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("target %s: %w", m.Redacted(), err))
	}
	var version string
	var packet int
	var rocks bool
	probe := sql.OpenDB(conn)
	err = probe.QueryRowContext(ctx, `SELECT VERSION(), @@max_allowed_packet`).Scan(&version, &packet)
	if err == nil {
		rocks, err = mysink.HasRocksDB(ctx, probe)
	}
	probe.Close()
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", m.Redacted(), err))
	}
	r.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	r.narrowTimestamp = mysink.NarrowTimestamp(version)
	if err := mysink.FlavorRefusal(r.b.src.Flavor, r.b.src.Version, version); err != nil {
		return exitcode.ConfigError(err)
	}
	r.fromMySQL = r.b.src.Flavor != "mariadb" && r.mariadb
	r.limit = min(maxInsert, packet-1024)
	stmts := mySessionSetup
	if r.mariadb {
		stmts = append(append([]string{}, stmts...), mariaDBSessionSetup)
	}
	if rocks {
		// A chunk is one transaction (a table without a key is one chunk).
		stmts = append(append([]string{}, stmts...), mysink.RocksDBSessionSetup)
	}
	r.db = sql.OpenDB(setupConnector{Connector: conn, stmts: stmts})
	r.db.SetMaxOpenConns(r.o.Workers + 2)
	r.db.SetMaxIdleConns(r.o.Workers + 2)
	if r.sameServer, err = r.isSourceServer(ctx); err != nil {
		return err
	}
	if err := mysink.RefuseForwardTriggers(ctx, r.db, r.dbName); err != nil {
		return err
	}
	if r.fromMySQL {
		c, err := r.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		defer c.Close()
		if r.collations, err = mysink.Collations(ctx, c); err != nil {
			return fmt.Errorf("target: %w", err)
		}
	}
	return nil
}

// hasCollation says whether the target has a collation (mysink.TargetCollation).
func (r *myRunner) hasCollation(name string) bool { return r.collations[name] }

// isSourceServer tells whether the target is the source server itself
// (mysink.SameServer).
func (r *myRunner) isSourceServer(ctx context.Context) (bool, error) {
	same, err := mysink.SameServer(ctx, r.db, r.b.src.DB)
	if err != nil {
		return false, exitcode.ConfigError(fmt.Errorf("%s: %w", r.o.MySQLTarget.Redacted(), err))
	}
	return same, nil
}

// lockStream makes sure one snapshot per stream runs at a time on the
// target: GET_LOCK on a session of its own, released when the run ends or
// its connection dies.
func (r *myRunner) lockStream(ctx context.Context) error {
	c, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	name := mysqlstate.SnapshotLockName(r.o.Stream)
	deadline := time.Now().Add(r.o.StreamLockWait)
	for {
		var ok sql.NullInt64
		if err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", name).Scan(&ok); err != nil {
			c.Close()
			return fmt.Errorf("target: lock stream %q: %w", r.o.Stream, err)
		}
		if ok.Valid && ok.Int64 == 1 {
			r.lock = c
			return nil
		}
		if time.Now().After(deadline) {
			c.Close()
			return exitcode.ConfigError(fmt.Errorf("another sluice snapshot of stream %q is running against this target "+
				"(waited %s for its lock); wait for it to finish, or use another --stream", r.o.Stream, r.o.StreamLockWait))
		}
		select {
		case <-ctx.Done():
			c.Close()
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// loadSource reads the source schema and each table's CREATE TABLE, and
// plans the target tables; anything sluice cannot copy stops here.
func (r *myRunner) loadSource(ctx context.Context) error {
	b := r.b
	if len(r.o.SchemaMap) > 0 {
		return exitcode.ConfigError(errors.New("--schema-map does not apply to a MySQL target: the tables go to the target URL's database"))
	}
	if err := schema.RefuseForMySQL(r.o.NamingOptions()); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.dbName == "" {
		return exitcode.ConfigError(errors.New("the MySQL --target URL names no database: add the database that receives the tables, e.g. mysql://user@host:3306/replica"))
	}
	var err error
	if b.filter, err = schema.NewFilter(r.o.Include, r.o.Exclude, r.o.Source.Database); err != nil {
		return exitcode.ConfigError(err)
	}
	if b.cat, err = b.loadCatalog(ctx); err != nil {
		return err
	}
	if len(b.cat.Tables) == 0 {
		return exitcode.ConfigError(fmt.Errorf("no tables in scope (%s) on the source: check --include/--exclude and the database in --source", b.filter))
	}
	if err := r.checkOneDatabase(); err != nil {
		return err
	}
	sizes, err := b.src.TableSizes(ctx, b.cat.Tables)
	if err != nil {
		return err
	}
	txn, names, err := r.engines(ctx)
	if err != nil {
		return err
	}
	if e := r.o.TargetEngine; e != "" {
		// The target's spelling: SHOW CREATE TABLE prints it so, and the
		// definitions are compared as text.
		if r.o.TargetEngine = names[strings.ToLower(e)]; r.o.TargetEngine == "" {
			return exitcode.ConfigError(fmt.Errorf("--target-engine %s: the target has no such storage engine", e))
		}
	}
	creates, err := r.showCreates(ctx, b.cat.Tables)
	if err != nil {
		return err
	}
	var problems []string
	for _, t := range b.cat.Tables {
		create, warnings := explicitCollations(creates[t.TableID], sourceCollations(t), t.Collation), []string(nil)
		engine := r.o.TargetEngine
		if engine == "" {
			engine = t.Engine
		}
		if r.fromMySQL {
			if create, warnings, err = toMariaDB(create, t.TableID.String(), mysink.CollationsFor(engine, r.hasCollation)); err != nil {
				problems = append(problems, err.Error())
				continue
			}
		}
		mt, err := retarget(create, t.TableID.String(), r.dbName, t.Name, r.o.TargetEngine)
		if err == nil {
			mt.warnings = append(warnings, mt.warnings...)
			err = checkEngineTypes(t, r.o.TargetEngine)
		}
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		mt.transactional = txn[strings.ToLower(engine)]
		j := r.newJob(t, mt)
		j.size = sizes[t.TableID]
		b.jobs = append(b.jobs, j)
		b.byID[t.TableID] = j
	}
	if err := mysink.CascadeRefusal(b.cat.Tables, mysink.EngineOf(r.o.TargetEngine, nil), binlog.SQLForeignKeys(ctx, b.src.DB)); err != nil {
		problems = append(problems, err.Error())
	}
	if len(problems) > 0 {
		return exitcode.ConfigError(errors.New(strings.Join(problems, "\n")))
	}
	sort.SliceStable(b.jobs, func(x, y int) bool { return b.jobs[x].size.Bytes > b.jobs[y].size.Bytes })
	for i, j := range b.jobs {
		j.order = i
	}
	for _, o := range b.cat.NotMigrated {
		b.report.NotMigrated = append(b.report.NotMigrated, o.String())
	}
	return nil
}

// checkOneDatabase refuses a scope of several source databases (a MySQL
// target database receives one) and, on the source's own server, a target
// database the scope reads from.
func (r *myRunner) checkOneDatabase() error {
	b := r.b
	dbs := map[string]bool{}
	for _, t := range b.cat.Tables {
		dbs[t.Database] = true
	}
	if r.sameServer {
		if err := mysink.SourceScopeRefusal(r.dbName, dbs[r.dbName], b.filter.MatchDatabase(r.dbName), b.filter); err != nil {
			return exitcode.ConfigError(err)
		}
	}
	if len(dbs) > 1 {
		var names []string
		for d := range dbs {
			names = append(names, d)
		}
		sort.Strings(names)
		return exitcode.ConfigError(fmt.Errorf("a MySQL target database receives the tables of one source database, the scope has %s: "+
			"name one in --source or --include", strings.Join(names, ", ")))
	}
	return nil
}

// engines returns, by lower-case name, which of the target's storage
// engines have transactions, and each one's name as the target spells it.
func (r *myRunner) engines(ctx context.Context) (txn map[string]bool, names map[string]string, err error) {
	rows, err := r.db.QueryContext(ctx, "SELECT ENGINE, COALESCE(TRANSACTIONS, 'NO') FROM information_schema.ENGINES WHERE SUPPORT IN ('YES', 'DEFAULT')")
	if err != nil {
		return nil, nil, fmt.Errorf("target: list engines: %w", err)
	}
	defer rows.Close()
	txn, names = map[string]bool{}, map[string]string{}
	for rows.Next() {
		var e, t string
		if err := rows.Scan(&e, &t); err != nil {
			return nil, nil, fmt.Errorf("target: list engines: %w", err)
		}
		txn[strings.ToLower(e)] = t == "YES"
		names[strings.ToLower(e)] = e
	}
	return txn, names, rows.Err()
}

// showCreates reads each table's SHOW CREATE TABLE on one source session
// with an empty sql_mode (backquoted names, MySQL's own syntax). A DDL
// between this and the consistent point is caught by openPoint's check.
func (r *myRunner) showCreates(ctx context.Context, tables []*schema.Table) (map[schema.TableID]string, error) {
	c, err := r.b.src.DB.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET SESSION sql_mode = '', SESSION sql_quote_show_create = 1"); err != nil {
		return nil, fmt.Errorf("source: %w", err)
	}
	out := map[schema.TableID]string{}
	for _, t := range tables {
		var name, create string
		if err := c.QueryRowContext(ctx, "SHOW CREATE TABLE "+mysnap.QuoteTable(t.TableID)).Scan(&name, &create); err != nil {
			return nil, fmt.Errorf("source: SHOW CREATE TABLE %s: %w", t.TableID, err)
		}
		out[t.TableID] = create
	}
	return out, nil
}

// newJob prepares a table's reads and writes.
func (r *myRunner) newJob(t *schema.Table, mt *myTable) *tableJob {
	j := &tableJob{t: t, my: mt}
	for i, c := range t.Columns {
		if c.GenerationExpr == "" { // the target computes generated columns itself
			j.cols = append(j.cols, i)
		}
	}
	var quoted []string
	for _, i := range j.cols {
		c := t.Columns[i]
		sel, mode := mySelect(c)
		j.selects = append(j.selects, sel)
		j.names = append(j.names, c.Name)
		mt.lits = append(mt.lits, mode)
		var check func([]byte) error
		if r.narrowTimestamp && c.DataType == "timestamp" {
			check = func(v []byte) error { return mysink.CheckTimestamp(t.TableID, c.Name, string(v)) }
		}
		mt.checks = append(mt.checks, check)
		quoted = append(quoted, mysnap.QuoteMy(c.Name))
	}
	mt.insertHead = "INSERT INTO " + mt.qname + " (" + strings.Join(quoted, ", ") + ") VALUES "
	key, err := mysnap.NewKey(t)
	switch {
	case err != nil:
		mt.warnings = append(mt.warnings, fmt.Sprintf("%s: copied as one chunk: %v", t.TableID, err))
		key = nil
	case key == nil:
		mt.warnings = append(mt.warnings, fmt.Sprintf("%s: no primary key or NOT NULL unique key: copied as one chunk "+
			"(not split, and an interrupted copy of it starts over)", t.TableID))
	}
	j.key = key
	if key != nil {
		// Same definition on both sides: the target orders and compares the
		// key as the source does, so any chunk's range can be deleted there.
		j.rangeSafe = true
		for _, name := range key.Names() {
			ci := t.ColumnIndex(name)
			for p, c := range j.cols {
				if c == ci {
					j.keyPos = append(j.keyPos, p)
				}
			}
		}
	}
	if e := strings.ToLower(t.Engine); e != "" && e != "innodb" && e != "rocksdb" {
		mt.warnings = append(mt.warnings, fmt.Sprintf("%s: engine %s is not transactional: the consistent snapshot does not "+
			"cover it, rows written to it during the copy may be missing or extra", t.TableID, t.Engine))
	}
	if !mt.transactional {
		mt.warnings = append(mt.warnings, fmt.Sprintf("%s: the target table's engine has no transactions: each chunk's range is "+
			"emptied before it is copied, so an interrupted chunk is copied again whole", t.TableID))
	}
	return j
}

// dryRun reports every table with the CREATE TABLE the snapshot would run.
func (r *myRunner) dryRun() *Report {
	rep := r.b.report
	rep.Tables = len(r.b.jobs)
	for _, j := range r.b.jobs {
		rep.Plan = append(rep.Plan, PlannedTable{Source: j.t.TableID.String(), Target: j.my.qname,
			Rows: j.size.Rows, Bytes: j.size.Bytes, DDL: []string{j.my.create}, Warnings: j.my.warnings})
	}
	return rep
}
