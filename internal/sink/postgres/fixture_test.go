package postgres

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/checkpoint"
	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/pipeline"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
)

// fixture is one test's private target schema and stream on the sandbox
// PostgreSQL.
type fixture struct {
	t      *testing.T
	db     string // source database name = target schema
	stream string
	pool   *pgxpool.Pool
	naming schema.Naming
}

func newFixture(t *testing.T, workers int) *fixture {
	t.Helper()
	env := testenv.Get(t)
	db := env.NewDatabase(t, "apply")
	cfg, err := pgxpool.ParseConfig(env.TargetURL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.MaxConns = int32(pipeline.PoolConns(workers) + 2)
	ctx := context.Background()
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{t: t, db: db, stream: db, pool: pool}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		_ = checkpoint.Delete(ctx, pool, f.stream)
		_ = checkpoint.DeleteApplied(ctx, pool, f.stream)
		pool.Close()
	})
	f.exec(`CREATE SCHEMA "` + db + `"`)
	return f
}

func (f *fixture) exec(sqls ...string) {
	f.t.Helper()
	for _, s := range sqls {
		s = strings.ReplaceAll(s, "$S", `"`+f.db+`"`)
		if _, err := f.pool.Exec(context.Background(), s); err != nil {
			f.t.Fatalf("%s: %v", s, err)
		}
	}
}

// applyConfig is a test's settings of the pipeline and of this sink.
type applyConfig struct {
	pipeline.Config
	Sink Config
}

// config returns the settings for this fixture's stream.
func (f *fixture) config(workers int) applyConfig {
	return applyConfig{
		Config: pipeline.Config{Stream: f.stream, Workers: workers, CheckpointInterval: 50 * time.Millisecond},
		Sink: Config{Stream: f.stream, Workers: workers, Decode: binlogpos.Decode,
			Mapper: typemap.New(typemap.DefaultOptions(), nil), Naming: f.naming},
	}
}

// newApplier is the pipeline writing to this sink, as replicate builds it.
func newApplier(cfg applyConfig, pool *pgxpool.Pool) (*pipeline.Applier, error) {
	sink, err := New(cfg.Sink, pool)
	if err != nil {
		return nil, err
	}
	return pipeline.New(cfg.Config, sink)
}

// run applies txns (their Seq set from 1) to completion.
func (f *fixture) run(cfg applyConfig, txns []*model.Txn) error {
	_, err := f.runStats(cfg, txns)
	return err
}

// runStats is run, returning the applier's counters too.
func (f *fixture) runStats(cfg applyConfig, txns []*model.Txn) (pipeline.Stats, error) {
	a, err := newApplier(cfg, f.pool)
	if err != nil {
		return pipeline.Stats{}, err
	}
	in := make(chan *model.Txn, 16)
	go func() {
		defer close(in)
		for i, t := range txns {
			t.Seq = uint64(i + 1)
			in <- t
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	err = a.Run(ctx, in)
	for range in { // let the feeder finish after an error
	}
	return a.Stats(), err
}

// dump returns a table's rows as sorted strings (duplicates kept).
func (f *fixture) dump(table string, cols string) []string {
	f.t.Helper()
	rows, err := f.pool.Query(context.Background(),
		fmt.Sprintf(`SELECT %s FROM "%s"."%s"`, cols, f.db, table))
	if err != nil {
		f.t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			f.t.Fatal(err)
		}
		out = append(out, rowString(vals...))
	}
	if err := rows.Err(); err != nil {
		f.t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

func (f *fixture) checkpoint() *checkpoint.State {
	f.t.Helper()
	st, err := checkpoint.Load(context.Background(), f.pool, f.stream, binlogpos.Decode)
	if err != nil {
		f.t.Fatal(err)
	}
	return st
}

func (f *fixture) appliedRows() int {
	f.t.Helper()
	var n int
	if err := f.pool.QueryRow(context.Background(),
		`SELECT count(*) FROM sluice.applied WHERE stream = $1`, f.stream).Scan(&n); err != nil {
		f.t.Fatal(err)
	}
	return n
}

func pos(n int) binlogpos.Position {
	return binlogpos.Position{File: "mysql-bin.000007", Pos: uint32(1000 + n*100)}
}

func equalLists(t *testing.T, what string, got, want []string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d\n got: %.20v\nwant: %.20v", what, len(got), len(want), got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: row %d is %q, want %q", what, i, got[i], want[i])
		}
	}
}

// rowString prints values separated by "|", NULL as <nil>.
func rowString(vals ...any) string {
	parts := make([]string, len(vals))
	for i, v := range vals {
		parts[i] = fmt.Sprint(v)
	}
	return strings.Join(parts, "|")
}
