package snapshot

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/testenv"
)

// TestResumeKeylessTable interrupts the copy of a table in the middle: the
// table has no primary key yet (sluice adds it after the data). The resumed
// run builds the key before it deletes the range of a changed chunk, copies
// the rest into the keyed table, and ends equal to the source with the key.
func TestResumeKeylessTable(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_reskey")
	my := env.MySQL(t, db)
	mustExec(t, my, `CREATE TABLE ints (id BIGINT PRIMARY KEY, val INT NOT NULL, pad VARCHAR(100));
		INSERT INTO ints SELECT seq, seq, REPEAT('i', 50) FROM seq_1_to_400;`)
	pg := env.PG(t)
	opts := testOptions(t, env, db)
	opts.ChunkRows = 20
	opts.Workers = 1
	interruptAfter(t, opts, pg, 4)

	keys := `SELECT r.relname::text FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = $1 AND c.contype = 'p'`
	done := doneChunks(t, pg, opts.Stream, db, "ints")
	if len(done) == 0 || len(done) >= 20 {
		t.Fatalf("interrupted with %d of 20 chunks copied: want some, not all", len(done))
	}
	if k := pgRows(t, pg, keys, db); len(k) != 0 {
		t.Fatalf("primary key %v exists while the data is only partly copied: want it built after the data", k)
	}
	hi, _ := strconv.Atoi(string(done[0][0]))
	mustExec(t, my, "UPDATE ints SET val = -1 WHERE id = ?", hi)

	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || rep.ChunksRecopied == 0 {
		t.Errorf("report: resumed=%v recopied=%d; want a resumed run that copied a changed chunk again", rep.Resumed, rep.ChunksRecopied)
	}
	src, dst := sourceRows(t, env, db, "SELECT id, val, pad FROM ints"), pgRows(t, pg, `SELECT id, val, pad FROM "`+db+`".ints`)
	if strings.Join(src, "\n") != strings.Join(dst, "\n") {
		t.Errorf("target differs from source (%d vs %d rows)", len(dst), len(src))
	}
	if k := pgRows(t, pg, keys, db); strings.Join(k, ",") != "ints" {
		t.Errorf("primary keys on %v, want ints", k)
	}
}
