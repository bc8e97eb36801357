package snapshot

import (
	"context"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

// TestSnapshotTablesIndexesCheckpoint copies a few related tables in small
// chunks and checks rows, indexes, foreign keys, sequences, the recorded
// position and the report.
func TestSnapshotTablesIndexesCheckpoint(t *testing.T) {
	testenv.Flavors(t, testSnapshotTablesIndexesCheckpoint)
}

func testSnapshotTablesIndexesCheckpoint(t *testing.T, env *testenv.Env) {
	db := env.NewDatabase(t, "snap_basic")
	my := env.MySQL(t, db)
	mustExec(t, my, env.SQL(`CREATE TABLE parent (id INT AUTO_INCREMENT PRIMARY KEY, name VARCHAR(20) NOT NULL, UNIQUE KEY uname (name));
		CREATE TABLE child (id BIGINT PRIMARY KEY, parent_id INT NOT NULL, note TEXT, KEY kp (parent_id),
			CONSTRAINT fk_parent FOREIGN KEY (parent_id) REFERENCES parent (id));
		CREATE TABLE nokey (a INT, b VARCHAR(5));
		CREATE VIEW v AS SELECT * FROM parent;
		INSERT INTO parent (name) SELECT CONCAT('p', seq) FROM seq_1_to_10;
		INSERT INTO child SELECT seq, 1 + seq % 10, IF(seq % 3 = 0, NULL, REPEAT('x', seq)) FROM seq_1_to_25;
		INSERT INTO nokey VALUES (1, 'a'), (1, 'a'), (NULL, NULL);`))
	opts := testOptions(t, env, db)
	ctx := context.Background()
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	pg := env.PG(t)
	for table, want := range map[string]int64{"parent": 10, "child": 25, "nokey": 3} {
		if n := pgCount(t, pg, `"`+db+`".`+table); n != want {
			t.Errorf("%s: %d rows, want %d", table, n, want)
		}
	}
	if rep.Tables != 3 || rep.Rows != 38 || rep.Position.File == "" || rep.Position.GTIDSet == "" {
		t.Errorf("report: %d tables, %d rows, position %s", rep.Tables, rep.Rows, rep.Position)
	}
	var chunks int
	for _, tr := range rep.PerTable {
		if tr.Source == db+".child" {
			chunks = tr.Chunks
		}
	}
	if chunks != 9 { // 25 rows in chunks of 3
		t.Errorf("child copied in %d chunks, want 9", chunks)
	}
	if len(rep.NotMigrated) != 1 || !strings.Contains(rep.NotMigrated[0], "view") {
		t.Errorf("not migrated = %v, want the view", rep.NotMigrated)
	}
	st, err := checkpoint.Load(ctx, pg, opts.Stream, binlogpos.Decode)
	if err != nil || st == nil || st.Position != rep.Position || st.SchemaVersion != 1 {
		t.Fatalf("checkpoint = %+v, %v; want position %s version 1", st, err, rep.Position)
	}
	tables, err := checkpoint.LoadSchema(ctx, pg, opts.Stream, 1)
	if err != nil || len(tables) != 3 {
		t.Errorf("schema history: %d tables, %v", len(tables), err)
	}
	idx := pgRows(t, pg, `SELECT indexname FROM pg_indexes WHERE schemaname = $1`, db)
	if len(idx) != 4 { // parent pkey, uname, child pkey, kp
		t.Errorf("indexes = %v", idx)
	}
	fks := pgRows(t, pg, `SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 AND contype = 'f'`, db)
	if len(fks) != 1 {
		t.Errorf("foreign keys = %v", fks)
	}
	// The sequence continues where the source's AUTO_INCREMENT would.
	var want, next int64
	if err := my.QueryRow(`SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME = 'parent'`, db).Scan(&want); err != nil {
		t.Fatal(err)
	}
	if err := pg.QueryRow(ctx, `INSERT INTO "`+db+`".parent (name) VALUES ('new') RETURNING id`).Scan(&next); err != nil || next != want || next < 11 {
		t.Errorf("next id = %d, %v; want %d (the source's next AUTO_INCREMENT)", next, err, want)
	}
	// Running the command again changes nothing and says so.
	again, err := Run(ctx, opts)
	if err != nil || !again.AlreadyComplete || again.Rows != 38 {
		t.Errorf("second run: %+v, %v", again, err)
	}
}
