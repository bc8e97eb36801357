package replicate

import (
	"context"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestReplicateTriggersDoNotFire: the application's triggers, ported to
// PostgreSQL and enabled (as at a cut-over), write every row change of the
// replicated tables into an audit table. The rows sluice applies already
// carry what the source's triggers did, so none may fire on them: the
// audit table stays empty. The apply sessions run with the replica role,
// which also stops PostgreSQL's foreign key actions; MariaDB's binlog has
// no cascaded rows, so sluice performs them (ON DELETE CASCADE through two
// levels and a self-reference, SET NULL, ON UPDATE CASCADE, a SET NULL that
// cascades on through the child's own ON UPDATE CASCADE) and the tables
// equal the source's. MySQL 9 logs its cascades: the same result.
func TestReplicateTriggersDoNotFire(t *testing.T) {
	testenv.Flavors(t, testReplicateTriggersDoNotFire)
}

func testReplicateTriggersDoNotFire(t *testing.T, env *testenv.Env) {
	g := newRigOn(t, env, "rp_trig", `
		CREATE TABLE p (k CHAR(4) PRIMARY KEY, name VARCHAR(10));
		CREATE TABLE c (id INT PRIMARY KEY, k CHAR(4), v INT, FOREIGN KEY (k) REFERENCES p (k) ON UPDATE CASCADE ON DELETE CASCADE);
		CREATE TABLE gc (id INT PRIMARY KEY, cid INT, FOREIGN KEY (cid) REFERENCES c (id) ON UPDATE CASCADE ON DELETE SET NULL);
		CREATE TABLE ggc (id INT PRIMARY KEY, cid INT NOT NULL, FOREIGN KEY (cid) REFERENCES c (id) ON UPDATE CASCADE ON DELETE CASCADE);
		CREATE TABLE tree (id INT PRIMARY KEY, up INT, FOREIGN KEY (up) REFERENCES tree (id) ON DELETE CASCADE);
		CREATE TABLE s1 (id INT PRIMARY KEY);
		CREATE TABLE s2 (id INT PRIMARY KEY, sid INT, UNIQUE KEY (sid), FOREIGN KEY (sid) REFERENCES s1 (id) ON DELETE SET NULL);
		CREATE TABLE s3 (id INT PRIMARY KEY, s2sid INT, FOREIGN KEY (s2sid) REFERENCES s2 (sid) ON UPDATE CASCADE)`)
	g.exec("INSERT INTO p VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')",
		"INSERT INTO c VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'c', 4)",
		"INSERT INTO gc VALUES (10, 1), (20, 3), (30, 4)", "INSERT INTO ggc VALUES (100, 1), (200, 2), (300, 3)",
		"INSERT INTO tree VALUES (1, NULL), (2, 1), (3, 2), (4, 3), (5, NULL), (6, 5)",
		"INSERT INTO s1 VALUES (1), (2)", "INSERT INTO s2 VALUES (1, 1), (2, 2)", "INSERT INTO s3 VALUES (1, 1), (2, 2)")
	g.snapshot(g.stream, "")

	ctx := context.Background()
	q := func(name string) string { return pgx.Identifier{g.db, name}.Sanitize() }
	for _, s := range []string{
		"CREATE TABLE " + q("audit") + " (tbl text, op text)",
		"GRANT ALL ON " + q("audit") + " TO PUBLIC", // as the application's audit table would be
		"CREATE FUNCTION " + q("audit_row") + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + q("audit") +
			" VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$",
	} {
		if _, err := g.pg.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	for _, tbl := range []string{"p", "c", "gc", "ggc", "tree", "s1", "s2", "s3"} {
		s := "CREATE TRIGGER audit_" + tbl + " AFTER INSERT OR UPDATE OR DELETE ON " + q(tbl) +
			" FOR EACH ROW EXECUTE FUNCTION " + q("audit_row") + "()"
		if _, err := g.pg.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	// The triggers are live for the application: an ordinary write fires one.
	tx, err := g.pg.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var fired int
	if _, err := tx.Exec(ctx, "INSERT INTO "+q("p")+" VALUES ('t', 'T')"); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+q("audit")).Scan(&fired); err != nil || fired != 1 {
		t.Fatalf("an application write fired %d audit rows (%v), want 1", fired, err)
	}
	_ = tx.Rollback(ctx)

	g.exec("INSERT INTO p VALUES ('d', 'D')", "INSERT INTO c VALUES (5, 'd', 5)", "INSERT INTO gc VALUES (40, 5)",
		"UPDATE c SET v = 10 WHERE id = 2",
		"UPDATE p SET k = 'z' WHERE k = 'a'",  // children 1 and 2 follow
		"UPDATE c SET id = 33 WHERE id = 3",   // grandchild 20 follows
		"DELETE FROM p WHERE k = 'z'",         // children 1, 2 and their ggc go; gc 10 is set NULL
		"DELETE FROM c WHERE id = 4",          // gc 30 set NULL
		"DELETE FROM tree WHERE id = 1",       // 2, 3, 4 follow
		"INSERT INTO p VALUES ('a', 'again')", // the freed key taken again
		"INSERT INTO c VALUES (1, 'a', 7)", "INSERT INTO tree VALUES (2, 5)",
		"DELETE FROM s1 WHERE id = 1") // s2 1 is set NULL, and its ON UPDATE CASCADE sets s3 1 NULL
	var s3 string
	g.catchUp(g.options())
	if err := g.pg.QueryRow(ctx, "SELECT string_agg(id || '=' || coalesce(s2sid::text, 'null'), ',' ORDER BY id) FROM "+q("s3")).Scan(&s3); err != nil || s3 != "1=null,2=2" {
		t.Errorf("s3 is %q (%v), want 1=null,2=2", s3, err)
	}
	g.compare()
	for tbl, want := range map[string]int64{"p": 4, "c": 3, "gc": 4, "ggc": 1, "tree": 3, "s2": 2, "s3": 2} {
		if n := g.count(tbl); n != want {
			t.Errorf("%s has %d rows, want %d", tbl, n, want)
		}
	}
	var audited int
	if err := g.pg.QueryRow(ctx, "SELECT count(*) FROM "+q("audit")).Scan(&audited); err != nil {
		t.Fatal(err)
	}
	if audited != 0 {
		var fires string
		_ = g.pg.QueryRow(ctx, "SELECT string_agg(tbl || ' ' || op, ', ') FROM "+q("audit")).Scan(&fires)
		t.Errorf("the target's triggers fired %d times on replicated rows: %s", audited, fires)
	}
}

// TestSnapshotTriggersDoNotFire: a data-only snapshot into tables made
// earlier (--schema-only), on which the application's trigger already
// exists: COPY fires row triggers, so the chunks are copied with the
// replica role and the audit table stays empty.
func TestSnapshotTriggersDoNotFire(t *testing.T) {
	g := newRig(t, "sn_trig", "CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(10))")
	g.exec("INSERT INTO p SELECT seq, CONCAT('n', seq) FROM seq_1_to_300")
	ctx := context.Background()
	o := snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db}, Stream: g.stream, Workers: 2,
		ChunkRows: 100, SchemaOnly: true, Log: testenv.Logger()}
	if _, err := snapshot.Run(ctx, o); err != nil {
		t.Fatalf("snapshot --schema-only: %v", err)
	}
	q := func(name string) string { return pgx.Identifier{g.db, name}.Sanitize() }
	for _, s := range []string{
		"CREATE TABLE " + q("audit") + " (tbl text, op text)",
		"GRANT ALL ON " + q("audit") + " TO PUBLIC",
		"CREATE FUNCTION " + q("audit_row") + "() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO " + q("audit") +
			" VALUES (TG_TABLE_NAME, TG_OP); RETURN NULL; END $$",
		"CREATE TRIGGER audit_p AFTER INSERT OR UPDATE OR DELETE ON " + q("p") + " FOR EACH ROW EXECUTE FUNCTION " + q("audit_row") + "()",
	} {
		if _, err := g.pg.Exec(ctx, s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	o.SchemaOnly, o.DataOnly = false, true
	if _, err := snapshot.Run(ctx, o); err != nil {
		t.Fatalf("snapshot --data-only: %v", err)
	}
	if n := g.count("p"); n != 300 {
		t.Errorf("p has %d rows, want 300", n)
	}
	var audited int
	if err := g.pg.QueryRow(ctx, "SELECT count(*) FROM "+q("audit")).Scan(&audited); err != nil || audited != 0 {
		t.Errorf("the target's trigger fired %d times on copied rows (%v)", audited, err)
	}
}
