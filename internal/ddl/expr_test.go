package ddl

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
)

func exprTable() *schema.Table {
	return &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"}, Columns: []schema.Column{
		{Name: "a", DataType: "int", ColumnType: "int(11)"},
		{Name: "f", DataType: "double", ColumnType: "double"},
		{Name: "s", DataType: "varchar", ColumnType: "varchar(10)", CharMaxLength: 10, Charset: "utf8mb4"},
		{Name: "ts", DataType: "timestamp", ColumnType: "timestamp"},
		{Name: "Odd Name", DataType: "int", ColumnType: "int(11)"},
	}}
}

func TestExprTranslation(t *testing.T) {
	cases := []struct {
		in      string
		purpose sqlexpr.Purpose
		want    string // "" = refused; else the PostgreSQL text
		refusal string
	}{
		{"a + 1", sqlexpr.Generated, `("a"::bigint + 1)`, ""},
		// MySQL's quotient of integers has 4 decimals (div_precision_increment).
		{"a / 2", sqlexpr.Generated, `round(("a")::numeric / NULLIF(2, 0), 4)`, ""},
		{"f / 2", sqlexpr.Generated, "", "quotient of FLOAT/DOUBLE"},
		{"`Odd Name` DIV 3", sqlexpr.Generated, `div(("Odd Name")::numeric, NULLIF(3, 0))`, ""},
		{"a > 0 and a < 10", sqlexpr.Check, `(("a" > 0) AND ("a" < 10))`, ""},
		{"a", sqlexpr.Check, `"a"`, ""}, // toBool is applied by the caller
		{"concat(s, a)", sqlexpr.Generated, `("s" || ("a")::text)`, ""},
		{"concat(s, f)", sqlexpr.Generated, "", "printed differently"},
		{"s = 'x'", sqlexpr.Generated, "", "collation"},
		{"s = 'x'", sqlexpr.Check, `("s" = 'x')`, ""},
		// s has no _bin/_cs collation: MySQL matches it case-insensitively.
		{"s like 'a%'", sqlexpr.Check, `("s" ILIKE 'a%')`, ""},
		{"s like 'a%'", sqlexpr.Generated, "", "collation"},
		{"year(ts)", sqlexpr.Generated, "", "timestamp column"},
		{"substring(s, -2)", sqlexpr.Generated, "", "positive constant"},
		{"a <=> NULL", sqlexpr.Check, `("a" IS NOT DISTINCT FROM NULL)`, ""},
		{"if(a, 1, 0)", sqlexpr.Generated, `(CASE WHEN ("a" <> 0) THEN 1 ELSE 0 END)`, ""},
		{"a in (1, 2)", sqlexpr.Check, `("a" IN (1, 2))`, ""},
		{"crc32(s)", sqlexpr.Generated, "", "function crc32()"},
		{"nosuch + 1", sqlexpr.Generated, "", "unknown column"},
		{"s = a", sqlexpr.Check, "", "compares them as numbers"},
		{"ts = a", sqlexpr.Check, "", "converts implicitly"},
	}
	for _, tc := range cases {
		x := newExprTranslator(exprTable(), kindMapper, tc.purpose, schema.Naming{})
		got, err := x.translateText(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: translated to %s, want refused (%s)", tc.in, got.SQL, tc.refusal)
		case tc.want == "" && !strings.Contains(err.Error(), tc.refusal):
			t.Errorf("%s: refused with %q, want a reason with %q", tc.in, err, tc.refusal)
		case tc.want != "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && got.SQL != tc.want:
			t.Errorf("%s: got %s, want %s", tc.in, got.SQL, tc.want)
		}
	}
}

// TestGeneratedQuotientAndInline: a quotient stored in a DOUBLE column is
// copied (MariaDB stores 1/3 as 0.333333333, PostgreSQL cannot reproduce
// it); a generated column read by another is read in its own type, as
// MySQL reads it (r1 holds 2 decimals of d / 3, not the quotient's 6).
func TestGeneratedQuotientAndInline(t *testing.T) {
	tb := &schema.Table{TableID: schema.TableID{Database: "d", Name: "t"}, Columns: []schema.Column{
		{Name: "a", DataType: "int", ColumnType: "int(11)"},
		{Name: "d", DataType: "decimal", ColumnType: "decimal(10,2)", Precision: 10, Scale: 2},
		{Name: "q", DataType: "double", ColumnType: "double", GenerationExpr: "a / 3"},
		{Name: "r1", DataType: "decimal", ColumnType: "decimal(10,2)", Precision: 10, Scale: 2, GenerationExpr: "d / 3"},
		{Name: "r2", DataType: "decimal", ColumnType: "decimal(12,4)", Precision: 12, Scale: 4, GenerationExpr: "r1 * 3"},
	}}
	gen := translateGenerated(tb, kindMapper, schema.Naming{})
	if g := gen[2]; g.expr != "" || !strings.Contains(g.reason, "quotient") {
		t.Errorf("q AS (a / 3) DOUBLE: %+v, want a plain column (quotient)", g)
	}
	if want := `round(("d")::numeric / NULLIF(3, 0), 6)`; gen[3].expr != want {
		t.Errorf("r1: %q, want %q", gen[3].expr, want)
	}
	if want := `(((round(("d")::numeric / NULLIF(3, 0), 6))::numeric(10,2)) * 3)`; gen[4].expr != want {
		t.Errorf("r2: %q, want %q", gen[4].expr, want)
	}
}
