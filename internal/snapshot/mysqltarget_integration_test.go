package snapshot

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint/mysqlstate"
	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	mysnap "github.com/sluice-db/sluice/internal/source/mysql/consistent"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/testenv/typecorpus"
)

// myTestOptions are the options of a snapshot of source database db into
// target database dst on the MySQL target, in a stream of its own whose
// state is forgotten when the test ends.
func myTestOptions(t *testing.T, env *testenv.Env, db, dst string) (Options, *sql.DB) {
	t.Helper()
	opts := testOptions(t, env, db)
	tgt := env.MySQLTarget(t)
	m, err := config.ParseSource(tgt.URL(dst))
	if err != nil {
		t.Fatal(err)
	}
	opts.Target = mysink.NewEngine(m, "")
	// The sandbox source is shared with other tests' writers: no global
	// read lock to wait for.
	opts.Method = mysnap.MethodLockFree
	if env.IsMySQL() {
		opts.Method = mysnap.MethodTableLock // MySQL has no lock-free point; this lock is of the test's tables only
	}
	tgt.DropAtEnd(t, dst)
	admin := tgt.Admin(t)
	stream := opts.Stream
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			admin.Exec("DELETE FROM sluice."+tbl+" WHERE stream = ?", stream)
		}
	})
	return opts, admin
}

// engines are the target engines a test runs on: InnoDB, and ROCKSDB when
// the target has it.
func engines(t *testing.T, env *testenv.Env) []string {
	out := []string{""}
	if env.MySQLTarget(t).HasRocksDB(t) {
		out = append(out, "ROCKSDB")
	}
	return out
}

