package snapshot

import (
	"context"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
)

const resumeFixture = `
CREATE TABLE ints (id BIGINT PRIMARY KEY, val INT NOT NULL, pad VARCHAR(100));
INSERT INTO ints SELECT seq, seq, REPEAT('i', 50) FROM seq_1_to_400;
CREATE TABLE strs (k VARCHAR(20) COLLATE utf8mb4_general_ci PRIMARY KEY, val INT NOT NULL);
INSERT INTO strs SELECT CONCAT(IF(seq % 2, 'K', 'k'), LPAD(seq, 5, '0')), seq FROM seq_1_to_300;
CREATE TABLE nokey (a INT, b TEXT);
INSERT INTO nokey SELECT seq % 7, REPEAT('n', seq % 30) FROM seq_1_to_200;
`

// doneChunks returns the copied chunks of a table in a stream with their
// upper bounds (nil for the last chunk).
func doneChunks(t *testing.T, pg *pgxpool.Pool, stream, db, table string) [][][]byte {
	t.Helper()
	rows, err := pg.Query(context.Background(), `SELECT upper_key FROM sluice.snapshot_chunk
		WHERE stream = $1 AND database = $2 AND table_name = $3 AND done ORDER BY chunk`, stream, db, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out [][][]byte
	for rows.Next() {
		var hi [][]byte
		if err := rows.Scan(&hi); err != nil {
			t.Fatal(err)
		}
		out = append(out, hi)
	}
	return out
}

// interruptAfter runs a snapshot and cancels it once n chunks are copied
// (exactly: the hook runs after each chunk's commit, so no chunk after the
// n-th starts a new copy).
func interruptAfter(t *testing.T, opts Options, pg *pgxpool.Pool, n int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var copied atomic.Int64
	opts.afterChunk = func() {
		if copied.Add(1) >= int64(n) {
			cancel()
		}
	}
	_, err := Run(ctx, opts)
	if err == nil {
		t.Fatal("the snapshot finished before it could be interrupted")
	}
	if !errors.Is(err, context.Canceled) && !strings.Contains(err.Error(), "cancel") {
		t.Logf("interrupted run failed with: %v", err)
	}
	var done int
	if err := pg.QueryRow(context.Background(), `SELECT count(*) FROM sluice.snapshot_chunk WHERE stream = $1 AND done`, opts.Stream).Scan(&done); err != nil {
		t.Fatal(err)
	}
	if done < n {
		t.Fatalf("interrupted after %d chunks were recorded, want at least %d", done, n)
	}
}

// sourceRows returns a table's rows as sorted text, like pgRows.
func sourceRows(t *testing.T, env *testenv.Env, db, q string) []string {
	t.Helper()
	return sortStrings(testenv.MySQLRows(t, env.MySQL(t, db), q))
}

// TestResumeAfterSourceChanges interrupts a snapshot, changes rows in chunks
// it already copied, resumes, and checks that the target equals the source
// at the new position: changed chunks are copied again, unchanged ones kept.
func TestResumeAfterSourceChanges(t *testing.T) {
	env := testenv.Get(t)
	db := env.NewDatabase(t, "snap_resume")
	my := env.MySQL(t, db)
	mustExec(t, my, resumeFixture)
	pg := env.PG(t)
	opts := testOptions(t, env, db)
	opts.ChunkRows = 20
	opts.Workers = 1                // one table at a time: some tables are untouched at the interruption
	interruptAfter(t, opts, pg, 25) // ints has 21 chunks, strs 16: all of ints and part of strs

	ints := doneChunks(t, pg, opts.Stream, db, "ints")
	strs := doneChunks(t, pg, opts.Stream, db, "strs")
	t.Logf("interrupted with %d chunks of ints and %d of strs copied", len(ints), len(strs))
	if len(ints) == 0 || len(strs) == 0 || len(strs) >= 16 {
		t.Fatalf("interrupted with %d chunks of ints and %d of 16 of strs: want some of each, not all of strs", len(ints), len(strs))
	}
	hi, _ := strconv.Atoi(string(ints[0][0]))
	// Change rows inside the first copied chunk of ints and add one at the end.
	mustExec(t, my, "UPDATE ints SET val = -1 WHERE id = ?", hi)
	mustExec(t, my, "DELETE FROM ints WHERE id = ?", hi-1)
	mustExec(t, my, "INSERT INTO ints VALUES (100000, 7, 'new')")
	// strs' key orders differently in PostgreSQL: the whole table is copied again.
	mustExec(t, my, "UPDATE strs SET val = -1 WHERE k = ?", string(strs[0][0]))
	mustExec(t, my, "INSERT INTO strs VALUES ('kz', 1)")

	rep, err := Run(context.Background(), opts)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Resumed || rep.Pass != 2 || rep.ChunksRecopied == 0 || rep.ChunksKept == 0 {
		t.Errorf("report: resumed=%v pass=%d recopied=%d kept=%d copied=%d; want a resumed second pass that kept and re-copied chunks",
			rep.Resumed, rep.Pass, rep.ChunksRecopied, rep.ChunksKept, rep.ChunksCopied)
	}
	for _, q := range [][2]string{
		{"SELECT id, val, pad FROM ints", `SELECT id, val, pad FROM "` + db + `".ints`},
		{"SELECT k, val FROM strs", `SELECT k, val FROM "` + db + `".strs`},
		{"SELECT a, b FROM nokey", `SELECT a, b FROM "` + db + `".nokey`},
	} {
		src, dst := sourceRows(t, env, db, q[0]), pgRows(t, pg, q[1])
		if strings.Join(src, "\n") != strings.Join(dst, "\n") {
			t.Errorf("%s: target differs from source (%d vs %d rows)", q[0], len(dst), len(src))
		}
	}
	// The tables are created keyless and get their primary keys after the
	// data (or before a resumed pass deletes a changed range): both have one.
	keys := pgRows(t, pg, `SELECT r.relname::text FROM pg_constraint c JOIN pg_class r ON r.oid = c.conrelid
		JOIN pg_namespace n ON n.oid = r.relnamespace WHERE n.nspname = $1 AND c.contype = 'p' ORDER BY 1`, db)
	if strings.Join(keys, ",") != "ints,strs" {
		t.Errorf("primary keys on %v, want ints and strs", keys)
	}
	var stale int
	if err := pg.QueryRow(context.Background(), `SELECT count(*) FROM sluice.snapshot_chunk
		WHERE stream = $1 AND (NOT done OR pass <> 2 OR position <> $2)`,
		opts.Stream, rep.Position.Encode()).Scan(&stale); err != nil || stale != 0 {
		t.Errorf("%d chunks are not done as of the final position (%v)", stale, err)
	}
	st, err := checkpoint.Load(context.Background(), pg, opts.Stream, binlogpos.Decode)
	if err != nil || st == nil || st.Position != model.Position(rep.Position) {
		t.Errorf("checkpoint %+v, %v; want %s", st, err, rep.Position)
	}
	// --restart throws everything away and copies again.
	opts.Restart = true
	rep2, err := Run(context.Background(), opts)
	if err != nil || rep2.Resumed || rep2.AlreadyComplete || rep2.Rows != rep.Rows {
		t.Errorf("restart: %+v, %v", rep2, err)
	}
}

// sortStrings returns a sorted copy of s.
func sortStrings(s []string) []string {
	out := slices.Clone(s)
	slices.Sort(out)
	return out
}
