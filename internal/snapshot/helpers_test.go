package snapshot

import (
	"context"
	"database/sql"
	"log/slog"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	mysink "github.com/sluice-db/sluice/internal/sink/mysql"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	targets "github.com/sluice-db/sluice/internal/target"
	"github.com/sluice-db/sluice/internal/testenv"
)

// testOptions are the options of a snapshot of database db into its own
// stream, which is forgotten when the test ends.
func testOptions(t *testing.T, env *testenv.Env, db string) Options {
	t.Helper()
	src, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	dst, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	stream := testenv.UniqueName("st")
	pg := env.PG(t)
	t.Cleanup(func() {
		ctx := context.Background()
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	level := slog.LevelWarn
	if os.Getenv("SLUICE_TEST_VERBOSE") != "" {
		level = slog.LevelDebug
	}
	return Options{
		Source: src, Target: pgsink.NewEngine(dst), Include: []string{db}, Stream: stream, Workers: 2, ChunkRows: 3,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})),
	}
}

// withStorage gives a MySQL target of o --target-engine storage ("": the
// source table's engine).
func withStorage(o *Options, storage string) {
	o.Target = mysink.NewEngine(*targets.MySQLOf(o.Target), storage)
}

func mustExec(t *testing.T, db *sql.DB, q string, args ...any) {
	t.Helper()
	if _, err := db.ExecContext(context.Background(), q, args...); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
}

// pgRows returns the rows of a query as text lines, sorted.
func pgRows(t *testing.T, pg *pgxpool.Pool, q string, args ...any) []string {
	t.Helper()
	return sortStrings(testenv.PGRows(t, pg, q, args...))
}

func pgCount(t *testing.T, pg *pgxpool.Pool, table string) int64 {
	t.Helper()
	var n int64
	if err := pg.QueryRow(context.Background(), "SELECT count(*) FROM "+table).Scan(&n); err != nil {
		t.Fatalf("count %s: %v", table, err)
	}
	return n
}

// lockKey is the advisory lock a PostgreSQL target's snapshot of a stream
// holds (the writer lives in sink/postgres).
func lockKey(stream string) string { return pgsink.SnapshotLockKey(stream) }
