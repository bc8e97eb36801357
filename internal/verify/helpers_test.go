package verify

import (
	"context"
	"database/sql"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/sluice-db/sluice/internal/config"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/testenv"
	"github.com/sluice-db/sluice/internal/typemap"
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
}

func newSide(t *testing.T, prefix string) *side {
	t.Helper()
	env := testenv.Get(t)
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
	pg, err := openTarget(ctx, tgt, 4)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pg.Close)
	if _, err := pg.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS "+quotePG(db)); err != nil {
		t.Fatal(err)
	}
	return &side{env: env, db: db, src: src, tgt: tgt, my: my, pg: pg, pgSchm: db}
}

func (s *side) mustMy(t *testing.T, q string, args ...any) {
	t.Helper()
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

// copyTable is a minimal stand-in for the snapshot: it creates the
// PostgreSQL table with typemap's types (and the key as primary key) and
// copies every row through SelectExpr and FromText, as the snapshot does.
func (s *side) copyTable(t *testing.T, tb *schema.Table, opts typemap.Options) *typemap.TableConv {
	t.Helper()
	ctx := context.Background()
	conv, err := typemap.New(opts, nil).Compile(tb)
	if err != nil {
		t.Fatal(err)
	}
	var defs, names, exprs []string
	for _, cc := range conv.Columns {
		if cc.Column.GenerationExpr != "" {
			continue
		}
		d := quotePG(cc.Column.Name) + " " + cc.PGType
		if !cc.Column.Nullable {
			d += " NOT NULL"
		}
		defs = append(defs, d)
		names = append(names, cc.Column.Name)
		exprs = append(exprs, typemap.SelectExpr(cc.Column, quoteMy(cc.Column.Name)))
	}
	if key := tb.KeyColumns(); len(key) > 0 {
		q := make([]string, len(key))
		for i, k := range key {
			q[i] = quotePG(k)
		}
		defs = append(defs, "PRIMARY KEY ("+strings.Join(q, ", ")+")")
	}
	target := quotePG(s.pgSchm) + "." + quotePG(tb.Name)
	s.mustPG(t, "DROP TABLE IF EXISTS "+target)
	s.mustPG(t, "CREATE TABLE "+target+" ("+strings.Join(defs, ", ")+")")
	rows, err := s.my.Query("SELECT " + strings.Join(exprs, ", ") + " FROM " + quoteMy(tb.Database) + "." + quoteMy(tb.Name))
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var data [][]any
	raw := make([]sql.RawBytes, len(exprs))
	ptrs := make([]any, len(raw))
	for i := range raw {
		ptrs[i] = &raw[i]
	}
	var convs []*typemap.ColumnConv
	for _, cc := range conv.Columns {
		if cc.Column.GenerationExpr == "" {
			convs = append(convs, cc)
		}
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]any, len(raw))
		for i, b := range raw {
			if row[i], err = convs[i].FromText(b); err != nil {
				t.Fatal(err)
			}
		}
		data = append(data, row)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.pg.CopyFrom(ctx, pgx.Identifier{s.pgSchm, tb.Name}, names, pgx.CopyFromRows(data)); err != nil {
		t.Fatalf("copy %s: %v", tb.Name, err)
	}
	return conv
}
