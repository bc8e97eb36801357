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

// parseElements reads ENUM/SET members from COLUMN_TYPE, e.g. enum('a','b').
func parseElements(columnType string) []string {
	open := strings.IndexByte(columnType, '(')
	if open < 0 || !strings.HasSuffix(columnType, ")") {
		return nil
	}
	body := columnType[open+1 : len(columnType)-1]
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(body); i++ {
		ch := body[i]
		switch {
		case !in && ch == '\'':
			in = true
			cur.Reset()
		case in && ch == '\'' && i+1 < len(body) && body[i+1] == '\'':
			cur.WriteByte('\'')
			i++
		case in && ch == '\'':
			in = false
			out = append(out, cur.String())
		case in:
			cur.WriteByte(ch)
		}
	}
	return out
}

// loadTable reads a table from information_schema into schema.Table: a
// test-only stand-in for schema.Load (columns, primary key, unique keys).
// jsonCols names MariaDB JSON (LONGTEXT) columns.
func loadTable(t *testing.T, db *sql.DB, database, table string, jsonCols ...string) *schema.Table {
	t.Helper()
	rows, err := db.Query(`SELECT COLUMN_NAME, ORDINAL_POSITION, DATA_TYPE, COLUMN_TYPE, IS_NULLABLE,
		COALESCE(CHARACTER_MAXIMUM_LENGTH, 0), COALESCE(NUMERIC_PRECISION, 0), COALESCE(NUMERIC_SCALE, 0),
		COALESCE(DATETIME_PRECISION, 0), COALESCE(CHARACTER_SET_NAME, ''), COALESCE(COLLATION_NAME, ''),
		COALESCE(GENERATION_EXPRESSION, '')
		FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY ORDINAL_POSITION`, database, table)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	tb := &schema.Table{TableID: schema.TableID{Database: database, Name: table}}
	for rows.Next() {
		var c schema.Column
		var nullable string
		if err := rows.Scan(&c.Name, &c.Ordinal, &c.DataType, &c.ColumnType, &nullable, &c.CharMaxLength,
			&c.Precision, &c.Scale, &c.FracDigits, &c.Charset, &c.Collation, &c.GenerationExpr); err != nil {
			t.Fatal(err)
		}
		c.Nullable = nullable == "YES"
		c.Unsigned = strings.Contains(c.ColumnType, "unsigned")
		c.Zerofill = strings.Contains(c.ColumnType, "zerofill")
		if c.DataType == "enum" || c.DataType == "set" {
			c.Elements = parseElements(c.ColumnType)
		}
		if c.DataType == "bit" && c.Precision == 0 {
			c.Precision = 1
		}
		for _, j := range jsonCols {
			c.IsJSON = c.IsJSON || j == c.Name
		}
		tb.Columns = append(tb.Columns, c)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(tb.Columns) == 0 {
		t.Fatalf("table %s.%s not found", database, table)
	}
	krows, err := db.Query(`SELECT INDEX_NAME, NON_UNIQUE, COLUMN_NAME FROM information_schema.STATISTICS
		WHERE TABLE_SCHEMA = ? AND TABLE_NAME = ? ORDER BY INDEX_NAME = 'PRIMARY' DESC, INDEX_NAME, SEQ_IN_INDEX`, database, table)
	if err != nil {
		t.Fatal(err)
	}
	defer krows.Close()
	for krows.Next() {
		var name, col string
		var nonUnique int
		if err := krows.Scan(&name, &nonUnique, &col); err != nil {
			t.Fatal(err)
		}
		if name == "PRIMARY" {
			tb.PrimaryKey = append(tb.PrimaryKey, col)
			continue
		}
		if n := len(tb.Indexes); n == 0 || tb.Indexes[n-1].Name != name {
			tb.Indexes = append(tb.Indexes, schema.Index{Name: name, Unique: nonUnique == 0, Kind: "BTREE"})
		}
		ix := &tb.Indexes[len(tb.Indexes)-1]
		ix.Columns = append(ix.Columns, schema.IndexColumn{Name: col})
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
