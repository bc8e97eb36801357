package verify

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// mySide is a test's MySQL→MySQL pair: a fresh source database and a fresh
// database on the MySQL target server, which receives the same tables.
type mySide struct {
	env          *testenv.Env
	tgtEnv       *testenv.Env // the target's flavor when it is a source server (fixture SQL adapted)
	srcDB, tgtDB string
	tgtURL       string // --target
	src          config.MySQL
	tgt          config.MySQL
	my, tg       *sql.DB // multiStatements, sql_mode '' (zero dates), time_zone +00:00
	rocks        bool
}

func newMySide(t *testing.T, env *testenv.Env, prefix string) *mySide {
	t.Helper()
	mt := env.MySQLTarget(t)
	s := &mySide{env: env, srcDB: env.NewDatabase(t, prefix), tgtDB: testenv.UniqueName(prefix + "_t"), rocks: mt.HasRocksDB(t)}
	if mt.IsMySQL() {
		s.tgtEnv = testenv.GetFlavor(t, testenv.MySQL) // the MySQL 9.7 server: fixture SQL adapted
	}
	mt.NewDatabase(t, s.tgtDB)
	var err error
	if s.src, err = config.ParseSource(env.SourceURL(s.srcDB)); err != nil {
		t.Fatal(err)
	}
	s.tgtURL = mt.URL(s.tgtDB)
	if s.tgt, err = config.ParseMySQLTarget(s.tgtURL); err != nil {
		t.Fatal(err)
	}
	s.my, s.tg = openFixture(t, s.src), openFixture(t, s.tgt)
	return s
}

// newMySideOnMySQL is a mySide whose target is a database on the MySQL
// flavor's server (testenv.GetFlavor: MySQL 9, which has no MD5()).
func newMySideOnMySQL(t *testing.T, prefix string) *mySide {
	t.Helper()
	env := testenv.Get(t)
	myEnv := testenv.GetFlavor(t, testenv.MySQL)
	s := &mySide{env: env, tgtEnv: myEnv, srcDB: env.NewDatabase(t, prefix), tgtDB: myEnv.NewDatabase(t, prefix+"_t")}
	s.tgtURL = myEnv.SourceURL(s.tgtDB)
	var err error
	if s.src, err = config.ParseSource(env.SourceURL(s.srcDB)); err != nil {
		t.Fatal(err)
	}
	if s.tgt, err = config.ParseMySQLTarget(s.tgtURL); err != nil {
		t.Fatal(err)
	}
	s.my, s.tg = openFixture(t, s.src), openFixture(t, s.tgt)
	return s
}

