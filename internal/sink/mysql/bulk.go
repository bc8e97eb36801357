package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/go-sql-driver/mysql"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlog"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/target/bulkrun"
)

// myWriter is the bulk writer of a MySQL/MariaDB target
// (Options.MySQLTarget): the source's own CREATE TABLE, rows written byte
// for byte as multi-row INSERTs, and the run state in the target's
// database sluice (mysqlstate).
type myWriter struct {
	*bulkrun.Run
	cfg     config.MySQL // the target
	db      *sql.DB      // target pool, every connection set up by mySessionSetup
	lock    *sql.Conn    // holds the stream's GET_LOCK
	dbName  string       // the target database
	engine  string       // --target-engine, as the target spells it
	mariadb bool
	// narrowTimestamp: the target's TIMESTAMP ends at 2038 (CheckTimestamp).
	narrowTimestamp bool
	// fromMySQL: a MySQL 8+ source into a MariaDB target, whose CREATE
	// TABLEs are translated (writer_mysql_dialect.go) with the target's
	// collations.
	fromMySQL  bool
	collations map[string]bool
	// sameServer: the target is the source server (another database of it).
	sameServer  bool
	insertLimit int // statement size of the multi-row INSERTs
	// defs are the target tables' definitions an interrupted run recorded.
	defs map[schema.TableID]string
}

// maxInsert bounds one multi-row INSERT (and so the memory of a worker's
// statement), below the target's max_allowed_packet.
const maxInsert = 4 << 20

// SnapshotWriter is the engine's writer of a snapshot run
// (bulkrun.Engine); it refuses a stream name the MySQL state cannot hold.
func (e engine) SnapshotWriter(r *bulkrun.Run) (bulkrun.Writer, error) {
	if err := mysqlstate.CheckStream(r.Opts.Stream); err != nil {
		return nil, exitcode.ConfigError(err)
	}
	return &myWriter{Run: r, cfg: e.cfg, dbName: e.cfg.Database, engine: e.storage}, nil
}

func (r *myWriter) Close() {
	if r.lock != nil {
		_, _ = r.lock.ExecContext(context.Background(), "DO RELEASE_LOCK(?)", mysqlstate.SnapshotLockName(r.Opts.Stream))
		r.lock.Close()
	}
	if r.db != nil {
		r.db.Close()
	}
}

// Connect opens the target pool (every connection set up for the load:
// a transaction per chunk, DDL and state, the lock), and refuses a target
// database that is the source database itself.
func (r *myWriter) Connect(ctx context.Context) error {
	m := r.cfg.WithDatabase("")
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
		rocks, err = HasRocksDB(ctx, probe)
	}
	probe.Close()
	if err != nil {
		return exitcode.ConfigError(fmt.Errorf("target: cannot connect to %s: %w", m.Redacted(), err))
	}
	r.mariadb = strings.Contains(strings.ToLower(version), "mariadb")
	r.narrowTimestamp = NarrowTimestamp(version)
	if err := FlavorRefusal(r.Src.Flavor, r.Src.Version, version); err != nil {
		return exitcode.ConfigError(err)
	}
	r.fromMySQL = r.Src.Flavor != "mariadb" && r.mariadb
	r.insertLimit = min(maxInsert, packet-1024)
	stmts := mySessionSetup
	if r.mariadb {
		stmts = append(append([]string{}, stmts...), mariaDBSessionSetup)
	}
	if rocks {
		// A chunk is one transaction (a table without a key is one chunk).
		stmts = append(append([]string{}, stmts...), RocksDBSessionSetup)
	}
	r.db = sql.OpenDB(setupConnector{Connector: conn, stmts: stmts})
	r.db.SetMaxOpenConns(r.Opts.Workers + 2)
	r.db.SetMaxIdleConns(r.Opts.Workers + 2)
	if r.sameServer, err = r.isSourceServer(ctx); err != nil {
		return err
	}
	if err := RefuseForwardTriggers(ctx, r.db, r.dbName); err != nil {
		return err
	}
	if r.fromMySQL {
		c, err := r.db.Conn(ctx)
		if err != nil {
			return fmt.Errorf("target: %w", err)
		}
		defer c.Close()
		if r.collations, err = Collations(ctx, c); err != nil {
			return fmt.Errorf("target: %w", err)
		}
	}
	return nil
}

// hasCollation says whether the target has a collation (TargetCollation).
func (r *myWriter) hasCollation(name string) bool { return r.collations[name] }

// isSourceServer tells whether the target is the source server itself
// (SameServer).
func (r *myWriter) isSourceServer(ctx context.Context) (bool, error) {
	same, err := SameServer(ctx, r.db, r.Src.DB)
	if err != nil {
		return false, exitcode.ConfigError(fmt.Errorf("%s: %w", r.cfg.Redacted(), err))
	}
	return same, nil
}

// LockStream makes sure one snapshot per stream runs at a time on the
// target: GET_LOCK on a session of its own, released when the run ends or
// its connection dies.
func (r *myWriter) LockStream(ctx context.Context) error {
	c, err := r.db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("target: %w", err)
	}
	err = bulkrun.RetryLock(ctx, r.Opts.Stream, r.Opts.StreamLockWait, func() (bool, error) {
		var ok sql.NullInt64
		err := c.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", mysqlstate.SnapshotLockName(r.Opts.Stream)).Scan(&ok)
		return ok.Valid && ok.Int64 == 1, err
	})
	if err != nil {
		c.Close()
		return err
	}
	r.lock = c
	return nil
}

