package reverse

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/postgres/logical"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReverseKeylessDuplicates: deleting one of two identical rows of a
// table without a key deletes one in MySQL; an update changes one.
func TestReverseKeylessDuplicates(t *testing.T) {
	g := newRig(t, "rvkeyless", "CREATE TABLE k (a INT, b VARCHAR(10))",
		"INSERT INTO k VALUES (1, 'x'), (1, 'x'), (1, 'x'), (2, 'y')")
	g.snapshot()
	g.catchUp()
	g.postgres("DELETE FROM k WHERE ctid = (SELECT min(ctid) FROM k WHERE a = 1)",
		"UPDATE k SET b = 'z' WHERE ctid = (SELECT max(ctid) FROM k WHERE a = 1)",
		"INSERT INTO k VALUES (3, 'w')")
	g.catchUp()
	got := strings.Join(g.rows("k", []string{"a", "b"}, "a, b"), " ")
	want := "31|78 31|7A 32|79 33|77" // (1,x) (1,z) (2,y) (3,w)
	if got != want {
		t.Fatalf("keyless table: got %s, want %s", got, want)
	}
}

// TestReverseValueOutOfRange: a value PostgreSQL accepts that the MySQL
// column cannot hold stops the stream naming table, key, column, value and
// LSN, with nothing of its transaction applied; --on-error skip-and-log
// leaves only that row out.
func TestReverseValueOutOfRange(t *testing.T) {
	g := newRig(t, "rvrange", "CREATE TABLE r (id INT PRIMARY KEY, u TINYINT UNSIGNED, s VARCHAR(10) CHARACTER SET utf8mb3)")
	g.snapshot()
	g.catchUp()
	g.postgres("BEGIN; INSERT INTO r VALUES (1, 1, 'ok'); INSERT INTO r VALUES (2, 300, 'big'); COMMIT")
	err := g.run(g.options())
	if err == nil {
		t.Fatal("a value out of TINYINT UNSIGNED's range was applied")
	}
	for _, w := range []string{".r", "id=2", "column u", `"300"`, "outside tinyint(3) unsigned's range", "committing at"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not say %q", err, w)
		}
	}
	if n := len(g.rows("r", []string{"id"}, "id")); n != 0 {
		t.Fatalf("%d rows of the failed transaction were applied", n)
	}
	g.postgres("INSERT INTO r VALUES (3, 3, 'emoji 😀')", "INSERT INTO r VALUES (4, 4, 'fine')")
	o := g.options()
	o.SkipBadRows = true
	if err := g.run(o); err != nil {
		t.Fatalf("skip-and-log: %v", err)
	}
	if got := strings.Join(g.rows("r", []string{"id"}, "id"), " "); got != "31 34" {
		t.Fatalf("after skip-and-log the rows are %s, want ids 1 and 4", got)
	}
}

// TestReverseSlotDropped: a stream whose slot is gone stops with what it
// means instead of starting anew (the writes since its checkpoint are lost).
func TestReverseSlotDropped(t *testing.T) {
	g := newRig(t, "rvslot", "CREATE TABLE s (id INT PRIMARY KEY)")
	g.snapshot()
	g.catchUp()
	ctx := context.Background()
	c, err := pgx.Connect(ctx, g.env.PGAdminURL())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(ctx)
	if _, err := c.Exec(ctx, "SELECT pg_drop_replication_slot($1)", logical.SlotName(g.stream)); err != nil {
		t.Fatal(err)
	}
	err = g.run(g.options())
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), logical.SlotName(g.stream)) {
		t.Fatalf("want a clear error for the dropped slot, got %v", err)
	}
	// Armed anew (after writes the old slot would have carried): refused too.
	g.postgres("INSERT INTO s VALUES (1)")
	if _, err := logical.Arm(ctx, c, g.stream, []logical.Table{{Schema: g.db, Name: "s"}}); err != nil {
		t.Fatal(err)
	}
	err = g.run(g.options())
	if err == nil || !strings.Contains(err.Error(), "past the stream's checkpoint") {
		t.Fatalf("want a clear error for a slot created anew, got %v", err)
	}
}

// TestReverseRelationChanged: a table altered on PostgreSQL stops the
// stream naming the table and what changed.
func TestReverseRelationChanged(t *testing.T) {
	g := newRig(t, "rvrel", "CREATE TABLE c (id INT PRIMARY KEY, v INT)")
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO c VALUES (1, 1)", "ALTER TABLE c ADD COLUMN extra text", "INSERT INTO c VALUES (2, 2, 'e')")
	err := g.run(g.options())
	if err == nil || !strings.Contains(err.Error(), "extra") || !strings.Contains(err.Error(), ".c") {
		t.Fatalf("want an error naming the table and the new column, got %v", err)
	}
}

// TestReverseSchemaMap: tables the forward stream put in another schema
// (--schema-map db=other) come back from there.
func TestReverseSchemaMap(t *testing.T) {
	g := newRig(t, "rvmap", "CREATE TABLE m (id INT PRIMARY KEY)")
	g.schema = g.db + "_other"
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO m VALUES (7)")
	g.catchUp()
	if got := strings.Join(g.rows("m", []string{"id"}, "id"), " "); got != "37" {
		t.Fatalf("rows %s, want id 7", got)
	}
}

