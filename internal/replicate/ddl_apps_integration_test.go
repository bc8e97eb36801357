package replicate

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestReplicatePrimaryKeyWidening: the INT→BIGINT key migration ORMs and
// migration tools emit (MODIFY id BIGINT AUTO_INCREMENT, no NOT NULL) keeps
// the key NOT NULL as MySQL does, replicates, and rows past 2^31 arrive.
func TestReplicatePrimaryKeyWidening(t *testing.T) {
	g := newRig(t, "rp_pkwide", `CREATE TABLE t (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT)`)
	g.exec("INSERT INTO t (v) VALUES (1), (2)")
	g.snapshot(g.stream, "")
	g.exec("ALTER TABLE t MODIFY id BIGINT AUTO_INCREMENT",
		"INSERT INTO t (id, v) VALUES (3000000000, 3)",
		"INSERT INTO t (v) VALUES (4)",
		"ALTER TABLE t CHANGE id id BIGINT UNSIGNED AUTO_INCREMENT",
		"INSERT INTO t (v) VALUES (5)")
	g.catchUp(g.options())
	g.compare()
	ctx := context.Background()
	var nullable, typ string
	if err := g.pg.QueryRow(ctx, `SELECT is_nullable, data_type FROM information_schema.columns
		WHERE table_schema = $1 AND table_name = 't' AND column_name = 'id'`, g.db).Scan(&nullable, &typ); err != nil {
		t.Fatal(err)
	}
	if nullable != "NO" || typ != "numeric" {
		t.Errorf("target id: nullable %s, type %s; want NO, numeric", nullable, typ)
	}
	var maxID int64
	if err := g.pg.QueryRow(ctx, "SELECT max(id) FROM "+pgx.Identifier{g.db, "t"}.Sanitize()).Scan(&maxID); err != nil || maxID != 3000000002 {
		t.Errorf("max(id) %d, %v; want 3000000002", maxID, err)
	}
}

// TestReplicateMariaDBSpellings: tables created during replication with
// spellings the vitess grammar does not read (keys before the columns,
// SERIAL DEFAULT VALUE, CHAR SET, BINARY CHARACTER SET, non-ASCII names, a
// TIME default written as a datetime) replicate with their values.
func TestReplicateMariaDBSpellings(t *testing.T) {
	g := newRig(t, "rp_spell", `CREATE TABLE w (id INT PRIMARY KEY)`)
	g.snapshot(g.stream, "")
	g.exec("CREATE TABLE k (PRIMARY KEY (id), UNIQUE KEY u (v), id INT, v VARCHAR(10) BINARY CHARACTER SET latin1, "+
		"s INT NOT NULL SERIAL DEFAULT VALUE, c VARCHAR(5) CHAR SET latin1, tm TIME DEFAULT '2020-01-02 10:11:12') DEFAULT CHAR SET=latin1",
		"INSERT INTO k (id, v, c) VALUES (1, 'Ab', 'é'), (2, 'ab', 'x')",
		"CREATE TABLE tëst (naïve INT PRIMARY KEY, ü VARCHAR(5))",
		"INSERT INTO tëst VALUES (1, 'ä')")
	g.catchUp(g.options())
	g.compare()
	var tm string
	var s int
	if err := g.pg.QueryRow(context.Background(), "SELECT tm::text, s FROM "+pgx.Identifier{g.db, "k"}.Sanitize()+" WHERE id = 2").
		Scan(&tm, &s); err != nil || tm != "10:11:12" || s != 2 {
		t.Errorf("k row 2: tm %q, s %d, %v; want 10:11:12, 2", tm, s, err)
	}
}

// TestReplicateDropForeignKeyIndex: dropping a foreign key together with the
// index InnoDB created for it (named after the constraint, or after the
// column when the constraint has no name), as migration tools do.
func TestReplicateDropForeignKeyIndex(t *testing.T) {
	g := newRig(t, "rp_fkix", `CREATE TABLE p (id INT PRIMARY KEY);
		CREATE TABLE a (id INT PRIMARY KEY, pid INT, CONSTRAINT fk_a FOREIGN KEY (pid) REFERENCES p (id));
		INSERT INTO p VALUES (1), (2)`)
	g.snapshot(g.stream, "")
	g.exec("ALTER TABLE a DROP FOREIGN KEY fk_a, DROP INDEX fk_a",
		"INSERT INTO a VALUES (1, 9)",
		"CREATE TABLE b (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id))",
		"ALTER TABLE b DROP FOREIGN KEY b_ibfk_1, DROP INDEX pid",
		"UPDATE a SET pid = 1",
		"ALTER TABLE a ADD CONSTRAINT fk_a2 FOREIGN KEY (pid) REFERENCES p (id)",
		"INSERT INTO a VALUES (2, 2)",
		"ALTER TABLE a DROP FOREIGN KEY fk_a2, DROP INDEX fk_a2",
		"INSERT INTO b VALUES (1, 8)")
	g.catchUp(g.options())
	g.compare()
}

