package replicate

import (
	"context"
	"database/sql"
	"fmt"
	pgsink "github.com/sluice-db/sluice/internal/sink/postgres"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/snapshot"
	"github.com/sluice-db/sluice/internal/testenv"
)

// rig is one test database on the sandbox replicated into PostgreSQL under
// its own stream name.
type rig struct {
	t      *testing.T
	env    *testenv.Env
	db     string
	my     *sql.DB
	pg     *pgxpool.Pool
	src    config.MySQL
	dst    config.Postgres
	stream string
}

func newRig(t *testing.T, prefix, ddl string) *rig {
	t.Helper()
	return newRigOn(t, testenv.Get(t), prefix, ddl)
}

// newRigOn is newRig on env's source (testenv.Flavors).
func newRigOn(t *testing.T, env *testenv.Env, prefix, ddl string) *rig {
	t.Helper()
	db := env.NewDatabase(t, prefix)
	g := &rig{t: t, env: env, db: db, my: env.MySQL(t, db), pg: env.PG(t), stream: testenv.UniqueName("rs")}
	if ddl != "" {
		g.exec(ddl)
	}
	var err error
	if g.src, err = config.ParseSource(env.SourceURL(db)); err != nil {
		t.Fatal(err)
	}
	if g.dst, err = config.ParseTarget(env.TargetURL()); err != nil {
		t.Fatal(err)
	}
	g.forgetStream(g.stream)
	return g
}

// forgetStream deletes a stream's rows in the sluice schema when the test ends.
func (g *rig) forgetStream(stream string) {
	g.t.Cleanup(func() {
		ctx := context.Background()
		for _, tbl := range []string{"snapshot_chunk", "snapshot_table", "snapshot_run", "checkpoint", "schema_history", "applied"} {
			_, _ = g.pg.Exec(ctx, "DELETE FROM sluice."+tbl+" WHERE stream = $1", stream)
		}
	})
}

func (g *rig) exec(stmts ...string) {
	g.t.Helper()
	for _, s := range stmts {
		if _, err := g.my.Exec(g.env.SQL(s)); err != nil {
			g.t.Fatalf("%s: %v", s, err)
		}
	}
}

// snapshot copies the test database into PostgreSQL schema target (the
// database's own name when empty) under the given stream.
func (g *rig) snapshot(stream, target string) {
	g.t.Helper()
	o := snapshot.Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db}, Stream: stream,
		Workers: 2, Log: testenv.Logger()}
	if target != "" {
		o.SchemaMap = []string{g.db + "=" + target}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if _, err := snapshot.Run(ctx, o); err != nil {
		g.t.Fatalf("snapshot: %v", err)
	}
}

// options are replicate options for the rig's stream.
func (g *rig) options() Options {
	return Options{Source: g.src, Target: pgsink.NewEngine(g.dst), Include: []string{g.db}, Stream: g.stream,
		Workers: 2, Log: testenv.Logger(), StatusEvery: time.Second, DrainTimeout: 20 * time.Second}
}

// background is a replicate run in a goroutine.
type background struct {
	cancel context.CancelFunc
	done   chan error
}

func (g *rig) start(o Options) *background { return startBackground(g.t, o) }

// startBackground runs replicate in a goroutine, stopped when the test ends.
func startBackground(t testing.TB, o Options) *background {
	ctx, cancel := context.WithCancel(context.Background())
	b := &background{cancel: cancel, done: make(chan error, 1)}
	go func() { b.done <- Run(ctx, o) }()
	t.Cleanup(func() { _ = b.stop(30 * time.Second) })
	return b
}

// stop cancels the run (a graceful stop) and returns its error.
func (b *background) stop(timeout time.Duration) error {
	b.cancel()
	select {
	case err := <-b.done:
		b.done <- err
		return err
	case <-time.After(timeout):
		return fmt.Errorf("replicate did not stop within %s", timeout)
	}
}

// catchUp runs replicate with --until-caught-up and fails the test unless
// it returns nil in time.
func (g *rig) catchUp(o Options) {
	g.t.Helper()
	o.UntilCaughtUp = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if err := Run(ctx, o); err != nil {
		g.t.Fatalf("replicate --until-caught-up: %v", err)
	}
	if ctx.Err() != nil {
		g.t.Fatal("replicate --until-caught-up did not catch up within 2 minutes")
	}
}

// runUntilStop runs replicate with --until-caught-up and returns the error
// it stops with; the test fails when it catches up past what (a statement).
func (g *rig) runUntilStop(o Options, what string) error {
	g.t.Helper()
	o.UntilCaughtUp = true
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := Run(ctx, o)
	if err == nil {
		g.t.Fatalf("replication went past %s", what)
	}
	return err
}

// compare snapshots the source as it is now into a reference schema and
// checks that every table of the replicated schema holds the same rows
// (as multisets, column by column by name).
func (g *rig) compare() {
	g.t.Helper()
	for _, d := range g.differences() {
		g.t.Error(d)
	}
}

// differences lists the tables whose replicated rows differ from a fresh
// snapshot of the source.
func (g *rig) differences() []string {
	g.t.Helper()
	ref := g.db + "_ref"
	refStream := testenv.UniqueName("ref")
	g.forgetStream(refStream)
	_, _ = g.pg.Exec(context.Background(), "DROP SCHEMA IF EXISTS "+pgx.Identifier{ref}.Sanitize()+" CASCADE")
	g.snapshot(refStream, ref)
	f, err := schema.NewFilter([]string{g.db}, nil, "")
	if err != nil {
		g.t.Fatal(err)
	}
	cat, err := schema.Load(context.Background(), g.my, f)
	if err != nil {
		g.t.Fatal(err)
	}
	if len(cat.Tables) == 0 {
		g.t.Fatal("compare: no tables")
	}
	var out []string
	for _, t := range cat.Tables {
		cols := make([]string, len(t.Columns))
		for i, c := range t.Columns {
			cols[i] = pgx.Identifier{c.Name}.Sanitize()
		}
		list := strings.Join(cols, ", ")
		a := pgx.Identifier{g.db, t.Name}.Sanitize()
		b := pgx.Identifier{ref, t.Name}.Sanitize()
		q := fmt.Sprintf(`SELECT (SELECT count(*) FROM %[1]s), (SELECT count(*) FROM %[2]s),
			(SELECT count(*) FROM ((SELECT %[3]s FROM %[1]s EXCEPT ALL SELECT %[3]s FROM %[2]s)
				UNION ALL (SELECT %[3]s FROM %[2]s EXCEPT ALL SELECT %[3]s FROM %[1]s)) d)`, a, b, list)
		var na, nb, diff int64
		if err := g.pg.QueryRow(context.Background(), q).Scan(&na, &nb, &diff); err != nil {
			g.t.Fatalf("compare %s: %v", t.Name, err)
		}
		if na != nb || diff != 0 {
			out = append(out, fmt.Sprintf("table %s: replicated %d rows, source %d rows, %d rows differ", t.Name, na, nb, diff))
		}
	}
	return out
}

// count returns the number of rows of a replicated table.
func (g *rig) count(table string) int64 {
	g.t.Helper()
	var n int64
	if err := g.pg.QueryRow(context.Background(), "SELECT count(*) FROM "+pgx.Identifier{g.db, table}.Sanitize()).Scan(&n); err != nil {
		g.t.Fatalf("count %s: %v", table, err)
	}
	return n
}