// readByID reads expr for every row of table on one session in UTC,
// keyed by id; NULL reads as typecorpus.Null.
func readByID(t *testing.T, db *sql.DB, table, expr string) map[int]string {
	t.Helper()
	ctx := context.Background()
	c, err := db.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if _, err := c.ExecContext(ctx, "SET SESSION time_zone = '+00:00', SESSION sql_mode = ''"); err != nil {
		t.Fatal(err)
	}
	rows, err := c.QueryContext(ctx, "SELECT id, "+expr+" FROM "+table)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	defer rows.Close()
	out := map[int]string{}
	for rows.Next() {
		var id int
		var v sql.NullString
		if err := rows.Scan(&id, &v); err != nil {
			t.Fatal(err)
		}
		out[id] = typecorpus.Null
		if v.Valid {
			out[id] = v.String
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// TestMySQLTargetEveryTypeExact snapshots the every-type corpus (and a
// 16 MiB blob) into the MySQL target (a MariaDB) on each engine and compares
// every column of every row byte for byte: HEX() on both sides, and for
// FLOAT and DOUBLE also the exact value (HEX of a float is of its rounded
// integer). From a MySQL 9.7 source too: its CREATE TABLE translated
// (utf8mb4_0900 collations, INVISIBLE), its JSON as MySQL prints it.
func TestMySQLTargetEveryTypeExact(t *testing.T) {
	testenv.MySQLTargetFlavors(t, testMySQLTargetEveryTypeExact)
}

func testMySQLTargetEveryTypeExact(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "mysnap_types")
	my := env.MySQL(t, db)
	for _, engine := range engines(t, env) {
		t.Run("engine="+engine, func(t *testing.T) {
			corpus := typecorpus.For(env.IsMySQL()).WithVector(env.HasVector(t))
			if engine == "ROCKSDB" {
				// MyRocks has no spatial types and no generated columns (refused: see below).
				var rest typecorpus.Corpus
				for _, c := range corpus {
					if !strings.Contains(c.DDL, "GEOMETRY") && !c.Generated() {
						rest = append(rest, c)
					}
				}
				corpus = rest
			}
			table := "every" + strings.ToLower(engine)
			mustExec(t, my, corpus.CreateTable(table))
			mustExec(t, my, "ALTER TABLE "+table+" ADD COLUMN big LONGBLOB")
			mustExec(t, my, "SET SESSION sql_mode = ''; "+corpus.Insert(table))
			mustExec(t, my, "UPDATE "+table+" SET big = "+bigBlob+" WHERE id = 1")
			dst := testenv.UniqueName("mysnap_types_dst")
			opts, admin := myTestOptions(t, env, db, dst)
			opts.Include = []string{db + "." + table}
			opts.ChunkRows = 2
			withStorage(&opts, engine)
			rep, err := Run(context.Background(), opts)
			if err != nil {
				t.Fatal(err)
			}
			if rep.Rows != int64(typecorpus.Rows) || rep.Bytes < 16<<20 {
				t.Errorf("report: %d rows, %d bytes", rep.Rows, rep.Bytes)
			}
			for _, c := range append(corpus, typecorpus.Column{Name: "big", DDL: "LONGBLOB"}) {
				q := "`" + c.Name + "`"
				exprs := []string{"HEX(" + q + ")"}
				d := strings.ToUpper(c.DDL)
				if strings.HasPrefix(d, "FLOAT") || strings.HasPrefix(d, "DOUBLE") {
					exprs = append(exprs, "CAST("+q+" AS DOUBLE)")
				}
				if env.IsMySQL() && (strings.HasPrefix(d, "FLOAT") || strings.HasPrefix(d, "DOUBLE") || strings.HasPrefix(d, "DECIMAL")) {
					// HEX of a number past 64 bits saturates differently on
					// MySQL and MariaDB: the decimal's text, the float's value.
					exprs[0] = "HEX(CAST(" + q + " AS CHAR))"
					if d[0] != 'D' || strings.HasPrefix(d, "DOUBLE") {
						exprs = exprs[1:]
					}
				}
				for _, e := range exprs {
					src := readByID(t, my, "`"+db+"`."+table, e)
					got := readByID(t, admin, "`"+dst+"`."+table, e)
					if len(src) != typecorpus.Rows || len(got) != len(src) {
						t.Errorf("%s: %d rows on the source, %d on the target", e, len(src), len(got))
					}
					for id, want := range src {
						if got[id] != want {
							t.Errorf("%s (%s) row %d: target %.80s, source %.80s", e, c.DDL, id, got[id], want)
						}
					}
				}
			}
			if env.IsMySQL() {
				// MySQL's utf8mb4_0900_ai_ci became MariaDB's closest, the invisible column stayed so.
				var coll, extra string
				if err := admin.QueryRow("SELECT (SELECT COLLATION_NAME FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'vc'), "+
					"(SELECT EXTRA FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? AND COLUMN_NAME = 'hid')", dst, table, dst, table).Scan(&coll, &extra); err != nil {
					t.Fatal(err)
				}
				want := "utf8mb4_uca1400_nopad_ai_ci"
				if engine == "ROCKSDB" {
					want = "utf8mb4_uca1400_ai_ci" // MyRocks has no NO PAD collations
				}
				var known int
				if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.COLLATIONS WHERE COLLATION_NAME = 'utf8mb4_0900_ai_ci'").Scan(&known); err != nil {
					t.Fatal(err)
				}
				if env.MySQLTarget(t).IsMySQL() || known > 0 {
					// Into MySQL, and into MariaDB 11.8, which has utf8mb4_0900_ai_ci
					// too, the collation is kept as it is.
					want = "utf8mb4_0900_ai_ci"
				}
				if coll != want || extra != "INVISIBLE" {
					t.Errorf("target vc collation %s, hid extra %q; want %s, INVISIBLE", coll, extra, want)
				}
			}
			var engineGot string
			if err := admin.QueryRow("SELECT ENGINE FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ?", dst, table).Scan(&engineGot); err != nil {
				t.Fatal(err)
			}
			if want := map[string]string{"": "InnoDB", "ROCKSDB": "ROCKSDB"}[engine]; engineGot != want {
				t.Errorf("target engine %s, want %s", engineGot, want)
			}
			if engine == "ROCKSDB" {
				// A GEOMETRY column is refused on ROCKSDB, naming it, before anything is written.
				opts, _ := myTestOptions(t, env, db, testenv.UniqueName("mysnap_geo_dst"))
				opts.Include = []string{db + ".every"}
				withStorage(&opts, engine)
				mustExec(t, my, "CREATE TABLE IF NOT EXISTS every (id INT PRIMARY KEY, g GEOMETRY)")
				_, err := Run(context.Background(), opts)
				if err == nil || exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "g geometry") {
					t.Errorf("GEOMETRY into ROCKSDB: %v (exit %d), want a configuration error naming the column", err, exitcode.Of(err))
				}
			}
		})
	}
}