// TestReversePreflightReplicationRole: a PostgreSQL role without the
// REPLICATION attribute is refused before anything starts, with the fix.
func TestReversePreflightReplicationRole(t *testing.T) {
	g := newRig(t, "rvpre", "CREATE TABLE p (id INT PRIMARY KEY)")
	ctx := context.Background()
	role := testenv.UniqueName("rvnorepl")
	if _, err := g.pg.Exec(ctx, "CREATE ROLE "+role+" LOGIN PASSWORD 'pw'"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _, _ = g.pg.Exec(context.Background(), "DROP ROLE IF EXISTS "+role) })
	o := g.options()
	src, err := config.ParseTarget(strings.Replace(g.env.TargetURL(), "sluice:sluice@", role+":pw@", 1))
	if err != nil {
		t.Fatal(err)
	}
	o.Source = src
	err = Run(ctx, o)
	if err == nil || !strings.Contains(err.Error(), "ALTER ROLE "+role+" REPLICATION") || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("want a pre-flight error with the fix and exit code 2, got %v", err)
	}
}

// TestReverseForeignKeyActions: PostgreSQL's ON DELETE CASCADE, ON DELETE
// SET NULL and ON UPDATE CASCADE change the children in its own WAL; MySQL
// applies exactly those rows without running its own actions on top (a
// cascaded delete used to stop the stream: "the target does not hold the
// row the source changed").
func TestReverseForeignKeyActions(t *testing.T) {
	g := newRig(t, "rvfk",
		"CREATE TABLE p (id INT PRIMARY KEY, code VARCHAR(10) NOT NULL UNIQUE)",
		"CREATE TABLE c (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id) ON DELETE CASCADE)",
		"CREATE TABLE n (id INT PRIMARY KEY, p INT, FOREIGN KEY (p) REFERENCES p (id) ON DELETE SET NULL)",
		"CREATE TABLE u (id INT PRIMARY KEY, code VARCHAR(10), FOREIGN KEY (code) REFERENCES p (code) ON UPDATE CASCADE)",
		"INSERT INTO p VALUES (1, 'a'), (2, 'b'), (3, 'c')",
		"INSERT INTO c VALUES (10, 1), (11, 1), (12, 2)",
		"INSERT INTO n VALUES (20, 1), (21, 2)",
		"INSERT INTO u VALUES (30, 'c'), (31, 'b')")
	g.snapshot()
	g.catchUp()
	g.postgres("DELETE FROM p WHERE id = 1", "UPDATE p SET code = 'cc' WHERE id = 3",
		"BEGIN; INSERT INTO p VALUES (4, 'd'); INSERT INTO c VALUES (13, 4); DELETE FROM p WHERE id = 4; COMMIT")
	g.catchUp()
	for table, want := range map[string]string{ // hex of id|p or id|code
		"p": "32|62 33|6363",     // (2,b) (3,cc)
		"c": "3132|32",           // (12,2)
		"n": "3230|NULL 3231|32", // (20,NULL) (21,2)
		"u": "3330|6363 3331|62", // (30,cc) (31,b)
	} {
		cols := []string{"id", "p"}
		if table == "p" || table == "u" {
			cols = []string{"id", "code"}
		}
		if got := strings.Join(g.rows(table, cols, "id"), " "); got != want {
			t.Errorf("%s: got %s, want %s", table, got, want)
		}
	}
}

// TestReverseRefusesMySQLTriggers: a trigger on a MySQL table would fire on
// the rows the stream writes (an AFTER INSERT copying into another table
// left a row PostgreSQL did not have): the start is refused, naming it and
// the fix, with exit code 2; once dropped, the stream runs. On both flavors:
// the check is the one every stream into MySQL makes (mysink.RefuseTriggers).
func TestReverseRefusesMySQLTriggers(t *testing.T) {
	testenv.Flavors(t, testReverseRefusesMySQLTriggers)
}

func testReverseRefusesMySQLTriggers(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rvtrig", "CREATE TABLE f (id INT PRIMARY KEY, title VARCHAR(20))",
		"CREATE TABLE ft (id INT PRIMARY KEY, title VARCHAR(20))",
		"CREATE TRIGGER ins_f AFTER INSERT ON f FOR EACH ROW INSERT INTO ft VALUES (new.id, new.title)")
	g.snapshot()
	err := g.run(g.options())
	if err == nil || exitcode.Of(err) != exitcode.Config {
		t.Fatalf("want a refusal with exit code 2, got %v", err)
	}
	for _, w := range []string{g.db + ".f: ins_f (AFTER INSERT)", "DROP TRIGGER `" + g.db + "`.`ins_f`", "SHOW CREATE TRIGGER"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the refusal does not say %q: %v", w, err)
		}
	}
	g.mysql("DROP TRIGGER ins_f")
	g.catchUp()
	g.postgres("INSERT INTO f VALUES (1, 'a')")
	g.catchUp()
	if got := strings.Join(g.rows("ft", []string{"id"}, "id"), " "); got != "" {
		t.Errorf("ft: %q, want no rows", got)
	}
}