// TestReplicateNotNullOverZeroDates: a zero date in a nullable DATE column
// is NULL on the target (--zero-date=null); when the column becomes NOT NULL
// or part of a new primary key, it becomes -infinity as in a NOT NULL column,
// and replication goes on.
func TestReplicateNotNullOverZeroDates(t *testing.T) {
	g := newRig(t, "rp_zdnn", `CREATE TABLE t (id INT NOT NULL, d DATE, e DATETIME NULL, UNIQUE KEY u (id))`)
	g.exec("SET STATEMENT sql_mode='' FOR INSERT INTO t VALUES (1, '0000-00-00', '0000-00-00 00:00:00'), (2, '2020-01-02', '2020-01-02 03:04:05')")
	g.snapshot(g.stream, "")
	g.exec("SET STATEMENT sql_mode='' FOR INSERT INTO t VALUES (3, '0000-00-00', '0000-00-00 00:00:00')",
		"ALTER TABLE t MODIFY d DATE NOT NULL",
		"ALTER TABLE t ADD PRIMARY KEY (id, e)",
		"INSERT INTO t VALUES (4, '2021-01-01', '2021-01-01 00:00:00')")
	g.catchUp(g.options())
	g.compare()
	rows, err := g.pg.Query(context.Background(), "SELECT id, d::text, e::text FROM "+pgx.Identifier{g.db, "t"}.Sanitize()+" ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for rows.Next() {
		var id int
		var d, e string
		if err := rows.Scan(&id, &d, &e); err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%d %s %s", id, d, e))
	}
	want := []string{"1 -infinity -infinity", "2 2020-01-02 2020-01-02 03:04:05", "3 -infinity -infinity", "4 2021-01-01 2021-01-01 00:00:00"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("target rows:\n got %q\nwant %q", got, want)
	}
}

// TestReplicateDatetimeTimestampChange: DATETIME → TIMESTAMP and back
// convert the existing rows as MySQL does for a session in UTC (the
// sandbox's zone).
func TestReplicateDatetimeTimestampChange(t *testing.T) {
	g := newRig(t, "rp_dtts", `CREATE TABLE t (id INT PRIMARY KEY, a DATETIME(6), b TIMESTAMP(3) NULL)`)
	g.exec("INSERT INTO t VALUES (1, '2021-03-04 05:06:07.123456', '2022-01-02 03:04:05.678'), (2, NULL, NULL)")
	g.snapshot(g.stream, "")
	g.exec("INSERT INTO t VALUES (3, '1999-12-31 23:59:59.5', '2001-02-03 04:05:06')",
		"ALTER TABLE t MODIFY a TIMESTAMP(6) NULL, MODIFY b DATETIME(3)",
		"INSERT INTO t VALUES (4, '2030-01-01 00:00:00', '2031-01-01 00:00:00')")
	g.catchUp(g.options())
	g.compare()
	var a, b string
	var types string
	if err := g.pg.QueryRow(context.Background(), `SELECT string_agg(data_type, ',' ORDER BY column_name)
		FROM information_schema.columns WHERE table_schema = $1 AND table_name = 't' AND column_name IN ('a', 'b')`, g.db).
		Scan(&types); err != nil || types != "timestamp with time zone,timestamp without time zone" {
		t.Errorf("target types of a,b: %s, %v", types, err)
	}
	if err := g.pg.QueryRow(context.Background(), "SELECT (a AT TIME ZONE 'UTC')::text, b::text FROM "+
		pgx.Identifier{g.db, "t"}.Sanitize()+" WHERE id = 1").Scan(&a, &b); err != nil {
		t.Fatal(err)
	}
	// a is timestamptz now (shown in UTC after AT TIME ZONE), b a wall clock
	if a != "2021-03-04 05:06:07.123456" || b != "2022-01-02 03:04:05.678" {
		t.Errorf("row 1 after the change: a %s, b %s", a, b)
	}
}

// TestReplicateSetStatementDDL: MariaDB's SET STATEMENT … FOR <DDL> (a lock
// wait timeout around an ALTER, as cautious DBAs and tools run it) is
// replicated like the statement itself, not passed over as a session setting.
func TestReplicateSetStatementDDL(t *testing.T) {
	g := newRig(t, "rp_setstmt", `CREATE TABLE t (id INT PRIMARY KEY, v INT)`)
	g.exec("INSERT INTO t VALUES (1, 1)")
	g.snapshot(g.stream, "")
	g.exec("SET STATEMENT lock_wait_timeout = 5, sql_mode = 'STRICT_ALL_TABLES,NO_ZERO_DATE' FOR ALTER TABLE t ADD COLUMN c VARCHAR(10) DEFAULT 'x'",
		"INSERT INTO t VALUES (2, 2, 'y')",
		"SET STATEMENT max_statement_time = 10 FOR CREATE TABLE u (id INT PRIMARY KEY)",
		"INSERT INTO u VALUES (7)")
	g.catchUp(g.options())
	g.compare()
	var c string
	if err := g.pg.QueryRow(context.Background(), "SELECT c FROM "+pgx.Identifier{g.db, "t"}.Sanitize()+" WHERE id = 1").Scan(&c); err != nil || c != "x" {
		t.Errorf("t.c of row 1: %q, %v; want the default x", c, err)
	}
}
