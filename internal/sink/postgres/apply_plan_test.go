package postgres

import (
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

func planOf(t *testing.T, tbl *schema.Table) *ApplyPlan {
	t.Helper()
	writable := make([]int, len(tbl.Columns))
	for i := range writable {
		writable[i] = i
	}
	conv, err := typemap.New(typemap.DefaultOptions(), nil).Compile(tbl)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewApplyPlan(tbl, pgx.Identifier{"s", tbl.Name}, writable, conv)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDeleteChunks(t *testing.T) {
	cols := []schema.Column{{Name: "a", DataType: "int"}, {Name: "b", DataType: "int"}, {Name: "v", DataType: "int", Nullable: true}}
	one := planOf(t, &schema.Table{TableID: schema.TableID{Database: "d", Name: "one"}, Columns: cols, PrimaryKey: []string{"a"}})
	two := planOf(t, &schema.Table{TableID: schema.TableID{Database: "d", Name: "two"}, Columns: cols, PrimaryKey: []string{"a", "b"}})
	bag := planOf(t, &schema.Table{TableID: schema.TableID{Database: "d", Name: "bag"}, Columns: cols})
	for _, tc := range []struct {
		plan *ApplyPlan
		rows int
		want string
		n    int
	}{
		{one, 1, `DELETE FROM "s"."one" WHERE "a" = $1`, 1},
		{one, 5, `DELETE FROM "s"."one" WHERE "a" IN ($1, $2, $3, $4)`, 4},
		{two, 3, `DELETE FROM "s"."two" WHERE "a" = $1 AND "b" = $2`, 1}, // largest bucket <= 3 is 1
		{two, 4, `DELETE FROM "s"."two" WHERE ("a", "b") IN (($1, $2), ($3, $4), ($5, $6), ($7, $8))`, 4},
		{bag, 300, `DELETE FROM "s"."bag" WHERE ctid = (SELECT ctid FROM "s"."bag" WHERE "a" = $1 AND "b" = $2 AND "v" IS NOT DISTINCT FROM $3 LIMIT 1)`, 1},
	} {
		sql, n := tc.plan.DeleteChunk(tc.rows)
		if sql != tc.want || n != tc.n {
			t.Errorf("%s, %d rows:\n got %d %s\nwant %d %s", tc.plan.Table.Name, tc.rows, n, sql, tc.n, tc.want)
		}
	}
	if _, n := one.DeleteChunk(1000); n != 256 {
		t.Errorf("1000 rows: chunk of %d, want 256", n)
	}
}

func TestUpdateMany(t *testing.T) {
	cols := []schema.Column{{Name: "id", DataType: "int"}, {Name: "u", DataType: "int"}, {Name: "v", DataType: "varchar", Nullable: true}}
	tbl := &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"}, Columns: cols, PrimaryKey: []string{"id"},
		Indexes: []schema.Index{{Name: "u", Unique: true, Columns: []schema.IndexColumn{{Name: "u"}}}}}
	p := planOf(t, tbl)
	if !p.UpdateManyAllowed() || fmt.Sprint(p.UniqueColumns()) != "[0 1]" {
		t.Fatalf("allowed %v, unique columns %v", p.UpdateManyAllowed(), p.UniqueColumns())
	}
	got := p.UpdateManySQL(2, []string{"pg_catalog.int4", "pg_catalog.int4", "pg_catalog.varchar"})
	want := `UPDATE "s"."t" AS sluice_t SET "id" = sluice_v.c0, "u" = sluice_v.c1, "v" = sluice_v.c2 FROM (VALUES ` +
		`($1::pg_catalog.int4, $2::pg_catalog.int4, $3::pg_catalog.int4, $4::pg_catalog.varchar), ` +
		`($5::pg_catalog.int4, $6::pg_catalog.int4, $7::pg_catalog.int4, $8::pg_catalog.varchar)) ` +
		`AS sluice_v(k0, c0, c1, c2) WHERE sluice_t."id" = sluice_v.k0`
	if got != want {
		t.Errorf("UpdateManySQL:\n got %s\nwant %s", got, want)
	}
	args, err := p.AppendUpdateManyArgs(nil, []any{int64(1), int64(2), "a"}, []any{int64(1), int64(2), "b"})
	if err != nil || fmt.Sprint(args) != "[1 1 2 b]" {
		t.Errorf("args %v, %v", args, err)
	}
	if n := p.UpdateManyChunk(100); n != 64 {
		t.Errorf("chunk of 100 rows: %d, want 64", n)
	}
	// A unique index with an expression part: no multi-row updates.
	expr := *tbl
	expr.Indexes = []schema.Index{{Name: "e", Unique: true, Columns: []schema.IndexColumn{{Name: ""}}}}
	if planOf(t, &expr).UpdateManyAllowed() {
		t.Error("multi-row updates allowed with an expression unique index")
	}
	keyless := &schema.Table{TableID: schema.TableID{Database: "d", Name: "bag"}, Columns: cols}
	if planOf(t, keyless).UpdateManyAllowed() {
		t.Error("multi-row updates allowed on a keyless table")
	}
}
