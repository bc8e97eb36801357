package postgres

import (
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/sluice-db/sluice/internal/schema"
)

func planOf(t *testing.T, tbl *schema.Table) *ApplyPlan {
	t.Helper()
	writable := make([]int, len(tbl.Columns))
	for i := range writable {
		writable[i] = i
	}
	p, err := NewApplyPlan(tbl, pgx.Identifier{"s", tbl.Name}, writable)
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
