package verify

import (
	"context"
	"database/sql"
	"io"
	"log/slog"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
	"github.com/sluice-db/sluice/internal/verify/verifydb"
)

// side is a test's pair of connections with sluice's session settings: a
// fresh MySQL database and the PostgreSQL schema of the same name.
type side struct {
	env    *testenv.Env
	db     string // MySQL database = PostgreSQL schema
	src    config.MySQL
	tgt    config.Postgres
	my     *sql.DB       // sluice settings (time_zone +00:00), multiStatements
	pg     *pgxpool.Pool // targetSessionParams
	pgSchm string
	digest verifydb.RowDigest // what verify chooses for this source (hash.go)
}

// newSide gives the test a fresh database on env's source (testenv.Flavors).
func newSide(t *testing.T, env *testenv.Env, prefix string) *side {
	t.Helper()
	db := env.NewDatabase(t, prefix)
	src, err := config.ParseSource(env.SourceURL(db))
	if err != nil {
		t.Fatal(err)
	}
	tgt, err := config.ParseTarget(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cfg := src.Config()
	cfg.MultiStatements = true
	my, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { my.Close() })
	pg, err := pgsink.OpenVerifyPool(ctx, tgt, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	if _, err := pg.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+verifydb.QuotePG(db)); err != nil {
		t.Fatal(err)
	}
	digest, err := verifydb.ChooseDigest(ctx, my, pgsink.VerifyTarget(pg, schema.Naming{}))
	if err != nil {
		t.Fatal(err)
	}
	return &side{env: env, db: db, src: src, tgt: tgt, my: my, pg: pg, pgSchm: db, digest: digest}
}

// mustMy runs fixture SQL on the source, adapted to its flavor (testenv.Env.SQL).
func (s *side) mustMy(t *testing.T, q string, args ...any) {
	t.Helper()
	q = s.env.SQL(q)
	if _, err := s.my.Exec(q, args...); err != nil {
		t.Fatalf("MySQL: %v\n%s", err, q)
	}
}

func (s *side) mustPG(t *testing.T, q string, args ...any) {
	t.Helper()
	if _, err := s.pg.Exec(context.Background(), q, args...); err != nil {
		t.Fatalf("PostgreSQL: %v\n%s", err, q)
	}
}

// loadTable reads a source table with schema.Load, as the CLI does.
func loadTable(t *testing.T, db *sql.DB, database, table string) *schema.Table {
	t.Helper()
	f, err := schema.NewFilter([]string{database + "." + table}, nil, database)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), db, f)
	if err != nil {
		t.Fatal(err)
	}
	tb := cat.Table(schema.TableID{Database: database, Name: table})
	if tb == nil {
		t.Fatalf("table %s.%s not loaded", database, table)
	}
	return tb
}

// snapshot copies the given source tables into the target with the
// snapshot engine, as `sluice snapshot` does, into a stream of their own
// that is forgotten when the test ends.
func (s *side) snapshot(t *testing.T, opts typemap.Options, tables ...string) (stream string) {
	t.Helper()
	stream = testenv.UniqueName("vst")
	t.Cleanup(func() {
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history"} {
			_, _ = s.pg.Exec(context.Background(), "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
	include := make([]string, len(tables))
	for i, tb := range tables {
		include[i] = s.db + "." + tb
	}
	rep, err := snapshot.Run(context.Background(), snapshot.Options{
		Source: s.src, Target: pgsink.NewEngine(s.tgt), Include: include, Stream: stream, Workers: 2,
		ZeroDate: opts.ZeroDate, Nul: opts.Nul,
		Log: slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		t.Fatalf("snapshot of %v: %v", tables, err)
	}
	_ = rep
	return stream
}
