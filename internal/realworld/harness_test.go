package realworld

import (
	"context"
	"database/sql"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/testenv"
)

// scenario is one realistic source database and what happens to it while
// sluice migrates it.
type scenario struct {
	prefix string // database name prefix
	// schemaFile (under testdata) creates the tables, views, triggers and
	// routines; sqlMode is the session sql_mode it runs with.
	schemaFile string
	sqlMode    string
	// chunkRows is the snapshot's --chunk-rows (0: 500).
	chunkRows int
	// schemaSQL replaces schemaFile when set.
	schemaSQL string
	// seed fills the tables before the migration starts.
	seed func(t *testing.T, my flavorDB)
	// write runs one source transaction of the load (any number of rows).
	// Deadlocks and lock wait timeouts are retried by the harness.
	write func(my *sql.DB, rng *rand.Rand) error
	// midStream are statements run on the source once replication runs,
	// between load transactions (DDL, FK cascades, key changes...).
	midStream []string
	// midStreamFuncs run after midStream, each with the load paused (the
	// fuzz test's DDL, which decides its statement from the model the load shares).
	midStreamFuncs []func(my *sql.DB)
	// extraArgs are added to migrate, replicate and verify; {db} in them is
	// the scenario's database name.
	extraArgs []string
	// env is the source server (testenv.Flavors); nil is testenv.Get's MariaDB.
	env *testenv.Env
	// into is the MySQL/MariaDB target (the sandbox's); nil is PostgreSQL.
	into *mysqlInto
}

// migrated is a scenario after a successful migrate, replicate and verify.
type migrated struct {
	db string
	my *sql.DB
	pg *pgxpool.Pool // a PostgreSQL target; nil for a MySQL one
	// tdb and tgt are a MySQL target's database and root pool (tgt nil for PostgreSQL).
	tdb    string
	tgt    *sql.DB
	report string // migrate's stdout (the snapshot report as JSON)
	writes int64
	// sourceURL, targetURL and stream let a test run sluice again.
	sourceURL, targetURL, stream string
	env                          *testenv.Env // the source server's
	// naming are the scenario's naming options (--identifiers, --rename,
	// --exclude-columns): every later sluice run of the stream repeats them.
	naming []string
}

