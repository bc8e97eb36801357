package replicate

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateDDLApplicationsRun replays DDL that ORMs and migration tools
// emit and that used to stop replication: the INT→BIGINT key migration
// written without NOT NULL, DATETIME↔TIMESTAMP, a table whose constraints come
// before its columns, SERIAL DEFAULT VALUE, BINARY CHARACTER SET, CHAR SET=
// and a non-ASCII table name (MariaDB refuses STORAGE DISK: golden test only); rows written after each change
// must arrive with their values.
func TestReplicateDDLApplicationsRun(t *testing.T) {
	g := newRig(t, "rp_apps", `CREATE TABLE p (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, ts DATETIME(3));
		INSERT INTO p VALUES (1, '2024-05-06 07:08:09.123')`)
	g.snapshot(g.stream, "")
	g.exec(
		"ALTER TABLE p MODIFY id BIGINT AUTO_INCREMENT",
		"INSERT INTO p VALUES (3000000000, '2024-01-01 00:00:00')",
		"ALTER TABLE p MODIFY ts TIMESTAMP(3) NULL",
		"INSERT INTO p VALUES (2, '2025-02-03 04:05:06.789')",
		"CREATE TABLE s1 (CONSTRAINT pk_s1 PRIMARY KEY (id), id INT NOT NULL, v INT)",
		"INSERT INTO s1 VALUES (1, 10)",
		"CREATE TABLE s3 (id INT SERIAL DEFAULT VALUE, b VARCHAR(10) BINARY CHARACTER SET latin1, s VARCHAR(5)) CHAR SET = latin1",
		"INSERT INTO s3 (b, s) VALUES ('Abc', 'x')",
		"CREATE TABLE größe (id INT PRIMARY KEY, wert INT)",
		"INSERT INTO größe VALUES (1, 42)")
	g.catchUp(g.options())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := testenv.PGRows(t, g.pg, `SELECT id, to_char(ts AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS') FROM "`+g.db+`".p ORDER BY id`)
	want := "1|2024-05-06 07:08:09.123;2|2025-02-03 04:05:06.789;3000000000|2024-01-01 00:00:00.000"
	if strings.Join(got, ";") != want {
		t.Errorf("p after MODIFY id BIGINT and DATETIME→TIMESTAMP: %v, want %s", got, want)
	}
	var notNull bool
	if err := g.pg.QueryRow(ctx, `SELECT attnotnull FROM pg_attribute WHERE attrelid = '"`+g.db+`".p'::regclass AND attname = 'id'`).Scan(&notNull); err != nil || !notNull {
		t.Errorf("p.id must stay NOT NULL (a primary key column): %v %v", notNull, err)
	}
	for q, w := range map[string]string{
		`SELECT id, v FROM "` + g.db + `".s1`:         "1|10",
		`SELECT id, b, s FROM "` + g.db + `".s3`:      "1|Abc|x",
		`SELECT id, wert FROM "` + g.db + `"."größe"`: "1|42",
	} {
		if got := testenv.PGRows(t, g.pg, q); strings.Join(got, ";") != w {
			t.Errorf("%s: %v, want %s", q, got, w)
		}
	}
	g.compare()
}

// TestSkippedCreateTableIsLeftOut: a CREATE TABLE skipped with --skip-ddl
// leaves that table out of replication — its rows and its later schema
// changes are passed over, across restarts — instead of the schema history
// believing the target has it and stopping at its next change.
func TestSkippedCreateTableIsLeftOut(t *testing.T) {
	g := newRig(t, "rp_skipct", `CREATE TABLE t (id INT PRIMARY KEY)`)
	g.snapshot(g.stream, "")
	g.exec("CREATE TABLE later (id INT PRIMARY KEY, v INT)",
		"INSERT INTO later VALUES (1, 1)",
		"ALTER TABLE later ADD COLUMN w INT",
		"INSERT INTO later VALUES (2, 2, 2)",
		"INSERT INTO t VALUES (1)")
	o := g.options()
	o.SkipDDL = []string{"CREATE TABLE later*"}
	g.catchUp(o)
	g.exec("ALTER TABLE later DROP COLUMN v", "INSERT INTO later VALUES (3, 3)", "INSERT INTO t VALUES (2)")
	g.catchUp(o) // a restart: the history remembers the table is left out
	if n := g.count("t"); n != 2 {
		t.Errorf("t has %d rows, want 2", n)
	}
	var exists bool
	if err := g.pg.QueryRow(context.Background(), `SELECT to_regclass($1) IS NOT NULL`, `"`+g.db+`".later`).Scan(&exists); err != nil || exists {
		t.Errorf("the skipped table exists on the target (%v, %v)", exists, err)
	}
}
