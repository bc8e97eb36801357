package replicate

import (
	"context"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

const workloadTables = `CREATE TABLE acc (id INT AUTO_INCREMENT PRIMARY KEY, k INT NOT NULL, v VARCHAR(100), n DECIMAL(12,2),
		u BIGINT UNSIGNED, ts DATETIME(3), UNIQUE KEY (k));
	CREATE TABLE pair (a INT, b VARCHAR(20), val DOUBLE, PRIMARY KEY (a, b));
	CREATE TABLE nokey (a INT, b VARCHAR(20), c FLOAT)`

// workload runs n random source transactions of 1-6 statements over the
// workload tables: inserts (several rows), updates (also of keys), deletes.
func workload(t *testing.T, g *myRig, rng *rand.Rand, n int) {
	t.Helper()
	ctx := context.Background()
	for i := 0; i < n; i++ {
		tx, err := g.my.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for j := rng.IntN(6) + 1; j > 0; j-- {
			var q string
			k := rng.IntN(400)
			switch rng.IntN(9) {
			case 0, 1:
				q = fmt.Sprintf("INSERT IGNORE INTO acc (k, v, n, u, ts) VALUES (%d, 'v%d', %d.%02d, %d, NOW(3)), (%d, 'Ä%d', NULL, 18446744073709551615, '2024-02-29 12:00:00.125')",
					k, k, rng.IntN(100000), rng.IntN(100), rng.Uint64()>>1, k+1000, k)
			case 2:
				q = fmt.Sprintf("UPDATE acc SET v = CONCAT(v, 'x'), n = n + 1 WHERE k BETWEEN %d AND %d", k, k+10)
			case 3:
				q = fmt.Sprintf("UPDATE IGNORE acc SET k = k + 2000 WHERE k = %d", k)
			case 4:
				q = fmt.Sprintf("DELETE FROM acc WHERE k BETWEEN %d AND %d", k, k+3)
			case 5:
				q = fmt.Sprintf("INSERT INTO pair VALUES (%d, 'b%d', %g) ON DUPLICATE KEY UPDATE val = val * 2", k%50, k%7, rng.Float64())
			case 6:
				q = fmt.Sprintf("UPDATE IGNORE pair SET b = CONCAT(b, 'y') WHERE a = %d AND LENGTH(b) < 15", k%50)
			case 7:
				q = fmt.Sprintf("INSERT INTO nokey VALUES (%d, 'n%d', %g), (%d, 'n%d', 0.1)", k%20, k%3, rng.Float32(), k%20, k%3)
			case 8:
				if rng.IntN(2) == 0 {
					q = fmt.Sprintf("DELETE FROM nokey WHERE a = %d LIMIT 1", k%20)
				} else {
					q = fmt.Sprintf("UPDATE nokey SET c = c + 1 WHERE a = %d LIMIT 2", k%20)
				}
			}
			if _, err := tx.ExecContext(ctx, q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestMySQLTargetWorkload replicates CREATE TABLE and a random workload
// (multi-row transactions, key updates, a keyless table with duplicates)
// into a MySQL target, on InnoDB and with --target-engine ROCKSDB, and
// compares every table value for value.
func TestMySQLTargetWorkload(t *testing.T) { testenv.MySQLTargetFlavors(t, testMySQLTargetWorkload) }

func testMySQLTargetWorkload(t *testing.T, env *testenv.Env) {
	for _, engine := range []string{"", "ROCKSDB"} {
		t.Run("engine="+engine, func(t *testing.T) {
			g := newMyRig(t, env, "mt_work", engine)
			g.exec(strings.Split(workloadTables, ";")...)
			workload(t, g, rand.New(rand.NewPCG(1, uint64(len(engine)))), 300)
			g.catchUp()
			g.compare()
			if engine != "" {
				var e string
				if err := g.tgt.QueryRow(`SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'acc'`, g.tdb).Scan(&e); err != nil || e != engine {
					t.Errorf("target table engine %q (%v), want %s", e, err, engine)
				}
			}
			st, err := mysqlstate.Load(context.Background(), g.tgt, g.stream, binlogpos.Decode)
			if err != nil || st == nil || st.SchemaVersion != 4 {
				t.Fatalf("checkpoint %+v, %v; want schema version 4 (start + 3 CREATE TABLE)", st, err)
			}
		})
	}
}

// TestMySQLTargetEveryType replicates the every-type corpus (inserted with
// an empty sql_mode: zero dates, the invalid ENUM value, out-of-range
// literals) plus updates and deletes, and compares every value byte for
// byte, on InnoDB and ROCKSDB; then every value of three rows replaced in
// one multi-row update (on InnoDB one CASE UPDATE), compared again.
func TestMySQLTargetEveryType(t *testing.T) { testenv.MySQLTargetFlavors(t, testMySQLTargetEveryType) }

func testMySQLTargetEveryType(t *testing.T, env *testenv.Env) {
	for _, engine := range []string{"", "ROCKSDB"} {
		t.Run("engine="+engine, func(t *testing.T) {
			corpus := typecorpus.For(env.IsMySQL()).WithVector(env.HasVector(t))
			if engine == "ROCKSDB" {
				corpus = forRocksDB(corpus)
			}
			g := newMyRig(t, env, "mt_types", engine)
			g.exec(corpus.CreateTable("types"), "CREATE TABLE types_nokey LIKE types", "ALTER TABLE types_nokey DROP PRIMARY KEY")
			conn, err := g.my.Conn(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			for _, q := range []string{
				"SET SESSION sql_mode = ''",
				corpus.Insert("types"),
				corpus.Insert("types_nokey"),
				"UPDATE types SET id = id + 100 WHERE id <= 2",
				"DELETE FROM types_nokey WHERE id = 1",
				"UPDATE types_nokey SET id = id + 100 WHERE id = 2",
				"INSERT INTO types (id, " + corpusColumns(corpus) + ") SELECT id + 1000, " + corpusColumns(corpus) + " FROM types",
				"DELETE FROM types WHERE id = 1004",
			} {
				if _, err := conn.ExecContext(context.Background(), q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			g.catchUp()
			g.compare()
			// Every value of three rows the target holds replaced by another
			// row's, keys kept: one run of updates of distinct rows, which
			// goes as one multi-row statement (the CASE UPDATE on InnoDB).
			q := "UPDATE types AS a JOIN types AS b ON (a.id, b.id) IN ((1003, 101), (1101, 3), (1102, 4)) SET " +
				corpusAssignments(corpus, "a", "b")
			if _, err := conn.ExecContext(context.Background(), q); err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			g.catchUp()
			g.compare()
			if n := g.count("types"); n != 7 {
				t.Errorf("types has %d rows on the target, want 7", n)
			}
		})
	}
}

// corpusColumns lists the written (not generated) corpus columns.
func corpusColumns(c typecorpus.Corpus) string {
	var out []string
	for _, col := range c {
		if !col.Generated() {
			out = append(out, "`"+col.Name+"`")
		}
	}
	return strings.Join(out, ", ")
}

// corpusAssignments sets every written corpus column of alias to from's.
func corpusAssignments(c typecorpus.Corpus, alias, from string) string {
	var out []string
	for _, col := range c {
		if !col.Generated() {
			out = append(out, alias+".`"+col.Name+"` = "+from+".`"+col.Name+"`")
		}
	}
	return strings.Join(out, ", ")
}

// forRocksDB leaves out what MyRocks cannot store: GEOMETRY and generated
// columns.
func forRocksDB(c typecorpus.Corpus) typecorpus.Corpus {
	var out typecorpus.Corpus
	for _, col := range c {
		if !strings.Contains(strings.ToUpper(col.DDL), "GEOMETRY") && !col.Generated() {
			out = append(out, col)
		}
	}
	return out
}

// TestMySQLTargetDDLReplay replays schema changes in binlog order: ADD,
// RENAME and MODIFY COLUMN, indexes, RENAME TABLE, a qualified statement,
// CREATE and DROP TABLE, TRUNCATE, a foreign key whose cascade the target
// runs itself; rows written between them land in the right columns.
func TestMySQLTargetDDLReplay(t *testing.T) { testenv.MariaDBAndMySQL9(t, testMySQLTargetDDLReplay) }

func testMySQLTargetDDLReplay(t *testing.T, env *testenv.Env) {
	g := newMyRig(t, env, "mt_ddl", "")
	g.exec(
		"CREATE TABLE t (id INT PRIMARY KEY, a INT, b VARCHAR(20))",
		"INSERT INTO t VALUES (1, 10, 'x'), (2, 20, 'y')",
		"ALTER TABLE t ADD COLUMN c INT NOT NULL DEFAULT 5 AFTER a",
		"INSERT INTO t VALUES (3, 30, 7, 'z')",
		"UPDATE t SET c = c + 1 WHERE id = 1",
		"ALTER TABLE t RENAME COLUMN b TO bb, ADD INDEX (a)",
		"UPDATE t SET bb = 'renamed' WHERE id = 2",
		"ALTER TABLE t MODIFY a BIGINT",
		"INSERT INTO t VALUES (4, 9000000000, 1, 'big')",
		"RENAME TABLE t TO t2",
		"ALTER TABLE `"+g.db+"`.t2 ADD COLUMN e TEXT",
		"INSERT INTO t2 VALUES (5, 1, 1, 'e', 'text')",
		"ALTER TABLE t2 CONVERT TO CHARACTER SET latin1",
		"INSERT INTO t2 VALUES (6, 1, 1, 'é', 'latin1 é')",
		"CREATE INDEX ix_e ON t2 (e(10))",
		"ALTER TABLE t2 COMMENT = 'hello', AUTO_INCREMENT = 100",
		"CREATE TABLE gone (id INT PRIMARY KEY)",
		"INSERT INTO gone VALUES (1)",
		"DROP TABLE gone",
		"CREATE TABLE trunc (id INT PRIMARY KEY)",
		"INSERT INTO trunc VALUES (1), (2)",
		"TRUNCATE TABLE trunc",
		"INSERT INTO trunc VALUES (3)",
		"CREATE TABLE parent (id INT PRIMARY KEY)",
		"CREATE TABLE child (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES parent (id) ON DELETE CASCADE)",
		"INSERT INTO parent VALUES (1), (2)",
		"INSERT INTO child VALUES (1, 1), (2, 1), (3, 2)",
		"DELETE FROM parent WHERE id = 1",
		"INSERT INTO child VALUES (4, 2)",
	)
	g.catchUp()
	g.compare()
	cols := func(db *sql.DB, schema string) []string {
		var out []string
		for _, r := range testenv.MySQLTexts(t, db, `SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, IFNULL(COLLATION_NAME, '') FROM information_schema.COLUMNS
			WHERE TABLE_SCHEMA = ? ORDER BY TABLE_NAME, ORDINAL_POSITION`, schema) {
			out = append(out, r[0].String+"."+r[1].String+" "+r[2].String+" "+r[3].String)
		}
		for _, r := range testenv.MySQLTexts(t, db, `SELECT TABLE_NAME, INDEX_NAME, SEQ_IN_INDEX, COLUMN_NAME, IFNULL(SUB_PART, 0) FROM information_schema.STATISTICS
			WHERE TABLE_SCHEMA = ? ORDER BY 1, 2, 3`, schema) {
			out = append(out, "index "+r[0].String+"."+r[1].String+" "+r[2].String+" "+r[3].String+" "+r[4].String)
		}
		for _, r := range testenv.MySQLTexts(t, db, `SELECT TABLE_NAME, TABLE_COMMENT, TABLE_COLLATION FROM information_schema.TABLES
			WHERE TABLE_SCHEMA = ? ORDER BY 1`, schema) {
			out = append(out, "table "+r[0].String+" "+r[1].String+" "+r[2].String)
		}
		return out
	}
	if a, b := cols(g.my, g.db), cols(g.tgt, g.tdb); !slices.Equal(a, b) {
		t.Errorf("target columns differ from the source's:\n source %v\n target %v", a, b)
	}
	if n := g.count("child"); n != 2 {
		t.Errorf("child has %d rows on the target, want 2 (the cascade deleted two)", n)
	}
	st, err := mysqlstate.Load(context.Background(), g.tgt, g.stream, binlogpos.Decode)
	if err != nil || st == nil || st.SchemaVersion != 16 {
		t.Errorf("checkpoint %+v, %v; want schema version 16 (start + 15 schema changes)", st, err)
	}
}

// TestMySQLTargetRestart stops replication in the middle of a workload and
// starts it again twice: every table ends equal to the source (no change
// lost, none applied twice).
func TestMySQLTargetRestart(t *testing.T) { testenv.MariaDBAndMySQL9(t, testMySQLTargetRestart) }

func testMySQLTargetRestart(t *testing.T, env *testenv.Env) {
	g := newMyRig(t, env, "mt_restart", "")
	g.exec(strings.Split(workloadTables, ";")...)
	rng := rand.New(rand.NewPCG(7, 7))
	for round := 0; round < 2; round++ {
		b := g.start2()
		done := make(chan struct{})
		go func() {
			defer close(done)
			workload(t, g, rng, 150)
		}()
		time.Sleep(time.Duration(300+round*400) * time.Millisecond)
		if err := b.stop(30 * time.Second); err != nil {
			t.Fatalf("round %d: stop: %v", round, err)
		}
		<-done
		if round == 0 {
			g.exec("ALTER TABLE acc ADD COLUMN extra INT DEFAULT 3")
		}
	}
	g.catchUp()
	g.compare()
}

// TestMySQLTargetLargeTransaction replicates a source transaction larger
// than --max-txn-memory: it arrives in fragments and is written into one
// target transaction committed with the checkpoint.
func TestMySQLTargetLargeTransaction(t *testing.T) {
	testenv.MariaDBAndMySQL9(t, testMySQLTargetLargeTransaction)
}

func testMySQLTargetLargeTransaction(t *testing.T, env *testenv.Env) {
	g := newMyRig(t, env, "mt_large", "")
	g.exec("CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(2000), n BIGINT UNSIGNED)",
		"CREATE TABLE small (id INT PRIMARY KEY)")
	g.exec("INSERT INTO small VALUES (1)",
		"INSERT INTO big SELECT seq, REPEAT(CHAR(65 + seq % 26), 1500), seq * 1000003 FROM seq_1_to_30000",
		"INSERT INTO small VALUES (2)",
		"UPDATE big SET pad = 'short' WHERE id <= 20000",
		"DELETE FROM big WHERE id > 25000")
	o := g.options()
	o.MaxTxnMemory = 16 << 20
	o.UntilCaughtUp = true
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		t.Fatalf("replicate: %v", err)
	}
	g.compare()
	if n := g.count("big"); n != 25000 {
		t.Errorf("big has %d rows, want 25000", n)
	}
	if n := g.tableCount("SELECT COUNT(*) FROM sluice.applied WHERE stream = ?", g.stream); n > 2 {
		t.Errorf("%d applied records left after catching up", n)
	}
}