const myFKFixture = `
CREATE TABLE parent (id INT PRIMARY KEY AUTO_INCREMENT, name VARCHAR(20) COLLATE utf8mb4_general_ci NOT NULL, UNIQUE KEY (name));
CREATE TABLE child (id BIGINT PRIMARY KEY, parent_id INT NOT NULL, note TEXT,
	CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id) ON DELETE CASCADE);
CREATE TABLE grandchild (k VARCHAR(10) COLLATE latin1_general_ci PRIMARY KEY, child_id BIGINT,
	CONSTRAINT gc_child FOREIGN KEY (child_id) REFERENCES child (id));
CREATE TABLE nokey (a INT, b VARCHAR(30));
INSERT INTO parent (name) SELECT CONCAT('p', seq) FROM seq_1_to_30;
INSERT INTO child SELECT seq, 1 + seq % 30, REPEAT('c', seq % 40) FROM seq_1_to_100;
INSERT INTO grandchild SELECT CONCAT(IF(seq % 2, 'G', 'g'), LPAD(seq, 4, '0'), 'é'), IF(seq % 5 = 0, NULL, seq) FROM seq_1_to_50;
INSERT INTO nokey SELECT seq % 7, IF(seq % 3 = 0, NULL, REPEAT('n', seq % 30)) FROM seq_1_to_60;
CREATE VIEW parent_names AS SELECT name FROM parent;
`

// myTables are the fixture's tables with a row query for each.
var myTables = map[string]string{
	"parent":     "SELECT id, HEX(name) FROM %s.parent",
	"child":      "SELECT id, parent_id, HEX(note) FROM %s.child",
	"grandchild": "SELECT HEX(k), child_id FROM %s.grandchild",
	"nokey":      "SELECT a, HEX(b) FROM %s.nokey",
}

func compareTables(t *testing.T, src, dst *sql.DB, srcDB, dstDB string) {
	t.Helper()
	for name, q := range myTables {
		a := sortStrings(testenv.MySQLRows(t, src, fmt.Sprintf(q, "`"+srcDB+"`")))
		b := sortStrings(testenv.MySQLRows(t, dst, fmt.Sprintf(q, "`"+dstDB+"`")))
		if strings.Join(a, "\n") != strings.Join(b, "\n") {
			t.Errorf("table %s: target differs from source (%d vs %d rows)", name, len(b), len(a))
		}
	}
}

// TestMySQLTargetForeignKeysKeylessAndState snapshots tables with foreign
// keys (children copied in any order), a keyless table and a view, compares
// every row, and reads back the checkpoint and schema history version 1.
func TestMySQLTargetForeignKeysKeylessAndState(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only (seq tables)")
	}
	db := env.NewDatabase(t, "mysnap_fk")
	my := env.MySQL(t, db)
	mustExec(t, my, myFKFixture)
	for _, engine := range engines(t, env) {
		t.Run("engine="+engine, func(t *testing.T) {
			ctx := context.Background()
			dst := testenv.UniqueName("mysnap_fk_dst")
			opts, admin := myTestOptions(t, env, db, dst)
			opts.ChunkRows = 7
			opts.Workers = 3
			withStorage(&opts, strings.ToLower(engine)) // taken in the target's spelling
			if engine == "ROCKSDB" {
				// MyRocks has no foreign keys: child's ON DELETE CASCADE
				// would never run there (the binlog does not carry the rows
				// it deletes), so the snapshot refuses the table; with a
				// plain foreign key it is left out harmlessly.
				_, err := Run(ctx, opts)
				if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "child_parent") ||
					!strings.Contains(err.Error(), "ON DELETE CASCADE") {
					t.Fatalf("into ROCKSDB with an ON DELETE CASCADE: want exit 2 naming child_parent, got %v", err)
				}
				mustExec(t, my, "ALTER TABLE child DROP FOREIGN KEY child_parent")
				mustExec(t, my, "ALTER TABLE child ADD CONSTRAINT child_parent FOREIGN KEY (parent_id) REFERENCES parent (id)")
			}
			rep, err := Run(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			compareTables(t, my, admin, db, dst)
			if rep.Tables != 4 || rep.Rows != 30+100+50+60 || rep.Position.IsZero() {
				t.Errorf("report: %d tables, %d rows, position %s", rep.Tables, rep.Rows, rep.Position)
			}
			var text strings.Builder
			rep.WriteText(&text)
			if !strings.Contains(text.String(), "parent_names") || !strings.Contains(text.String(), "MB/s") {
				t.Errorf("text report lacks the view or the per-table lines:\n%s", text.String())
			}
			var fks int
			if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE CONSTRAINT_SCHEMA = ? AND UNIQUE_CONSTRAINT_SCHEMA = ?", dst, dst).Scan(&fks); err != nil {
				t.Fatal(err)
			}
			warned := 0
			for _, w := range rep.Warnings {
				if strings.Contains(w, "foreign key left out") {
					warned++
				}
			}
			if engine == "" && (fks != 2 || warned != 0) || engine != "" && (fks != 0 || warned != 2) {
				t.Errorf("engine %q: %d foreign keys on the target, %d warned about: %v", engine, fks, warned, rep.Warnings)
			}
			const autoInc = "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'parent'"
			var next, srcNext int64
			if err := admin.QueryRow(autoInc, dst).Scan(&next); err != nil {
				t.Fatal(err)
			}
			if err := my.QueryRow(autoInc, db).Scan(&srcNext); err != nil {
				t.Fatal(err)
			}
			if next != srcNext || next < 31 {
				t.Errorf("parent's AUTO_INCREMENT: %d on the target, %d on the source", next, srcNext)
			}
			st, err := mysqlstate.Load(ctx, admin, opts.Stream, binlogpos.Decode)
			if err != nil || st == nil || st.Position != model.Position(rep.Position) || st.SchemaVersion != 1 {
				t.Fatalf("checkpoint %+v, %v; want %s at schema version 1", st, err, rep.Position)
			}
			tables, err := mysqlstate.LoadSchema(ctx, admin, opts.Stream, 1)
			if err != nil || len(tables) != 4 {
				t.Fatalf("schema history version 1: %d tables, %v", len(tables), err)
			}
			for name := range myTables {
				if tb := tables[schema.TableID{Database: db, Name: name}]; tb == nil || len(tb.Columns) == 0 {
					t.Errorf("schema history lacks %s.%s", db, name)
				}
			}
			// A second run finds it complete and changes nothing.
			rep2, err := Run(ctx, opts)
			if err != nil || !rep2.AlreadyComplete || rep2.Rows != rep.Rows {
				t.Errorf("second run: %+v, %v", rep2, err)
			}
		})
	}
}