// RefuseOptions refuses what a MySQL target does not take: the tables go
// to the one database of the target URL, under their source names.
func (r *myWriter) RefuseOptions() error {
	if len(r.Opts.SchemaMap) > 0 {
		return exitcode.ConfigError(errors.New("--schema-map does not apply to a MySQL target: the tables go to the target URL's database"))
	}
	if err := schema.RefuseForMySQL(r.Opts.Naming); err != nil {
		return exitcode.ConfigError(err)
	}
	if r.dbName == "" {
		return exitcode.ConfigError(errors.New("the MySQL --target URL names no database: add the database that receives the tables, e.g. mysql://user@host:3306/replica"))
	}
	return nil
}

// Plan reads each table's CREATE TABLE and plans the target tables;
// anything sluice cannot copy stops here.
func (r *myWriter) Plan(ctx context.Context) ([]*bulkrun.Job, error) {
	if err := r.RefuseEmpty(); err != nil {
		return nil, err
	}
	if err := r.checkOneDatabase(); err != nil {
		return nil, err
	}
	txn, names, err := r.engines(ctx)
	if err != nil {
		return nil, err
	}
	if e := r.engine; e != "" {
		// The target's spelling: SHOW CREATE TABLE prints it so, and the
		// definitions are compared as text.
		if r.engine = names[strings.ToLower(e)]; r.engine == "" {
			return nil, exitcode.ConfigError(fmt.Errorf("--target-engine %s: the target has no such storage engine", e))
		}
	}
	creates, err := r.showCreates(ctx, r.Cat.Tables)
	if err != nil {
		return nil, err
	}
	var problems []string
	var jobs []*bulkrun.Job
	for _, t := range r.Cat.Tables {
		mt, err := r.planTable(t, creates[t.TableID])
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		mt.transactional = txn[strings.ToLower(r.engineOf(t))]
		jobs = append(jobs, r.newJob(t, mt))
	}
	if err := CascadeRefusal(r.Cat.Tables, EngineOf(r.engine, nil), binlog.SQLForeignKeys(ctx, r.Src.DB)); err != nil {
		problems = append(problems, err.Error())
	}
	if err := bulkrun.Refusal(problems); err != nil {
		return nil, err
	}
	return jobs, nil
}

// engineOf is the storage engine t gets on the target.
func (r *myWriter) engineOf(t *schema.Table) string {
	if r.engine != "" {
		return r.engine
	}
	return t.Engine
}

// planTable turns a source table's SHOW CREATE TABLE into the target's.
func (r *myWriter) planTable(t *schema.Table, showCreate string) (*myTable, error) {
	create, warnings := explicitCollations(showCreate, sourceCollations(t), t.Collation), []string(nil)
	var err error
	if r.fromMySQL {
		if create, warnings, err = toMariaDB(create, t.TableID.String(), CollationsFor(r.engineOf(t), r.hasCollation)); err != nil {
			return nil, err
		}
	}
	mt, err := retarget(create, t.TableID.String(), r.dbName, t.Name, r.engine)
	if err != nil {
		return nil, err
	}
	mt.warnings = append(warnings, mt.warnings...)
	if err := checkEngineTypes(t, r.engine); err != nil {
		return nil, err
	}
	return mt, nil
}

// checkOneDatabase refuses a scope of several source databases (a MySQL
// target database receives one) and, on the source's own server, a target
// database the scope reads from.
func (r *myWriter) checkOneDatabase() error {
	dbs := map[string]bool{}
	for _, t := range r.Cat.Tables {
		dbs[t.Database] = true
	}
	if r.sameServer {
		if err := SourceScopeRefusal(r.dbName, dbs[r.dbName], r.Filter.MatchDatabase(r.dbName), r.Filter); err != nil {
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
func (r *myWriter) engines(ctx context.Context) (txn map[string]bool, names map[string]string, err error) {
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
func (r *myWriter) showCreates(ctx context.Context, tables []*schema.Table) (map[schema.TableID]string, error) {
	c, err := r.Src.DB.Conn(ctx)
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
func (r *myWriter) newJob(t *schema.Table, mt *myTable) *bulkrun.Job {
	var cols []int
	for i, c := range t.Columns {
		if c.GenerationExpr == "" { // the target computes generated columns itself
			cols = append(cols, i)
		}
	}
	var quoted, selects []string
	for _, i := range cols {
		c := t.Columns[i]
		sel, mode := mySelect(c)
		selects = append(selects, sel)
		mt.lits = append(mt.lits, mode)
		var check func([]byte) error
		if r.narrowTimestamp && c.DataType == "timestamp" {
			check = func(v []byte) error { return CheckTimestamp(t.TableID, c.Name, string(v)) }
		}
		mt.checks = append(mt.checks, check)
		quoted = append(quoted, schema.QuoteMySQL(c.Name))
	}
	mt.insertHead = "INSERT INTO " + mt.qname + " (" + strings.Join(quoted, ", ") + ") VALUES "
	j, warnings := bulkrun.NewJob(t, mt, cols, selects)
	mt.warnings = append(mt.warnings, warnings...)
	// Same definition on both sides: the target orders and compares the
	// key as the source does, so any chunk's range can be deleted there.
	j.RangeSafe = j.Key != nil
	mt.warnings = append(mt.warnings, bulkrun.NonTransactional(t, "innodb", "rocksdb")...)
	if !mt.transactional {
		mt.warnings = append(mt.warnings, fmt.Sprintf("%s: the target table's engine has no transactions: each chunk's range is "+
			"emptied before it is copied, so an interrupted chunk is copied again whole", t.TableID))
	}
	return j
}
