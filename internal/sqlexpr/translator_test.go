package sqlexpr

import (
	"strings"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// testScope is one table's columns, described by the default type mapping.
type testScope map[string]*Column

func (s testScope) Column(_, name string) (Expr, error) {
	c, ok := s[strings.ToLower(name)]
	if !ok {
		return Expr{}, Refuse("column %s is unknown", name)
	}
	return Expr{SQL: `"` + c.Name + `"`, Class: c.Class, Col: c}, nil
}

func newTestScope(t *testing.T) testScope {
	t.Helper()
	m := typemap.New(typemap.DefaultOptions(), nil)
	sc := testScope{}
	for _, c := range []schema.Column{
		{Name: "a", DataType: "int", ColumnType: "int(11)"},
		{Name: "big", DataType: "bigint", ColumnType: "bigint(20)"},
		{Name: "f", DataType: "double", ColumnType: "double"},
		{Name: "dec", DataType: "decimal", ColumnType: "decimal(8,2)", Precision: 8, Scale: 2},
		{Name: "s", DataType: "varchar", ColumnType: "varchar(10)", Collation: "utf8mb4_general_ci"},
		{Name: "sb", DataType: "varchar", ColumnType: "varchar(10)", Collation: "utf8mb4_bin"},
		{Name: "d", DataType: "date", ColumnType: "date"},
		{Name: "dt", DataType: "datetime", ColumnType: "datetime"},
		{Name: "ts", DataType: "timestamp", ColumnType: "timestamp"},
	} {
		col, err := ColumnOf(&c, m)
		if err != nil {
			t.Fatal(err)
		}
		sc[c.Name] = col
	}
	return sc
}

type exprCase struct {
	in      string
	purpose Purpose
	want    string // "" = refused; else the PostgreSQL text
	refusal string // part of the refusal, or of the note when translated
}

func runCases(t *testing.T, cases []exprCase) {
	t.Helper()
	sc := newTestScope(t)
	for _, tc := range cases {
		x := &Translator{Purpose: tc.purpose}
		got, err := x.Text(tc.in, sc)
		switch {
		case tc.want == "" && err == nil:
			t.Errorf("%s (purpose %d): translated to %s, want refused (%s)", tc.in, tc.purpose, got.SQL, tc.refusal)
		case tc.want == "" && !strings.Contains(err.Error(), tc.refusal):
			t.Errorf("%s (purpose %d): refused with %q, want a reason with %q", tc.in, tc.purpose, err, tc.refusal)
		case tc.want != "" && err != nil:
			t.Errorf("%s (purpose %d): %v", tc.in, tc.purpose, err)
		case tc.want != "" && got.SQL != tc.want:
			t.Errorf("%s (purpose %d): got %s, want %s", tc.in, tc.purpose, got.SQL, tc.want)
		case tc.want != "" && tc.refusal != "" && !strings.Contains(strings.Join(x.Notes, "\n"), tc.refusal):
			t.Errorf("%s (purpose %d): notes %q, want one with %q", tc.in, tc.purpose, x.Notes, tc.refusal)
		}
	}
}

// TestResolvedDrifts: where the translators of ddl and objects disagreed,
// the one translator's choice, for both kinds of caller.
func TestResolvedDrifts(t *testing.T) {
	runCases(t, []exprCase{
		// MySQL's TRUE and FALSE are the integers 1 and 0 (objects said TRUE).
		{"true", Query, "1", ""},
		{"false + 1", Check, "(0 + 1)", ""},
		// MySQL's quotient keeps the dividend's scale + 4 (ddl did not round).
		{"a / 2", Generated, `round(("a")::numeric / NULLIF(2, 0), 4)`, ""},
		{"dec / a", Check, `round(("dec")::numeric / NULLIF("a", 0), 6)`, ""},
		{"f / 2", Generated, "", "quotient of FLOAT/DOUBLE"},
		{"f / 2", Query, `(("f")::numeric / NULLIF(2, 0))`, "scale of a quotient"},
		// DIV: div() is exact integer division (ddl: trunc of a rounded quotient).
		{"a DIV 3", Generated, `div(("a")::numeric, NULLIF(3, 0))`, ""},
		// 64-bit integer arithmetic also in views (objects did not widen).
		{"a + 1", Query, `("a"::bigint + 1)`, ""},
		{"big * 2", Generated, `("big" * 2)`, ""},
		{"-a", Check, `(-"a"::bigint)`, ""},
		// LIKE: ILIKE on a case-insensitive collation, ESCAPE kept, also in CHECKs (ddl: LIKE, ESCAPE refused).
		{"s like 'a%'", Check, `("s" ILIKE 'a%')`, ""},
		{"sb like 'a|%' escape '|'", Check, `("sb" LIKE 'a|%' ESCAPE '|')`, ""},
		{"s like 'a%'", Generated, "", "collation"},
		// Bit operators are unsigned 64-bit in MySQL: a note for views, refused elsewhere (objects: silent).
		{"a | 4", Query, `("a"::bigint | 4)`, "unsigned 64 bits"},
		{"a | 4", Check, "", "unsigned 64 bits"},
		{"s regexp '^a'", Check, "", "operator regexp"},
		{"s regexp '^a'", Query, `("s" ~* '^a')`, "POSIX"},
		// Functions one translator refused and that are exact, now in both.
		{"instr(sb, 'x') > 0", Check, `(strpos("sb", 'x') > 0)`, ""},
		{"locate('x', sb)", Generated, "", "collation"},
		{"quarter(d)", Generated, `EXTRACT(QUARTER FROM "d")::integer`, ""},
		{"dayofyear(dt)", Index, `EXTRACT(DOY FROM "dt")::integer`, ""},
		{"space(a)", Generated, `repeat(' ', "a")`, ""},
		{"substring_index(s, ',', 1)", Generated, `split_part("s", ',', 1)`, ""},
		{"substring_index(s, ',', 2)", Generated, "", "not IMMUTABLE"},
		{"last_day(d) = d", Check, `((date_trunc('month', "d") + interval '1 month - 1 day')::date = "d")`, ""},
		{"dt < d + interval 1 day", Check, `("dt" < (("d" + (1) * interval '1 days'))::date)`, ""},
		{"d = TIME '10:00:00'", Check, "", "converts implicitly"},
		{"lower(a)", Generated, `lower(("a")::text)`, ""},
		{"coalesce(a, 'x')", Generated, `coalesce(("a")::text, 'x')`, ""},
		{"cast(dec as signed)", Generated, `("dec")::bigint`, ""},
		{"trim(both 'é' from s)", Generated, `trim(BOTH 'é' FROM "s")`, ""},
		{"hour(d)", Generated, `EXTRACT(HOUR FROM ("d")::timestamp)::integer`, ""},
		{"concat(s)", Generated, `("s")`, ""},
		// What objects accepted and PostgreSQL refused or computed differently.
		{"left(s)", Query, "", "left with 1 arguments"},
		{"nullif(s, a)", Query, "", "compares them as numbers"},
		{"d = a", Query, "", "converts implicitly"},
		{"substr(a, 2)", Query, `substr(("a")::text, 2)`, ""},
		{"cast(a as unsigned)", Query, `("a")::bigint`, "wraps negative"},
		{"cast(a as unsigned)", Check, "", "wraps negative"},
		{"shop.f(a)", Check, "", "stored function shop.f"},
		// Purpose-bound differences.
		{"length(s) > 2", Check, `(octet_length("s") > 2)`, ""},
		{"length(s)", Generated, "", "outside a CHECK"},
		{"concat_ws(',', s, sb)", Default, `concat_ws(',', "s", "sb")`, ""},
		{"concat_ws(',', s, sb)", Generated, "", "not IMMUTABLE"},
		{"concat(s, f)", Generated, "", "printed differently"},
		{"concat(s, f)", Query, `("s" || ("f")::text)`, "FLOAT/DOUBLE"},
		{"concat(s, d)", Check, "", "DateStyle"},
		{"year(ts)", Generated, "", "timestamp column"},
		{"year(ts)", Query, `EXTRACT(YEAR FROM "ts")::integer`, "timestamptz"},
		{"year('2020-01-02')", Generated, "", "text value"},
		{"year('2020-01-02')", Query, `EXTRACT(YEAR FROM ('2020-01-02')::timestamp)::integer`, ""},
		{"date_format(d, '%Y')", Generated, "", "to_char is not IMMUTABLE"},
		{"date_format(d, '%Y')", Check, `to_char("d", 'YYYY')`, ""},
		{"s collate utf8mb4_bin = 'a'", Check, "", "COLLATE"},
		{"s = 'a'", Generated, "", "collation"},
		{"s = 'a'", Query, `("s" = 'a')`, "case-insensitive collation"},
		{"now()", Default, "", "function now()"},
		{"uuid()", Default, "", "uuid()"},
		{"greatest(a, 1)", Check, "", "ignores NULLs"},
		{"count(*)", Check, "", "aggregate"},
		{"(select 1)", Check, "", "subquery"},
		{"a in (select 1)", Check, "", "subquery"},
	})
}