// TestMySQLTargetRefusals: what a snapshot into a MySQL target refuses with
// exit 2 before writing anything: MySQL syntax MariaDB lacks (a functional
// index), a scope of several source databases, a stream another snapshot holds.
func TestMySQLTargetRefusals(t *testing.T) {
	ctx := context.Background()
	t.Run("functional index", func(t *testing.T) {
		env := testenv.GetFlavor(t, testenv.MySQL)
		db := env.NewDatabase(t, "mysnap_flavor")
		my := env.MySQL(t, db)
		mustExec(t, my, "CREATE TABLE a (id INT PRIMARY KEY, doc JSON, KEY by_x ((CAST(doc->'$.x' AS UNSIGNED))))")
		mustExec(t, my, "CREATE TABLE b (id INT PRIMARY KEY)")
		dst := testenv.UniqueName("mysnap_flavor_dst")
		opts, admin := myTestOptions(t, env, db, dst)
		opts.Method = ""
		_, err := Run(ctx, opts)
		if exitcode.Of(err) != 2 || err == nil || !strings.Contains(err.Error(), "table "+db+".a") ||
			!strings.Contains(err.Error(), "functional index (KEY `by_x`") {
			t.Errorf("a functional index into a MariaDB target: %v (exit %d), want exit 2 naming the table and the index", err, exitcode.Of(err))
		}
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?", dst).Scan(&n); err != nil || n != 0 {
			t.Errorf("the refused snapshot created the target database (%d, %v)", n, err)
		}
	})
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only")
	}
	t.Run("databases", func(t *testing.T) {
		a, b := env.NewDatabase(t, "mysnap_two"), env.NewDatabase(t, "mysnap_two")
		mustExec(t, env.MySQL(t, a), "CREATE TABLE x (id INT PRIMARY KEY)")
		mustExec(t, env.MySQL(t, b), "CREATE TABLE y (id INT PRIMARY KEY)")
		opts, _ := myTestOptions(t, env, a, testenv.UniqueName("mysnap_two_dst"))
		opts.Include = []string{a + ".*", b + ".*"}
		if _, err := Run(ctx, opts); exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "one source database") {
			t.Errorf("two source databases: %v (exit %d)", err, exitcode.Of(err))
		}
	})
	t.Run("stream lock", func(t *testing.T) {
		db := env.NewDatabase(t, "mysnap_lock")
		mustExec(t, env.MySQL(t, db), "CREATE TABLE a (id INT PRIMARY KEY)")
		opts, admin := myTestOptions(t, env, db, testenv.UniqueName("mysnap_lock_dst"))
		held, err := admin.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		var got int
		if err := held.QueryRowContext(ctx, "SELECT GET_LOCK(?, 0)", mysqlstate.SnapshotLockName(opts.Stream)).Scan(&got); err != nil || got != 1 {
			t.Fatalf("GET_LOCK: %d, %v", got, err)
		}
		opts.StreamLockWait = 300 * time.Millisecond
		if _, err := Run(ctx, opts); exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "another sluice snapshot") {
			t.Errorf("stream held by another snapshot: %v (exit %d)", err, exitcode.Of(err))
		}
	})
}