func openFixture(t *testing.T, m config.MySQL) *sql.DB {
	t.Helper()
	cfg := m.Config()
	cfg.MultiStatements = true
	cfg.Params["sql_mode"] = "''"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// both runs fixture SQL on the source and on the target.
func (s *mySide) both(t *testing.T, q string, args ...any) {
	t.Helper()
	s.mustSrc(t, q, args...)
	s.mustTgt(t, q, args...)
}

func (s *mySide) mustSrc(t *testing.T, q string, args ...any) {
	t.Helper()
	q = s.env.SQL(q)
	if _, err := s.my.Exec(q, args...); err != nil {
		t.Fatalf("source: %v\n%s", err, q)
	}
}

func (s *mySide) mustTgt(t *testing.T, q string, args ...any) {
	t.Helper()
	if s.tgtEnv != nil {
		q = s.tgtEnv.SQL(q)
	}
	if _, err := s.tg.Exec(q, args...); err != nil {
		t.Fatalf("target: %v\n%s", err, q)
	}
}

func (s *mySide) tables(t *testing.T, names ...string) []*schema.Table {
	t.Helper()
	var out []*schema.Table
	for _, n := range names {
		out = append(out, loadTable(t, s.my, s.srcDB, n))
	}
	return out
}

func (s *mySide) verify(t *testing.T, tables []*schema.Table, mutate func(*Options)) *Report {
	t.Helper()
	topts := typemap.DefaultOptions()
	var err error
	if topts.Charsets, err = typemap.LoadCharsets(context.Background(), s.my, typemap.CharsetsOf(tables)...); err != nil {
		t.Fatal(err)
	}
	o := Options{
		Source: s.src, Engine: mysink.NewEngine(s.tgt, ""), Tables: tables,
		Mapper: typemap.New(topts, nil), Workers: 2, Online: OnlineOff,
		ChunkRows: 700, FetchRows: 50,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	}
	if testing.Verbose() {
		o.Log = slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	if mutate != nil {
		mutate(&o)
	}
	rep, err := Run(context.Background(), o)
	if err != nil {
		t.Fatalf("verify: %v", err)
	}
	if testing.Verbose() {
		var b bytes.Buffer
		rep.WriteSummary(&b)
		t.Log("\n" + b.String())
	}
	for _, tr := range rep.Tables {
		if tr.Error != "" {
			t.Fatalf("verify %s: %s", tr.Table, tr.Error)
		}
	}
	return rep
}

// dump reads every row of a table as the stored bytes of each column
// (typemap.SelectExpr: exact floats, text in its own charset as raw
// bytes) over a binary-charset session, sorted.
func dump(t *testing.T, m config.MySQL, table *schema.Table, database string) []string {
	t.Helper()
	cfg := m.Config()
	cfg.Collation = "binary"
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var sel []string
	for _, c := range table.Columns {
		sel = append(sel, typemap.SelectExpr(c, schema.QuoteMySQL(c.Name)))
	}
	rows, err := db.Query("SELECT " + strings.Join(sel, ", ") + " FROM " + schema.QuoteMySQL(database) + "." + schema.QuoteMySQL(table.Name))
	if err != nil {
		t.Fatalf("dump %s.%s: %v", database, table.Name, err)
	}
	defer rows.Close()
	var out []string
	vals := make([][]byte, len(sel))
	ptrs := make([]any, len(sel))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			parts[i] = table.Columns[i].Name + "="
			if v != nil {
				parts[i] += hex.EncodeToString(v)
			} else {
				parts[i] += "NULL"
			}
		}
		out = append(out, strings.Join(parts, " "))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// sameData fails unless every table holds the same bytes on both sides.
func (s *mySide) sameData(t *testing.T, tables []*schema.Table) {
	t.Helper()
	for _, tb := range tables {
		src, tgt := dump(t, s.src, tb, s.srcDB), dump(t, s.tgt, tb, s.tgtDB)
		if strings.Join(src, "\n") != strings.Join(tgt, "\n") {
			t.Errorf("table %s differs after repair:\nsource:\n  %s\ntarget:\n  %s", tb.Name,
				strings.Join(src, "\n  "), strings.Join(tgt, "\n  "))
		}
	}
}

func wantResult(t *testing.T, what string, rep *Report, want string) {
	t.Helper()
	if rep.Result != want {
		var b bytes.Buffer
		rep.WriteSummary(&b)
		t.Fatalf("%s: result %q, want %q\n%s", what, rep.Result, want, b.String())
	}
}

// wantTables fails unless every table has the result want.
func wantTables(t *testing.T, what string, rep *Report, want string) {
	t.Helper()
	for _, tr := range rep.Tables {
		if tr.Result != want {
			var b bytes.Buffer
			rep.WriteSummary(&b)
			t.Fatalf("%s: table %s: result %q, want %q\n%s", what, tr.Table, tr.Result, want, b.String())
		}
	}
}

const testRows = 3000

// rowValues is the generated row id of the damage test's table t.
func rowValues(id int) string {
	d := fmt.Sprintf("'2020-%02d-%02d'", id%12+1, id%28+1)
	if id%100 == 40 {
		d = "'0000-00-00'"
	}
	return fmt.Sprintf("(%d, 'v%d', %d, REPEAT(x'00ff%02x', %d), %s, %d.%d, 1e0/%d)",
		id, id, id*7, id%256, id%5+1, d, id, id%10, id)
}

// createDamageTables creates the same tables with the same rows on both
// sides: t (range chunks), tk (text key: hash buckets), k (no key) and r
// (ROCKSDB on the target when it has MyRocks).
func (s *mySide) createDamageTables(t *testing.T) []string {
	s.both(t, `CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(20) NOT NULL, n INT, b BLOB, d DATE NULL, f FLOAT, dbl DOUBLE)`)
	var vals []string
	for id := 1; id <= testRows; id++ {
		vals = append(vals, rowValues(id))
	}
	s.both(t, "INSERT INTO t VALUES "+strings.Join(vals, ", "))
	s.both(t, `CREATE TABLE tk (code VARCHAR(10) PRIMARY KEY, v INT) COLLATE utf8mb4_general_ci`)
	s.both(t, `INSERT INTO tk SELECT CONCAT('key', seq), seq FROM seq_1_to_500`)
	s.both(t, `CREATE TABLE k (a INT, s VARCHAR(10))`)
	s.both(t, `INSERT INTO k VALUES (1, 'x'), (1, 'x'), (2, 'y'), (3, NULL)`)
	s.mustSrc(t, `CREATE TABLE r (id BIGINT PRIMARY KEY, s VARCHAR(30) CHARACTER SET latin1, j DECIMAL(20,6))`)
	engine := ""
	if s.rocks {
		engine = " ENGINE=ROCKSDB"
	}
	s.mustTgt(t, `CREATE TABLE r (id BIGINT PRIMARY KEY, s VARCHAR(30) CHARACTER SET latin1, j DECIMAL(20,6))`+engine)
	s.both(t, `INSERT INTO r SELECT seq, CONCAT('é', seq), seq * 1.000001 FROM seq_1_to_1000`)
	return []string{"t", "tk", "k", "r"}
}

// damage changes the target: one row of each kind of difference.
func (s *mySide) damage(t *testing.T) []string {
	var dbl float64
	var f float32
	if err := s.tg.QueryRow("SELECT dbl, f FROM t WHERE id = 60").Scan(&dbl, &f); err != nil {
		t.Fatal(err)
	}
	s.mustTgt(t, "UPDATE t SET n = n + 1 WHERE id = 10")
	s.mustTgt(t, "DELETE FROM t WHERE id = 20")
	s.mustTgt(t, "INSERT INTO t VALUES "+rowValues(5000))
	s.mustTgt(t, "UPDATE t SET b = CONCAT(LEFT(b, LENGTH(b) - 1), x'01') WHERE id = 30")
	s.mustTgt(t, "UPDATE t SET d = NULL WHERE id = 40")
	s.mustTgt(t, "UPDATE t SET v = CONCAT(v, ' ') WHERE id = 50")
	s.mustTgt(t, "UPDATE t SET dbl = ?, f = ? WHERE id = 60",
		strconv.FormatFloat(math.Nextafter(dbl, math.Inf(1)), 'g', -1, 64),
		strconv.FormatFloat(float64(math.Nextafter32(f, float32(math.Inf(1)))), 'g', -1, 32))
	s.mustTgt(t, "UPDATE tk SET v = -1 WHERE code = 'key77'")
	s.mustTgt(t, "UPDATE tk SET code = 'KEY7' WHERE code = 'key7'") // equal in the collation, not in bytes
	s.mustTgt(t, "DELETE FROM tk WHERE code = 'key300'")
	s.mustTgt(t, "DELETE FROM k WHERE a = 1 LIMIT 1")
	s.mustTgt(t, "INSERT INTO k VALUES (4, 'z')")
	s.mustTgt(t, "UPDATE r SET s = 'e999' WHERE id = 999")
	s.mustTgt(t, "UPDATE r SET j = j + 0.000001 WHERE id = 3")
	return []string{
		"t differs id=10 n",
		"t only_in_source id=20",
		"t only_in_target id=5000",
		"t differs id=30 b",
		"t differs id=40 d",
		"t differs id=50 v",
		"t differs id=60 f",
		"t differs id=60 dbl",
		`tk differs code="key77" v`,
		`tk only_in_source code="key7"`,
		`tk only_in_target code="KEY7"`,
		`tk only_in_source code="key300"`,
		"r differs id=999 s",
		"r differs id=3 j",
	}
}

// TestMySQLTargetRepair: two MySQL servers with the same tables and rows are
// equal; every kind of damage to the target is found row by row, --repair
// makes the target byte for byte equal to the source, and verify is then
// clean. The tables cover range chunks, hash buckets (a text key whose
// damage is a change of letter case only), a keyless table and a ROCKSDB
// table on the target.
//
// MariaDB into the MariaDB target, and MySQL 9.7 into a MySQL 9.7 target.
func TestMySQLTargetRepair(t *testing.T) { testenv.MariaDBAndMySQL9(t, testMySQLTargetRepair) }

func testMySQLTargetRepair(t *testing.T, env *testenv.Env) {
	s := newMySide(t, env, "vmy_rep")
	tables := s.tables(t, s.createDamageTables(t)...)
	wantResult(t, "equal tables", s.verify(t, tables, nil), ResultEqual)

	want := s.damage(t)
	rep := s.verify(t, tables, nil)
	wantResult(t, "damaged target", rep, ResultDifferences)
	sameLines(t, "differences", found(rep), want)
	for _, tr := range rep.Tables {
		if tr.Table == s.srcDB+".k" && (tr.OnlyInSource != 1 || tr.OnlyInTarget != 1) {
			t.Errorf("keyless table: only in source %d, only in target %d; want 1 and 1", tr.OnlyInSource, tr.OnlyInTarget)
		}
		if tr.Target != s.tgtDB+"."+tr.Table[len(s.srcDB)+1:] {
			t.Errorf("target of %s is %s", tr.Table, tr.Target)
		}
	}

	rep = s.verify(t, tables, func(o *Options) { o.Repair = true })
	wantResult(t, "repair", rep, ResultEqual)
	wantTables(t, "repair", rep, ResultRepaired)
	wantResult(t, "after repair", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)
}

// TestMySQLTargetRepairSQL: --repair-sql writes a script for the mysql
// client that makes the target equal (values as literals, the repair
// sessions' settings), and changes nothing itself.
func TestMySQLTargetRepairSQL(t *testing.T) {
	s := newMySide(t, testenv.Get(t), "vmy_sql")
	tables := s.tables(t, s.createDamageTables(t)...)
	s.damage(t)
	var script bytes.Buffer
	rep := s.verify(t, tables, func(o *Options) { o.RepairSQL = &script })
	wantResult(t, "repair-sql", rep, ResultDifferences)
	wantResult(t, "unchanged by --repair-sql", s.verify(t, tables, nil), ResultDifferences)
	if !strings.Contains(script.String(), "SET NAMES binary") {
		t.Fatalf("script:\n%s", script.String())
	}
	s.mustTgt(t, script.String())
	wantResult(t, "after the script", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)
}

// TestMySQLTargetTypeCorpus: the every-type table with the same rows on
// both sides is equal; a target that lost its rows, or holds other bytes in
// every row, is repaired to the source's bytes for every type (zero dates,
// the invalid ENUM value, text in eight charsets, BIT, geometry, JSON...).
// From a MariaDB source and from a MySQL source (into the MariaDB target),
// and from MySQL 9.7 into a MySQL 9.7 target.
func TestMySQLTargetTypeCorpus(t *testing.T) {
	testenv.MySQLTargetFlavors(t, testMySQLTargetTypeCorpus)
}

func testMySQLTargetTypeCorpus(t *testing.T, env *testenv.Env) {
	s := newMySide(t, env, "vmy_types")
	corpus := typecorpus.For(s.env.IsMySQL()).WithVector(s.env.HasVector(t))
	s.both(t, corpus.CreateTable("c"))
	s.mustSrc(t, corpus.Insert("c"))
	tables := s.tables(t, "c")
	if s.env.IsMySQL() {
		// MySQL's literals differ (typecorpus.For): the target is filled by
		// the repair of an empty copy.
		wantResult(t, "empty copy", s.verify(t, tables, nil), ResultDifferences)
		wantTables(t, "fill", s.verify(t, tables, func(o *Options) { o.Repair = true }), ResultRepaired)
	} else {
		s.mustTgt(t, corpus.Insert("c"))
	}
	wantResult(t, "same corpus", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)

	// Half the rows gone, the others changed in every column but the key.
	s.mustTgt(t, "DELETE FROM c WHERE id % 2 = 0")
	s.mustTgt(t, "INSERT INTO c (id) VALUES (100)")
	s.mustTgt(t, "UPDATE c SET ti = 1, vc = 'x', lat = 'x', dt = '2001-01-01', dt6 = NULL, b64 = 2, bn = 'zzzz', j = '[1]', st = 'y', en = 'b', f = 2, db = 3 WHERE id = 1")
	rep := s.verify(t, tables, nil)
	wantResult(t, "damaged corpus", rep, ResultDifferences)
	rep = s.verify(t, tables, func(o *Options) { o.Repair = true })
	wantResult(t, "repaired corpus", rep, ResultEqual)
	wantTables(t, "repaired corpus", rep, ResultRepaired)
	wantResult(t, "after repair", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)
}

// TestMySQLTargetCLI: `sluice verify` with a mysql:// target: exit 1 with
// differences, --repair exits 0, and verify is then clean (exit 0).
func TestMySQLTargetCLI(t *testing.T) {
	s := newMySide(t, testenv.Get(t), "vmy_cli")
	bin := testenv.SluiceBinary(t)
	s.both(t, `CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(10))`)
	s.both(t, `INSERT INTO a SELECT seq, CONCAT('a', seq) FROM seq_1_to_200`)
	args := []string{"verify", "--source", s.env.SourceURL(s.srcDB), "--target", s.tgtURL, "--log-level", "warn"}
	if out, code := runSluice(t, bin, 2*time.Minute, args...); code != 0 {
		t.Fatalf("equal: exit %d\n%s", code, out)
	}
	s.mustTgt(t, "UPDATE a SET v = 'changed' WHERE id = 7")
	out, code := runSluice(t, bin, 2*time.Minute, append(args, "--json")...)
	if code != 1 {
		t.Fatalf("differences: exit %d, want 1\n%s", code, out)
	}
	rep := parseReport(t, out)
	sameLines(t, "differences", found(rep), []string{"a differs id=7 v"})
	if out, code := runSluice(t, bin, 2*time.Minute, append(args, "--repair")...); code != 0 {
		t.Fatalf("--repair: exit %d\n%s", code, out)
	}
	if out, code := runSluice(t, bin, 2*time.Minute, args...); code != 0 {
		t.Fatalf("after repair: exit %d\n%s", code, out)
	}

	// A user with only SELECT on the target database (a replica's
	// read-only account) may verify; --repair is refused by the pre-flight.
	admin := testenv.Get(t).MySQLTarget(t).Admin(t)
	user := testenv.UniqueName("vro")
	if _, err := admin.Exec("CREATE USER '" + user + "'@'%' IDENTIFIED BY 'pw'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = admin.Exec("DROP USER '" + user + "'@'%'") })
	if _, err := admin.Exec("GRANT SELECT ON `" + s.tgtDB + "`.* TO '" + user + "'@'%'"); err != nil {
		t.Fatal(err)
	}
	ro := "mysql://" + user + ":pw@" + s.tgt.Addr() + "/" + s.tgtDB
	roArgs := []string{"verify", "--source", s.env.SourceURL(s.srcDB), "--target", ro, "--log-level", "warn"}
	if out, code := runSluice(t, bin, 2*time.Minute, roArgs...); code != 0 {
		t.Fatalf("read-only user: exit %d\n%s", code, out)
	}
	out, code = runSluice(t, bin, 2*time.Minute, append(roArgs, "--repair")...)
	if code != 2 || !strings.Contains(out, "lacks") {
		t.Fatalf("read-only user --repair: exit %d, want 2 and the missing privileges\n%s", code, out)
	}
}

// TestMySQLTargetOnlineRecheck plays a replicator into the MySQL target by
// hand (its checkpoint in the target's sluice database, mysqlstate): a row
// whose change is in flight is re-read once the checkpoint passes it and
// not reported; a row changed on the target only is.
func TestMySQLTargetOnlineRecheck(t *testing.T) {
	s := newMySide(t, testenv.Get(t), "vmy_online")
	ctx := context.Background()
	s.both(t, `CREATE TABLE o (id INT PRIMARY KEY, v VARCHAR(20))`)
	s.both(t, `INSERT INTO o SELECT seq, CONCAT('v', seq) FROM seq_1_to_500`)
	tables := s.tables(t, "o")
	stream := testenv.UniqueName("vmy_online")
	if err := mysqlstate.Ensure(ctx, s.tg, ""); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mysqlstate.Delete(context.Background(), s.tg, stream) })
	my, err := verifydb.OpenSource(ctx, s.src, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer my.Close()
	before, err := sourcePosition(ctx, my)
	if err != nil {
		t.Fatal(err)
	}
	if err := mysqlstate.Save(ctx, s.tg, stream, checkpoint.State{Position: before}); err != nil {
		t.Fatal(err)
	}
	s.mustSrc(t, "UPDATE o SET v = 'changed' WHERE id = 7") // in flight
	s.mustTgt(t, "UPDATE o SET v = 'tampered' WHERE id = 300")
	applied := make(chan error, 1)
	go func() {
		time.Sleep(1500 * time.Millisecond)
		pos, err := sourcePosition(ctx, my)
		if err == nil {
			_, err = s.tg.ExecContext(ctx, "UPDATE o SET v = 'changed' WHERE id = 7")
		}
		if err == nil {
			err = mysqlstate.Save(ctx, s.tg, stream, checkpoint.State{Position: pos})
		}
		applied <- err
	}()
	start := time.Now()
	rep := s.verify(t, tables, func(o *Options) {
		o.Online, o.Stream, o.Recheck, o.RecheckWait = OnlineOn, stream, 2, 10*time.Second
	})
	if err := <-applied; err != nil {
		t.Fatal(err)
	}
	if !rep.Online {
		t.Error("report does not say online")
	}
	sameLines(t, "online differences", found(rep), []string{"o differs id=300 v"})
	if took := time.Since(start); took < time.Second {
		t.Errorf("verify did not wait for the checkpoint (took %v)", took)
	}
	// auto is off on a MySQL target: nothing tells verify a replicator runs.
	rep = s.verify(t, tables, func(o *Options) { o.Online, o.Stream = OnlineAuto, stream })
	if rep.Online {
		t.Error("--online auto ran online on a MySQL target")
	}
}

// TestMySQLTargetRepairFollowsForeignKeys is TestRepairFollowsForeignKeys
// on a MySQL target: one run repairs a parent deleted on the target with
// its cascaded children and deletes what the source deleted, in foreign key
// order, applied or as a script run by the mysql client.
func TestMySQLTargetRepairFollowsForeignKeys(t *testing.T) {
	for _, mode := range []string{"applied", "sql"} {
		t.Run(mode, func(t *testing.T) {
			s := newMySide(t, testenv.Get(t), "vmy_fk")
			s.both(t, `CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10));
				CREATE TABLE child (id INT PRIMARY KEY, pid INT NOT NULL, FOREIGN KEY (pid) REFERENCES parent (id) ON DELETE CASCADE);
				CREATE TABLE grandchild (id INT PRIMARY KEY, cid INT NOT NULL, FOREIGN KEY (cid) REFERENCES child (id) ON DELETE CASCADE);
				INSERT INTO parent VALUES (1, 'a'), (2, 'b'), (3, 'c');
				INSERT INTO child VALUES (10, 1), (11, 1), (20, 2);
				INSERT INTO grandchild VALUES (100, 10), (101, 11)`)
			s.mustTgt(t, `DELETE FROM parent WHERE id = 1`)
			s.mustSrc(t, `DELETE FROM child WHERE id = 20; DELETE FROM parent WHERE id IN (2, 3)`)
			tables := s.tables(t, "parent", "child", "grandchild")
			var script bytes.Buffer
			s.verify(t, tables, func(o *Options) {
				o.Repair = mode == "applied"
				if mode == "sql" {
					o.RepairSQL = &script
				}
				o.Workers = 3
			})
			if mode == "sql" {
				cmd := exec.Command("mysql", "--binary-mode", "-h", s.tgt.Host, "-P", strconv.Itoa(s.tgt.Port),
					"-u", s.tgt.User, "-p"+s.tgt.Password, "-D", s.tgtDB)
				cmd.Stdin = bytes.NewReader(script.Bytes())
				if out, err := cmd.CombinedOutput(); err != nil {
					t.Fatalf("mysql < repair.sql: %v\n%s\n--- file:\n%s", err, out, script.String())
				}
			}
			wantTables(t, "after the repair", s.verify(t, tables, nil), ResultEqual)
			s.sameData(t, tables)
		})
	}
}

// TestMySQLTargetOnMySQL9: a MariaDB source compared with and repaired into
// MySQL 9 (no MD5(): SHA-256 on both sides; its own JSON type).
func TestMySQLTargetOnMySQL9(t *testing.T) {
	s := newMySideOnMySQL(t, "vmy_my9")
	names := s.createDamageTables(t)
	s.both(t, `CREATE TABLE js (id INT PRIMARY KEY, j JSON)`)
	s.both(t, `INSERT INTO js VALUES (1, '{"a": [1, 2.50, "ü"], "b": null}'), (2, '[]'), (3, NULL)`)
	tables := s.tables(t, append(names, "js")...)
	wantResult(t, "equal tables", s.verify(t, tables, nil), ResultEqual)
	want := s.damage(t)
	s.mustTgt(t, `UPDATE js SET j = '{"a": [1, 2.5, "u"], "b": null}' WHERE id = 1`)
	s.mustTgt(t, `DELETE FROM js WHERE id = 2`)
	rep := s.verify(t, tables, nil)
	wantResult(t, "damaged target", rep, ResultDifferences)
	sameLines(t, "differences", found(rep), append(want, "js differs id=1 j", "js only_in_source id=2"))
	wantTables(t, "repair", s.verify(t, tables, func(o *Options) { o.Repair = true }), ResultRepaired)
	wantResult(t, "after repair", s.verify(t, tables, nil), ResultEqual)
}

// TestMySQLTargetLatin1Key: a key of latin1 text (compared in hash buckets,
// read as raw bytes) is found and repaired by its bytes.
func TestMySQLTargetLatin1Key(t *testing.T) {
	s := newMySide(t, testenv.Get(t), "vmy_lat")
	s.both(t, `CREATE TABLE l (k VARCHAR(10) CHARACTER SET latin1 PRIMARY KEY, v INT)`)
	s.both(t, `INSERT INTO l VALUES ('é1', 1), ('é2', 2), ('ÿ3', 3), ('a4', 4)`)
	tables := s.tables(t, "l")
	wantResult(t, "equal", s.verify(t, tables, nil), ResultEqual)
	s.mustTgt(t, `UPDATE l SET v = 20 WHERE k = 'é2'`)
	s.mustTgt(t, `DELETE FROM l WHERE k = 'ÿ3'`)
	s.mustTgt(t, `INSERT INTO l VALUES ('ü5', 5)`)
	rep := s.verify(t, tables, nil)
	sameLines(t, "differences", found(rep), []string{`l differs k="é2" v`, `l only_in_source k="ÿ3"`, `l only_in_target k="ü5"`})
	wantTables(t, "repair", s.verify(t, tables, func(o *Options) { o.Repair = true }), ResultRepaired)
	wantResult(t, "after repair", s.verify(t, tables, nil), ResultEqual)
	s.sameData(t, tables)
}