// TestReverseCollationDuplicate: PostgreSQL holds 'Ab' and 'ab ' as two
// values, a MySQL unique key under utf8mb4_general_ci (case-insensitive, PAD
// SPACE) as one: the stream stops, saying why and naming the row, with
// nothing of the transaction applied.
func TestReverseCollationDuplicate(t *testing.T) {
	g := newRig(t, "rvci", "CREATE TABLE u (id INT PRIMARY KEY, name VARCHAR(20) COLLATE utf8mb4_general_ci, UNIQUE KEY (name))")
	g.snapshot()
	g.catchUp()
	g.postgres("INSERT INTO u VALUES (1, 'Ab')", "INSERT INTO u VALUES (2, 'ab '), (3, 'other')")
	err := g.run(g.options())
	var de *DuplicateError
	if !errors.As(err, &de) {
		t.Fatalf("want a DuplicateError, got %v", err)
	}
	for _, w := range []string{"u [id=2]", "Duplicate entry", "under its collation", "nothing of this PostgreSQL transaction was applied"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("the error does not say %q: %v", w, err)
		}
	}
	if got := strings.Join(g.rows("u", []string{"id"}, "id"), " "); got != "31" {
		t.Errorf("MySQL rows: %q, want only id 1", got)
	}
}

// TestReverseUpdatesOnlyChangedColumns: an UPDATE on PostgreSQL writes back
// only the columns it changed, so MySQL keeps what PostgreSQL holds
// differently — text whose NUL bytes the forward stream stripped, a zero
// date the policy made NULL — unless the application changed it (before, an
// update of another column silently rewrote them); with a key-only old row
// (REPLICA IDENTITY DEFAULT) every column is written.
func TestReverseUpdatesOnlyChangedColumns(t *testing.T) {
	g := newRig(t, "rvchg", "SET SESSION sql_mode = ''",
		"CREATE TABLE o (id INT PRIMARY KEY, v LONGTEXT, d DATETIME NULL, a VARCHAR(5))",
		"INSERT INTO o VALUES (1, CONCAT('x', CHAR(0), '*', CHAR(0), 'y'), '0000-00-00 00:00:00', 'no'), (2, 'p', NULL, 'no'), (3, 'q', NULL, 'no'),"+
			" (4, 'r', NULL, 'no'), (5, 's', '0000-00-00 00:00:00', 'no'), (6, 't', '0000-00-00 00:00:00', 'no'),"+
			" (7, CONCAT('a', CHAR(0), 'b'), '0000-00-00 00:00:00', 'no')")
	g.snapshot()
	g.catchUp()
	// One group of one-row transactions: the multi-row CASE UPDATE must
	// leave d out where it did not change (rows 1, 2, 3, 5, 6) and set it
	// where it did (row 4), never the NULL PostgreSQL holds for a zero date.
	g.postgres("UPDATE o SET a = 'yes' WHERE id = 1", "UPDATE o SET v = 'changed', a = 'yes' WHERE id = 2",
		"UPDATE o SET a = a WHERE id = 3", "UPDATE o SET d = '2020-01-02 03:04:05' WHERE id = 4",
		"UPDATE o SET a = 'yes' WHERE id = 5", "UPDATE o SET v = 'u' WHERE id = 6")
	g.catchUp()
	zero := "303030302D30302D30302030303A30303A3030"
	want := "31|78002A0079|" + zero + "|796573 32|6368616E676564|NULL|796573 33|71|NULL|6E6F" +
		" 34|72|323032302D30312D30322030333A30343A3035|6E6F 35|73|" + zero + "|796573 36|75|" + zero + "|6E6F" +
		" 37|610062|" + zero + "|6E6F"
	if got := strings.Join(g.rows("o", []string{"id", "v", "d", "a"}, "id"), " "); got != want {
		t.Errorf("after updates of other columns:\n got %s\nwant %s", got, want)
	}
	// A delete and re-insert of one key in one transaction folds into an
	// UPDATE of the columns that differ: the NUL bytes and the zero date
	// MySQL holds for values PostgreSQL re-wrote unchanged stay.
	g.postgres("BEGIN; DELETE FROM o WHERE id = 7; INSERT INTO o VALUES (7, 'ab', NULL, 'new'); COMMIT")
	g.catchUp()
	if got := strings.Join(g.rows("o", []string{"id", "v", "d", "a"}, "id")[6:], " "); got != "37|610062|"+zero+"|6E6577" {
		t.Errorf("after a delete and re-insert:\n got %s\nwant 37|610062|%s|6E6577", got, zero)
	}
	// Without the whole old row every column is written.
	g.postgres("ALTER TABLE o REPLICA IDENTITY DEFAULT", "UPDATE o SET a = 'k' WHERE id = 1")
	g.catchUp()
	want = "31|782A79|NULL|6B"
	if got := strings.Join(g.rows("o", []string{"id", "v", "d", "a"}, "id")[:1], " "); got != want {
		t.Errorf("with a key-only old row:\n got %s\nwant %s", got, want)
	}
}