// TestMySQLTargetSameServer: the source server as the target is fine for
// another database, refused for the source database itself.
func TestMySQLTargetSameServer(t *testing.T) {
	env := testenv.Get(t)
	if env.IsMySQL() {
		t.Skip("MariaDB source only")
	}
	db := env.NewDatabase(t, "mysnap_same")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(5)); INSERT INTO a VALUES (1, 'x')")
	opts := testOptions(t, env, db)
	opts.Method = mysnap.MethodLockFree
	self, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	opts.Target = mysink.NewEngine(self, "")
	if _, err := Run(context.Background(), opts); exitcode.Of(err) != 2 || !strings.Contains(err.Error(), "is the source database") {
		t.Errorf("source database as the target: %v (exit %d)", err, exitcode.Of(err))
	}
	if n := testenv.MySQLRows(t, my, "SELECT id, v FROM a"); len(n) != 1 {
		t.Errorf("source table changed: %v", n)
	}
}

// TestMySQLTargetMySQLToMySQL copies the MySQL 9.7 corpus (binary JSON,
// utf8mb4_0900 collations, MySQL's float printing) into another database
// of the same MySQL server, the only MySQL target the sandbox has, and
// compares every column byte for byte. sluice's state goes to that
// server's database sluice, dropped at the end when this test created it.
func TestMySQLTargetMySQLToMySQL(t *testing.T) {
	env := testenv.GetFlavor(t, testenv.MySQL)
	ctx := context.Background()
	root := env.MySQL(t, "")
	var had int
	if err := root.QueryRow("SELECT COUNT(*) FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = 'sluice'").Scan(&had); err != nil {
		t.Fatal(err)
	}
	if had == 0 {
		t.Cleanup(func() { root.Exec("DROP DATABASE IF EXISTS sluice") })
	}
	corpus := typecorpus.For(true)
	db := env.NewDatabase(t, "mysnap_my")
	dst := env.NewDatabase(t, "mysnap_my_dst")
	my := env.MySQL(t, db)
	mustExec(t, my, corpus.CreateTable("every"))
	mustExec(t, my, "SET SESSION sql_mode = ''; "+corpus.Insert("every"))
	opts := testOptions(t, env, db)
	target, err := config.ParseSource(env.SourceURL(dst))
	if err != nil {
		t.Fatal(err)
	}
	opts.Target = mysink.NewEngine(target, "")
	opts.ChunkRows = 2
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			root.Exec("DELETE FROM sluice."+tbl+" WHERE stream = ?", opts.Stream)
		}
	})
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Rows != int64(typecorpus.Rows) || rep.Position.IsZero() {
		t.Errorf("report: %d rows at %s", rep.Rows, rep.Position)
	}
	for _, c := range corpus {
		q := "`" + c.Name + "`"
		exprs := []string{"HEX(" + q + ")"}
		switch d := strings.ToUpper(c.DDL); {
		case strings.HasPrefix(d, "FLOAT") || strings.HasPrefix(d, "DOUBLE"):
			exprs = append(exprs, "CAST("+q+" AS DOUBLE)")
		case strings.HasPrefix(d, "JSON"):
			exprs = append(exprs, "CAST("+q+" AS CHAR)", "JSON_TYPE("+q+")")
		}
		for _, e := range exprs {
			src := readByID(t, my, "`"+db+"`.every", e)
			got := readByID(t, my, "`"+dst+"`.every", e)
			if len(src) != typecorpus.Rows || len(got) != len(src) {
				t.Errorf("%s: %d rows on the source, %d on the target", e, len(src), len(got))
			}
			for id, want := range src {
				if got[id] != want {
					t.Errorf("%s (%s) row %d: target %.80s, source %.80s", e, c.DDL, id, got[id], want)
				}
			}
		}
	}
}
