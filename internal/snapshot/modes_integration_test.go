package snapshot

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/exitcode"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

const fkFixture = `
CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR(10) NOT NULL, KEY kname (name));
CREATE TABLE child (id INT PRIMARY KEY, parent_id INT NOT NULL, CONSTRAINT fk_child_parent FOREIGN KEY (parent_id) REFERENCES parent (id));
INSERT INTO parent SELECT seq, CONCAT('p', seq) FROM seq_1_to_30;
INSERT INTO child SELECT seq, 1 + seq % 30 FROM seq_1_to_60;
`

// TestSchemaOnlyThenDataOnly creates the schema alone, then copies the rows
// into it; the foreign key exists at the end and the position is recorded
// only by the data run.
func TestSchemaOnlyThenDataOnly(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_modes")
	mustExec(t, env.MySQL(t, db), fkFixture)
	pg := env.PG(t)
	ctx := context.Background()
	opts := testOptions(t, env, db)

	missing := opts
	missing.DataOnly = true
	if _, err := Run(ctx, missing); exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "--schema-only") {
		t.Fatalf("--data-only without tables: %v (code %d), want exit 2 naming --schema-only", err, exitcode.Of(err))
	}

	so := opts
	so.SchemaOnly = true
	rep, err := Run(ctx, so)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "schema-only" || rep.Rows != 0 || !rep.Position.IsZero() || pgCount(t, pg, `"`+db+`".child`) != 0 {
		t.Errorf("schema-only report %+v", rep)
	}
	if st, _ := checkpoint.Load(ctx, pg, opts.Stream, binlogpos.Decode); st != nil {
		t.Errorf("schema-only recorded a checkpoint: %+v", st)
	}
	fks := `SELECT conname FROM pg_constraint c JOIN pg_namespace n ON n.oid = c.connamespace WHERE n.nspname = $1 AND contype = 'f'`
	if got := pgRows(t, pg, fks, db); len(got) != 1 {
		t.Fatalf("foreign keys after --schema-only: %v", got)
	}

	do := opts
	do.DataOnly = true
	rep, err = Run(ctx, do)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Mode != "data-only" || rep.Rows != 90 || pgCount(t, pg, `"`+db+`".child`) != 60 || pgCount(t, pg, `"`+db+`".parent`) != 30 {
		t.Errorf("data-only: %+v", rep)
	}
	if got := pgRows(t, pg, fks, db); len(got) != 1 {
		t.Errorf("foreign keys after --data-only: %v", got)
	}
	if idx := pgRows(t, pg, `SELECT indexname FROM pg_indexes WHERE schemaname = $1`, db); len(idx) != 4 { // both keys, kname and the index MySQL made for the foreign key
		t.Errorf("indexes = %v", idx)
	}
	if st, err := checkpoint.Load(ctx, pg, opts.Stream, binlogpos.Decode); err != nil || st == nil || st.Position != rep.Position {
		t.Errorf("checkpoint %+v, %v; want %s", st, err, rep.Position)
	}
}

// TestResumeContinuesPlanning resumes a table whose chunk planning was cut
// short: the rest of the key space is planned at the new instant from the
// last recorded boundary.
func TestResumeContinuesPlanning(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_replan")
	my := env.MySQL(t, db)
	mustExec(t, my, "CREATE TABLE t (id INT PRIMARY KEY, v INT); INSERT INTO t SELECT seq, seq FROM seq_1_to_100")
	pg := env.PG(t)
	ctx := context.Background()
	opts := testOptions(t, env, db)
	opts.ChunkRows = 10
	if _, err := Run(ctx, opts); err != nil {
		t.Fatal(err)
	}
	// Rewind the state to "chunks 1-4 planned and copied, planning not finished".
	for _, q := range []string{
		`DELETE FROM sluice.snapshot_chunk WHERE stream = $1 AND chunk > 4`,
		`UPDATE sluice.snapshot_table SET planned = false, indexed = false WHERE stream = $1`,
		`UPDATE sluice.snapshot_run SET status = 'copying' WHERE stream = $1`,
		`DELETE FROM sluice.checkpoint WHERE stream = $1`,
	} {
		if _, err := pg.Exec(ctx, q, opts.Stream); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := pg.Exec(ctx, `DELETE FROM "`+db+`".t WHERE id > 40`); err != nil {
		t.Fatal(err)
	}
	mustExec(t, my, "INSERT INTO t SELECT seq, -seq FROM seq_101_to_135; UPDATE t SET v = 0 WHERE id = 50")
	rep, err := Run(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || rep.Rows != 135 || rep.ChunksKept != 4 || rep.ChunksCopied != 10 {
		t.Errorf("report: resumed=%v rows=%d kept=%d copied=%d; want 135 rows, 4 kept, 10 copied", rep.Resumed, rep.Rows, rep.ChunksKept, rep.ChunksCopied)
	}
	src := sourceRows(t, env, db, "SELECT id, v FROM t")
	dst := pgRows(t, pg, `SELECT id, v FROM "`+db+`".t`)
	if strings.Join(src, ",") != strings.Join(dst, ",") {
		t.Errorf("target differs from source: %d vs %d rows", len(dst), len(src))
	}
}

// TestOneSnapshotPerStream refuses a second snapshot of a stream while one runs.
func TestOneSnapshotPerStream(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_lock")
	mustExec(t, env.MySQL(t, db), "CREATE TABLE t (id INT PRIMARY KEY)")
	pg := env.PG(t)
	ctx := context.Background()
	opts := testOptions(t, env, db)
	opts.StreamLockWait = time.Second
	c, err := pg.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Release()
	if _, err := c.Exec(ctx, "SELECT pg_advisory_lock(hashtext($1))", lockKey(opts.Stream)); err != nil {
		t.Fatal(err)
	}
	_, err = Run(ctx, opts)
	if exitcode.Of(err) != exitcode.Config || !strings.Contains(err.Error(), "another sluice snapshot") {
		t.Errorf("second snapshot of a stream: %v (code %d)", err, exitcode.Of(err))
	}
	c.Exec(ctx, "SELECT pg_advisory_unlock(hashtext($1))", lockKey(opts.Stream))
	if _, err := Run(ctx, opts); err != nil {
		t.Errorf("after the lock is released: %v", err)
	}
}
