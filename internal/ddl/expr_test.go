package ddl

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
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
		purpose purpose
		want    string // "" = refused; else the PostgreSQL text
		refusal string
	}{
		{"a + 1", forGenerated, `("a"::bigint + 1)`, ""},
		{"a / 2", forGenerated, `("a"::numeric / NULLIF(2, 0))`, ""},
		{"`Odd Name` DIV 3", forGenerated, `trunc("Odd Name"::numeric / NULLIF(3, 0))`, ""},
		{"a > 0 and a < 10", forCheck, `(("a" > 0) AND ("a" < 10))`, ""},
		{"a", forCheck, `"a"`, ""}, // toBool is applied by the caller
		{"concat(s, a)", forGenerated, `("s" || ("a")::text)`, ""},
		{"concat(s, f)", forGenerated, "", "printed differently"},
		{"s = 'x'", forGenerated, "", "collation"},
		{"s = 'x'", forCheck, `("s" = 'x')`, ""},
		{"s like 'a%'", forCheck, `("s" LIKE 'a%')`, ""},
		{"s like 'a%'", forGenerated, "", "collation"},
		{"year(ts)", forGenerated, "", "timestamp column"},
		{"substring(s, -2)", forGenerated, "", "positive constant"},
		{"a <=> NULL", forCheck, `("a" IS NOT DISTINCT FROM NULL)`, ""},
		{"if(a, 1, 0)", forGenerated, `(CASE WHEN ("a" <> 0) THEN 1 ELSE 0 END)`, ""},
		{"a in (1, 2)", forCheck, `("a" IN (1, 2))`, ""},
		{"crc32(s)", forGenerated, "", "function crc32()"},
		{"nosuch + 1", forGenerated, "", "unknown column"},
		{"s = a", forCheck, "", "converts implicitly"},
	}
	for _, tc := range cases {
		x := &exprTranslator{t: exprTable(), m: kindMapper, purpose: tc.purpose}
		got, err := x.translateText(tc.in)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s: translated to %s, want refused (%s)", tc.in, got.sql, tc.refusal)
		case tc.want == "" && !strings.Contains(err.Error(), tc.refusal):
			t.Errorf("%s: refused with %q, want a reason with %q", tc.in, err, tc.refusal)
		case tc.want != "" && err != nil:
			t.Errorf("%s: %v", tc.in, err)
		case tc.want != "" && got.sql != tc.want:
			t.Errorf("%s: got %s, want %s", tc.in, got.sql, tc.want)
		}
	}
}