// run creates the scenario's database, starts the load, runs `sluice migrate
// --until-caught-up` while it writes, runs the mid-stream statements, stops
// the load, lets `sluice replicate --until-caught-up` apply the rest and
// requires `sluice verify` to report equal.
func (s scenario) run(t *testing.T) migrated {
	t.Helper()
	env := s.env
	if env == nil {
		env = testenv.Get(t)
	}
	db := env.NewDatabase(t, s.prefix)
	my := openSource(t, env, db, s.sqlMode)
	schema := []byte(s.schemaSQL)
	if s.schemaFile != "" {
		var err error
		if schema, err = os.ReadFile(filepath.Join("testdata", s.schemaFile)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := my.Exec(flavorSQL(env, string(schema))); err != nil {
		t.Fatalf("%s: %v", s.schemaFile, err)
	}
	s.seed(t, flavorDB{my, env})
	extra := make([]string, len(s.extraArgs))
	for i, a := range s.extraArgs {
		extra[i] = strings.ReplaceAll(a, "{db}", db)
	}
	s.extraArgs = extra
	stream := testenv.UniqueName("rw")
	side := s.target(t, env, db, stream)

	load := startLoad(my, s.write)
	defer load.stop()
	time.Sleep(200 * time.Millisecond) // the load runs before the snapshot starts

	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "sluice.log")
	common := append([]string{"--source", env.SourceURL(db), "--target", side.url, "--include", db,
		"--stream", stream}, s.extraArgs...)
	// Not the global read lock: FLUSH TABLES WITH READ LOCK is server-wide
	// and waits for any long statement of any test sharing the sandbox
	// server (it made these suites flaky on MySQL). MariaDB reads with one
	// session (binlog_snapshot_position, which MySQL does not have); MySQL
	// takes auto's lock of the tables in scope.
	method := "single-session"
	if env.IsMySQL() {
		method = "auto"
	}
	chunkRows := 500
	if s.chunkRows > 0 {
		chunkRows = s.chunkRows
	}
	migrateArgs := append([]string{"migrate", "--workers", "2", "--chunk-rows", strconv.Itoa(chunkRows), "--until-caught-up",
		"--snapshot-method", method, "--json", "--log-level", "warn"}, common...)
	migrateArgs = append(migrateArgs, side.writeArgs...)
	var stdout strings.Builder
	mig := testenv.SluiceCommand(bin, migrateArgs...)
	mig.Stdout = &stdout
	mig.Stderr = appendFile(t, logPath)
	if err := mig.Start(); err != nil {
		t.Fatal(err)
	}
	migDone := make(chan error, 1)
	go func() { migDone <- mig.Wait() }()
	t.Cleanup(func() {
		if mig.ProcessState == nil {
			_ = mig.Process.Kill()
			<-migDone
		}
	})

	began := time.Now()
	if err := waitReplicating(side.replicating, migDone); err != nil {
		t.Fatalf("migrate did not reach replication: %v\n%s", err, tailFile(logPath, 40))
	}
	time.Sleep(500 * time.Millisecond) // replication under load
	for _, stmt := range s.midStream {
		load.pause()
		_, err := my.Exec(stmt)
		load.resume()
		if err != nil {
			t.Fatalf("mid-stream %q: %v", stmt, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for _, fn := range s.midStreamFuncs {
		load.pause()
		fn(my)
		load.resume()
		time.Sleep(200 * time.Millisecond)
	}
	time.Sleep(time.Second)
	writes := load.stop()
	if err := load.err(); err != nil {
		t.Fatalf("write load: %v", err)
	}
	select {
	case err := <-migDone:
		if err != nil {
			t.Fatalf("migrate: %v\n%s\n%s", err, stdout.String(), tailFile(logPath, 60))
		}
	case <-time.After(90 * time.Second):
		t.Fatalf("migrate did not end\n%s", tailFile(logPath, 60))
	}
	t.Logf("%d load transactions during the migration; migrate took %s", writes, time.Since(began).Round(time.Millisecond))
	// --until-caught-up may end at an idle moment of the load: a replicate run
	// continues exactly where migrate stopped.
	if code := runSluice(t, bin, logPath, append(append([]string{"replicate", "--workers", "2", "--until-caught-up",
		"--log-level", "warn"}, common...), side.writeArgs...)...); code != 0 {
		t.Fatalf("replicate after migrate: exit %d\n%s", code, tailFile(logPath, 60))
	}
	t.Logf("replicate done at %s", time.Since(began).Round(time.Millisecond))
	if code := runSluice(t, bin, logPath, append([]string{"verify", "--online=off", "--log-level", "warn"},
		common...)...); code != 0 {
		t.Fatalf("verify: exit %d\n%s", code, tailFile(logPath, 80))
	}
	t.Logf("verify done at %s", time.Since(began).Round(time.Millisecond))
	return migrated{db: db, my: my, pg: side.pg, tdb: side.tdb, tgt: side.tgt, report: stdout.String(), writes: writes,
		sourceURL: env.SourceURL(db), targetURL: side.url, stream: stream, env: env, naming: s.extraArgs}
}

// targetSide is where a scenario run writes: the URL --target takes, what
// migrate and replicate add for it, and whether the stream's snapshot is done there.
type targetSide struct {
	url         string
	writeArgs   []string // added to migrate and replicate
	replicating func() bool
	pg          *pgxpool.Pool
	tdb         string
	tgt         *sql.DB
}

// target prepares the scenario's target for stream (its cleanup included):
// PostgreSQL unless the scenario names a MySQL target (mysqlTarget).
func (s scenario) target(t *testing.T, env *testenv.Env, db, stream string) targetSide {
	if s.into != nil {
		return s.into.side(t, env, db, stream)
	}
	forgetStream(t, env, stream)
	pg := env.PG(t)
	return targetSide{url: env.TargetURL(), pg: pg, replicating: func() bool {
		var n int64
		_ = pg.QueryRow(context.Background(), `SELECT count(*) FROM sluice.checkpoint WHERE stream = $1
			AND schema_version >= 1`, stream).Scan(&n)
		return n == 1
	}}
}

// openSource opens the scenario's database as admin with the given sql_mode
// (empty: the server's) and UTC session time zone.
func openSource(t *testing.T, env *testenv.Env, db, sqlMode string) *sql.DB {
	t.Helper()
	params := map[string]string{"time_zone": "'+00:00'"}
	if sqlMode != "" {
		params["sql_mode"] = "'" + sqlMode + "'"
	}
	my, err := sql.Open("mysql", env.MySQLAdminDSN(db, params))
	if err != nil {
		t.Fatal(err)
	}
	my.SetMaxOpenConns(4)
	t.Cleanup(func() { my.Close() })
	return my
}

// forgetStream deletes a stream's state in the target when the test ends.
func forgetStream(t *testing.T, env *testenv.Env, stream string) {
	pg := env.PG(t)
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied"} {
			_, _ = pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
}

// waitReplicating waits until the stream's checkpoint exists (replicating:
// the snapshot is done and replication runs), or migrate ends, or 90 s pass.
func waitReplicating(replicating func() bool, migDone chan error) error {
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		if replicating() {
			return nil
		}
		select {
		case err := <-migDone:
			migDone <- err
			return errors.New("migrate ended before replication started")
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("timed out")
}

// runSluice runs the binary to its end (at most 2 minutes), its output
// appended to logPath, and returns the exit code.
func runSluice(t *testing.T, bin, logPath string, args ...string) int {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := testenv.SluiceCommand(bin, args...)
	f := appendFile(t, logPath)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
	case <-ctx.Done():
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("sluice %s: timed out\n%s", args[0], tailFile(logPath, 40))
	}
	return cmd.ProcessState.ExitCode()
}

func appendFile(t *testing.T, path string) *os.File {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func tailFile(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// load runs a scenario's write transactions in one goroutine until stopped.
type load struct {
	mu      sync.Mutex // held by pause: no load transaction runs meanwhile
	done    atomic.Bool
	wg      sync.WaitGroup
	count   atomic.Int64
	failure atomic.Value
}

func startLoad(my *sql.DB, write func(*sql.DB, *rand.Rand) error) *load {
	l := &load{}
	l.wg.Add(1)
	go func() {
		defer l.wg.Done()
		rng := rand.New(rand.NewPCG(1, 2))
		for !l.done.Load() {
			l.mu.Lock()
			err := write(my, rng)
			l.mu.Unlock()
			if err != nil && !retryable(err) {
				l.failure.Store(err)
				return
			}
			if err == nil {
				l.count.Add(1)
			}
			time.Sleep(2 * time.Millisecond) // a busy application, not a benchmark
		}
	}()
	return l
}

func (l *load) pause()  { l.mu.Lock() }
func (l *load) resume() { l.mu.Unlock() }

// stop ends the load (idempotent) and returns the committed transactions.
func (l *load) stop() int64 {
	l.done.Store(true)
	l.wg.Wait()
	return l.count.Load()
}

func (l *load) err() error {
	err, _ := l.failure.Load().(error)
	return err
}

// retryable: deadlock (1213) and lock wait timeout (1205).
func retryable(err error) bool {
	var me *mysql.MySQLError
	return errors.As(err, &me) && (me.Number == 1213 || me.Number == 1205)
}

// inTxn runs fn in a transaction, committing on success.
func inTxn(my *sql.DB, fn func(tx *sql.Tx) error) error {
	tx, err := my.Begin()
	if err != nil {
		return err
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

// execAll runs statements in order, stopping at the first error.
func execAll(tx *sql.Tx, stmts ...string) error {
	for _, s := range stmts {
		if _, err := tx.Exec(s); err != nil {
			return errors.Join(errors.New(s), err)
		}
	}
	return nil
}

// mysqlErrNumber is the MySQL error number of err, or 0.
func mysqlErrNumber(err error) uint16 {
	var me *mysql.MySQLError
	if errors.As(err, &me) {
		return me.Number
	}
	return 0
}

// damageAndRepair runs the damage statements on the target (each must change
// one row), then requires verify to report differences naming every table
// in damaged, verify --repair to fix them, and verify to be equal again.
func damageAndRepair(t *testing.T, m migrated, damage []string, damaged ...string) {
	t.Helper()
	for _, d := range damage {
		if n, err := m.exec(d); err != nil || n != 1 {
			t.Fatalf("damage the target: %s: %v (%d rows)", d, err, n)
		}
	}
	bin := testenv.SluiceBinary(t)
	logPath := filepath.Join(t.TempDir(), "verify.log")
	args := append([]string{"verify", "--online=off", "--log-level", "warn", "--source", m.sourceURL, "--target", m.targetURL,
		"--include", m.db, "--stream", m.stream}, m.naming...)
	if code := runSluice(t, bin, logPath, args...); code != 1 {
		t.Fatalf("verify of a damaged target: exit %d, want 1\n%s", code, tailFile(logPath, 100))
	}
	out := tailFile(logPath, 1000)
	for _, table := range damaged {
		if !strings.Contains(out, m.db+"."+table+" →") {
			t.Errorf("verify's report does not list differences of %s:\n%s", table, out)
		}
	}
	if code := runSluice(t, bin, logPath, append(args, "--repair")...); code != 0 {
		t.Fatalf("verify --repair: exit %d\n%s", code, tailFile(logPath, 200))
	}
	if code := runSluice(t, bin, logPath, args...); code != 0 {
		t.Fatalf("verify after --repair: exit %d\n%s", code, tailFile(logPath, 100))
	}
}

// requireCutover runs inserts without explicit keys on the target, as the
// application does after a cut-over: each must succeed, which needs the
// identity sequences past every replicated row. Run it last: the rows exist
// only on the target.
func requireCutover(t *testing.T, m migrated, inserts ...string) {
	t.Helper()
	for _, q := range inserts {
		if _, err := m.exec(q); err != nil {
			t.Errorf("after cut-over: %s: %v", q, err)
		}
	}
}

// pgq is a table of the scenario's database on the PostgreSQL target, quoted
// (named as the scenario's naming options name it).
func (m migrated) pgq(table string) string { return pgx.Identifier{m.db, m.pgTable(table)}.Sanitize() }

// pgTable is the PostgreSQL name of a source table under m.naming.
func (m migrated) pgTable(table string) string {
	if to, ok := m.renamed(m.db + "." + table); ok {
		return to
	}
	if m.lower() {
		return strings.ToLower(table)
	}
	return table
}

// pgColumn is the PostgreSQL name of a source column under m.naming.
func (m migrated) pgColumn(table, column string) string {
	if to, ok := m.renamed(m.db + "." + table + "." + column); ok {
		return to
	}
	if m.lower() {
		return strings.ToLower(column)
	}
	return column
}

func (m migrated) lower() bool {
	return slices.Contains(m.naming, "lower") && slices.Contains(m.naming, "--identifiers")
}

// excluded reports whether m.naming leaves a source column out (--exclude-columns).
func (m migrated) excluded(table, column string) bool {
	for i, a := range m.naming {
		if a == "--exclude-columns" && i+1 < len(m.naming) && m.naming[i+1] == m.db+"."+table+"."+column {
			return true
		}
	}
	return false
}

// renamed looks a source name up in m.naming's --rename entries.
func (m migrated) renamed(from string) (string, bool) {
	for i, a := range m.naming {
		if a == "--rename" && i+1 < len(m.naming) {
			if f, to, ok := strings.Cut(m.naming[i+1], "="); ok && f == from {
				return to, true
			}
		}
	}
	return "", false
}

// exec runs a statement on the target and returns the rows it changed.

func (m migrated) exec(q string) (int64, error) {
	if m.tgt != nil {
		res, err := m.tgt.Exec(q)
		if err != nil {
			return 0, err
		}
		return res.RowsAffected()
	}
	tag, err := m.pg.Exec(context.Background(), m.pgSQL(q))
	return tag.RowsAffected(), err
}

// flavorDB is the source database of a scenario's seed: Exec adapts the
// seed's MariaDB SQL to the flavor (testenv.Env.SQL).
type flavorDB struct {
	*sql.DB
	env *testenv.Env
}

func (f flavorDB) Exec(q string, args ...any) (sql.Result, error) {
	return f.DB.Exec(flavorSQL(f.env, q), args...)
}

// refSystemID is MariaDB's SRID column attribute (MySQL's: SRID n after the
// column's other attributes).
var refSystemID = regexp.MustCompile(` REF_SYSTEM_ID=([0-9]+)((?: NOT NULL)?)`)

// flavorSQL adapts a fixture's MariaDB SQL to env's flavor: env.SQL, and on
// MySQL the SRID column attribute and WKT in SRID 4326 read longitude first
// (the fixtures' order; MySQL reads latitude first by default).
func flavorSQL(env *testenv.Env, q string) string {
	q = env.SQL(q)
	if env.IsMySQL() {
		q = strings.ReplaceAll(q, ", 4326)", ", 4326, 'axis-order=long-lat')")
		q = refSystemID.ReplaceAllString(q, "$2 SRID $1")
	}
	return q
}
