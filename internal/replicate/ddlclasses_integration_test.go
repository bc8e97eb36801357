package replicate

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/verify"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestDDLClassDropPrimaryKeyNullable: a column made nullable in the ALTER
// that drops the primary key is nullable on PostgreSQL too (the next NULL
// insert applies); a primary key column the ALTER does not MODIFY keeps
// its NOT NULL, as on the source.
func TestDDLClassDropPrimaryKeyNullable(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_pknull", "CREATE TABLE a (id INT NOT NULL, k INT, v INT, PRIMARY KEY (id, k))")
		g.exec("INSERT INTO a VALUES (1, 1, 1)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE a DROP PRIMARY KEY, MODIFY id INT NULL",
			"INSERT INTO a VALUES (NULL, 2, 2)",
			"CREATE TABLE b (id INT PRIMARY KEY, v INT)",
			"INSERT INTO b VALUES (1, 1)",
			"ALTER TABLE b MODIFY id INT, DROP PRIMARY KEY",
			"INSERT INTO b VALUES (NULL, 2)",
			"CREATE TABLE c (id INT, v INT, PRIMARY KEY (id))",
			"ALTER TABLE c CHANGE id id2 INT NULL DEFAULT NULL, DROP PRIMARY KEY, ADD UNIQUE KEY (v)",
			"INSERT INTO c VALUES (NULL, 2), (3, 3)",
			"UPDATE c SET v = 4 WHERE id2 IS NULL",
			"CREATE TABLE d (id INT PRIMARY KEY, v INT)",
			"ALTER TABLE d MODIFY id INT, DROP PRIMARY KEY, ADD PRIMARY KEY (v)",
			"INSERT INTO d VALUES (NULL, 1)",
			"CREATE TABLE e (id INT, v INT, PRIMARY KEY (id))",
			"ALTER TABLE e DROP PRIMARY KEY",
			"ALTER TABLE e MODIFY v INT NOT NULL",
			"INSERT INTO e VALUES (1, 1)",
		)
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassPrimaryKeySwap: a primary key replaced by a composite one in
// the statement that swaps a unique key; later updates and deletes apply.
func TestDDLClassPrimaryKeySwap(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_pkswap", "CREATE TABLE s (id INT NOT NULL, k INT NOT NULL, v INT, PRIMARY KEY (id), UNIQUE KEY uk (k))")
		g.exec("INSERT INTO s VALUES (1, 10, 1), (2, 20, 2)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE s DROP PRIMARY KEY, DROP KEY uk, ADD PRIMARY KEY (k, id), ADD UNIQUE KEY uk (id)",
			"INSERT INTO s VALUES (3, 30, 3)",
			"UPDATE s SET v = v + 10",
			"UPDATE s SET k = k + 1 WHERE id = 2",
			"DELETE FROM s WHERE id = 1",
			"ALTER TABLE s DROP PRIMARY KEY, ADD PRIMARY KEY (id, v), DROP INDEX uk, ADD UNIQUE INDEX uk (k)",
			"UPDATE s SET v = v + 1",
			"DELETE FROM s WHERE id = 3",
			"ALTER TABLE s ADD PRIMARY KEY (k), ADD UNIQUE KEY uk (id, v), DROP PRIMARY KEY, DROP KEY uk",
			"UPDATE s SET v = v + 1",
			"UPDATE s SET k = k + 100 WHERE id = 2",
		)
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassMoveColumn: CHANGE … AFTER / FIRST together with other
// changes in one ALTER; rows written after it land in the right columns.
func TestDDLClassMoveColumn(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_move", "CREATE TABLE m (id INT PRIMARY KEY, a INT, b VARCHAR(10), c INT)")
		g.exec("INSERT INTO m VALUES (1, 1, 'one', 100)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE m CHANGE a a BIGINT AFTER c, CHANGE b b2 VARCHAR(20) FIRST",
			"INSERT INTO m VALUES ('two', 2, 200, 2)",
			"ALTER TABLE m ADD COLUMN d INT AFTER id, MODIFY c INT AFTER d, CHANGE id id INT FIRST",
			"INSERT INTO m VALUES (3, 'three', 33, 300, 3)",
			"UPDATE m SET d = id * 10, c = c + 1",
			"ALTER TABLE m ADD COLUMN e INT FIRST, ADD COLUMN f INT AFTER e, DROP COLUMN d",
			"INSERT INTO m VALUES (5, 6, 4, 'four', 400, 4)",
			"ALTER TABLE m MODIFY a BIGINT FIRST, MODIFY e INT AFTER c",
			"INSERT INTO m VALUES (7, 8, 5, 'five', 500, 9)",
			"UPDATE m SET f = a",
		)
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassMyISAMReferences: a MyISAM table with column-level
// REFERENCES or a FOREIGN KEY (the engine drops the constraint and keeps its
// index) appears on the target with its rows and no constraint; on InnoDB
// a column-level REFERENCES is a foreign key whose cascade the target does.
func TestDDLClassMyISAMReferences(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_myisam", "CREATE TABLE p (id INT PRIMARY KEY)")
		g.snapshot(g.stream, "")
		g.exec(
			"CREATE TABLE r (id INT PRIMARY KEY, pid INT REFERENCES p(id), qid INT REFERENCES nowhere(x) ON DELETE CASCADE) ENGINE=MyISAM",
			"INSERT INTO r VALUES (1, 5, 7)",
			"CREATE TABLE r2 (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p(id)) ENGINE=MyISAM",
			"INSERT INTO r2 VALUES (1, 9)",
			"ALTER TABLE r2 ADD COLUMN qid INT REFERENCES p(id), ADD FOREIGN KEY (id) REFERENCES p(id)",
			"INSERT INTO r2 VALUES (2, 9, 9)",
			// InnoDB makes column-level REFERENCES a foreign key: its cascade
			// is not in the binlog, so the target must have it too.
			"INSERT INTO p VALUES (1), (2)",
			"CREATE TABLE c (id INT PRIMARY KEY, pid INT REFERENCES p(id) ON DELETE CASCADE)",
			"INSERT INTO c VALUES (1, 1), (2, 2)",
			"CREATE TABLE c2 (id INT PRIMARY KEY)",
			"ALTER TABLE c2 ADD COLUMN pid INT REFERENCES p(id) ON DELETE CASCADE",
			"INSERT INTO c2 VALUES (1, 1), (2, 2)",
			"DELETE FROM p WHERE id = 1",
		)
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassBackslashName: tables whose names hold a backslash are
// replicated (DDL included) and verified.
func TestDDLClassBackslashName(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_bslash", "CREATE TABLE `a\\b` (id INT PRIMARY KEY, v INT)")
		g.exec("INSERT INTO `a\\b` VALUES (1, 1)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE `a\\b` ADD COLUMN w INT",
			"INSERT INTO `a\\b` VALUES (2, 2, 2)",
			"CREATE TABLE `c\\d` (id INT PRIMARY KEY, `x\\y` INT, KEY `k\\1` (`x\\y`))",
			"INSERT INTO `c\\d` VALUES (1, 1)",
			"RENAME TABLE `a\\b` TO `a\\b\\c`",
			"UPDATE `a\\b\\c` SET v = 3",
		)
		g.catchUp(g.options())
		g.compare()
		for _, name := range []string{"a\\b\\c", "c\\d"} {
			if rep := g.verifyTable(t, "`"+name+"`"); rep.Result != verify.ResultEqual {
				t.Errorf("verify %s: %s", name, rep.Result)
			}
		}
	})
}

// TestDDLClassUnicodeColumns: CHAR/VARCHAR UNICODE (ucs2) columns of a
// table created mid-stream take rows like any other.
func TestDDLClassUnicodeColumns(t *testing.T) {
	g := newRigOn(t, testenv.GetFlavor(t, testenv.MariaDB), "cls_ucs2", "CREATE TABLE p (id INT PRIMARY KEY)")
	g.snapshot(g.stream, "")
	g.exec(
		"CREATE TABLE t1 (a CHAR(10) UNICODE, b VARCHAR(20) UNICODE)",
		"INSERT INTO t1 VALUES ('v1-é', 'v2-é'), (NULL, NULL)",
		"CREATE TABLE t2 (id INT PRIMARY KEY, a CHAR(10) UNICODE)",
		"INSERT INTO t2 VALUES (1, 'x-é')",
	)
	g.catchUp(g.options())
	g.compare()
}

// TestDDLClassStatementTime: rows that a schema change fills with the
// current time get the source's statement time on the target too (to the
// microsecond): ADD COLUMN … TIMESTAMP DEFAULT CURRENT_TIMESTAMP, and on
// MariaDB a TIMESTAMP column's NULLs when it becomes NOT NULL (by MODIFY or
// by joining the primary key).
func TestDDLClassStatementTime(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_now", "CREATE TABLE a (id INT PRIMARY KEY, v INT)")
		g.exec("INSERT INTO a VALUES (1, 1), (2, 2)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE a ADD COLUMN t0 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP",
			"ALTER TABLE a ADD COLUMN t6 TIMESTAMP(6) NULL DEFAULT CURRENT_TIMESTAMP(6), ADD COLUMN t3 TIMESTAMP(3) NULL DEFAULT CURRENT_TIMESTAMP(3)",
			"INSERT INTO a (id, v) VALUES (3, 3)",
		)
		if !env.IsMySQL() {
			g.exec(
				"CREATE TABLE b (id INT PRIMARY KEY, ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, k INT NOT NULL)",
				"INSERT INTO b VALUES (1, NULL, NULL, 1), (2, '2020-01-01 00:00:00', '2020-01-01 00:00:00.5', 2)",
				"ALTER TABLE b MODIFY ts TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP",
				"ALTER TABLE b DROP PRIMARY KEY, ADD PRIMARY KEY (k, ts3)",
				"UPDATE b SET id = id + 10",
			)
		}
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassBinaryWiden: BINARY(n) made wider pads existing values with
// zero bytes on the target as MySQL does, so a keyless table's later
// updates find their rows.
func TestDDLClassBinaryWiden(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_bin", "CREATE TABLE b (s BINARY(8), v INT)")
		g.exec("INSERT INTO b VALUES ('test', 1), (NULL, 2)")
		g.snapshot(g.stream, "")
		g.exec(
			"ALTER TABLE b MODIFY s BINARY(10)",
			"UPDATE b SET v = 3 WHERE v = 1",
			"INSERT INTO b VALUES ('new', 4)",
		)
		g.catchUp(g.options())
		g.compare()
	})
}

// TestDDLClassForeignKeyToNonUniqueKey: InnoDB lets a foreign key reference
// any indexed columns, PostgreSQL only a unique key. One that only
// restricts is left out on the target (the source enforces it) and rows
// flow; one with a cascade, whose changes the binlog does not carry, stops
// replication with --skip-ddl guidance. (MySQL 9.7 refuses such keys:
// restrict_fk_on_non_standard_key.)
func TestDDLClassForeignKeyToNonUniqueKey(t *testing.T) {
	g := newRigOn(t, testenv.GetFlavor(t, testenv.MariaDB), "cls_fknu", "CREATE TABLE p (id INT PRIMARY KEY, i INT, KEY (i))")
	g.exec("INSERT INTO p VALUES (1, 10), (2, 10)")
	g.snapshot(g.stream, "")
	g.exec(
		"CREATE TABLE c (id INT PRIMARY KEY, i INT, CONSTRAINT f1 FOREIGN KEY (i) REFERENCES p (i) ON DELETE RESTRICT)",
		"INSERT INTO c VALUES (1, 10)",
		"CREATE TABLE c2 (id INT PRIMARY KEY, i INT)",
		"INSERT INTO c2 VALUES (1, 10)",
	)
	g.catchUp(g.options())
	g.compare()
	g.exec("ALTER TABLE c2 ADD CONSTRAINT f2 FOREIGN KEY (i) REFERENCES p (i) ON DELETE CASCADE")
	g.expectRefusal("ALTER TABLE c2 ADD CONSTRAINT f2", "no primary or unique key")
}

// TestDDLClassUntranslatableDefault: ADD COLUMN with a default PostgreSQL
// cannot compute gives existing rows a value the target would not have: it
// stops with --skip-ddl guidance instead of a NOT NULL violation there.
func TestDDLClassUntranslatableDefault(t *testing.T) {
	g := newRigOn(t, testenv.GetFlavor(t, testenv.MariaDB), "cls_def", "CREATE TABLE t3 (id INT PRIMARY KEY)")
	g.exec("INSERT INTO t3 VALUES (1)")
	g.snapshot(g.stream, "")
	g.exec("ALTER TABLE t3 ADD COLUMN c7 TIME NOT NULL DEFAULT current_timestamp()")
	g.expectRefusal("ALTER TABLE t3 ADD COLUMN c7", "the target cannot compute it")
}

// expectRefusal runs replicate until it stops and checks that it names the
// statement, the reason and --skip-ddl.
func (g *rig) expectRefusal(stmt, reason string) {
	g.t.Helper()
	err := g.runUntilStop(g.options(), stmt)
	for _, want := range []string{stmt, reason, "--skip-ddl"} {
		if !strings.Contains(err.Error(), want) {
			g.t.Errorf("error lacks %q:\n%v", want, err)
		}
	}
}

// TestDDLClassAddColumnLocalTime: ADD COLUMN DATETIME DEFAULT
// CURRENT_TIMESTAMP gives existing rows the source's time in the zone of
// the session that ran it, which the binlog does not carry: with rows in
// the table the target stops the change with --skip-ddl guidance; an empty
// table takes it.
func TestDDLClassAddColumnLocalTime(t *testing.T) {
	testenv.Flavors(t, func(t *testing.T, env *testenv.Env) {
		g := newRigOn(t, env, "cls_local", "CREATE TABLE e (id INT PRIMARY KEY)")
		g.exec("CREATE TABLE f (id INT PRIMARY KEY)")
		g.exec("INSERT INTO f VALUES (1)")
		g.snapshot(g.stream, "")
		g.exec("ALTER TABLE e ADD COLUMN d DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP", "INSERT INTO e (id) VALUES (1)")
		g.catchUp(g.options())
		g.compare()
		g.exec("ALTER TABLE f ADD COLUMN d DATETIME DEFAULT CURRENT_TIMESTAMP")
		g.expectRefusal("ALTER TABLE f ADD COLUMN d", "session's zone")
	})
}
