package replicate

import (
	"context"
	"testing"
)

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
