package schema

import (
	"reflect"
	"strings"
	"testing"
)

func TestFilterMatch(t *testing.T) {
	cases := []struct {
		name             string
		include, exclude []string
		urlDB            string
		yes, no          []string // "db.table"
	}{
		{name: "url database is the default scope", urlDB: "shop",
			yes: []string{"shop.orders", "shop.x"}, no: []string{"other.orders", "mysql.user"}},
		{name: "no url database: every non-system database",
			yes: []string{"shop.orders", "a.b"},
			no:  []string{"mysql.user", "sys.x", "information_schema.TABLES", "performance_schema.threads"}},
		{name: "bare db means db.*", include: []string{"shop"}, urlDB: "ignored",
			yes: []string{"shop.a"}, no: []string{"ignored.a", "shopx.a"}},
		{name: "wildcards", include: []string{"shop.order*", "s?.t"},
			yes: []string{"shop.orders", "shop.order", "s1.t"}, no: []string{"shop.xorder", "s12.t", "s1.tt"}},
		{name: "exclude wins", include: []string{"shop.*"}, exclude: []string{"shop.tmp_*"},
			yes: []string{"shop.orders"}, no: []string{"shop.tmp_1"}},
		{name: "wildcard db never matches system databases", include: []string{"*.user"},
			yes: []string{"app.user"}, no: []string{"mysql.user"}},
		{name: "a literal system database is allowed", include: []string{"mysql.user"},
			yes: []string{"mysql.user"}, no: []string{"mysql.db"}},
		{name: "case-sensitive like MySQL on Linux", include: []string{"Shop.Orders"},
			yes: []string{"Shop.Orders"}, no: []string{"shop.orders"}},
		{name: "table names with dots", include: []string{"db.a.b"},
			yes: []string{"db.a.b"}, no: []string{"db.a"}},
		{name: "backquoted parts", include: []string{"`my db`.`t`"},
			yes: []string{"my db.t"}, no: []string{"my db.u"}},
		{name: "backquoted names are literal: backslash, wildcards, dots, commas, quotes",
			include: []string{"db.`test_table\\`", "db.`a*b`", "db.`c,\"d`"},
			yes:     []string{"db.test_table\\", "db.a*b", "db.c,\"d"}, no: []string{"db.test_table", "db.aXb"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f, err := NewFilter(tc.include, tc.exclude, tc.urlDB)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range tc.yes {
				db, tb, _ := strings.Cut(s, ".")
				if !f.Match(db, tb) {
					t.Errorf("Match(%s) = false, want true (filter %s)", s, f)
				}
				if !f.MatchDatabase(db) {
					t.Errorf("MatchDatabase(%s) = false, want true", db)
				}
			}
			for _, s := range tc.no {
				db, tb, _ := strings.Cut(s, ".")
				if f.Match(db, tb) {
					t.Errorf("Match(%s) = true, want false (filter %s)", s, f)
				}
			}
		})
	}
}

func TestFilterMatchDatabase(t *testing.T) {
	f, _ := NewFilter([]string{"a.*", "b.t1", "c*"}, []string{"c2", "a.tmp"}, "")
	for db, want := range map[string]bool{"a": true, "b": true, "c1": true, "c2": false, "d": false, "mysql": false} {
		if got := f.MatchDatabase(db); got != want {
			t.Errorf("MatchDatabase(%s) = %v, want %v", db, got, want)
		}
	}
	if got, want := f.LiteralIncludes(), []TableID{{"b", "t1"}}; !reflect.DeepEqual(got, want) {
		t.Errorf("LiteralIncludes = %v, want %v", got, want)
	}
}

func TestParsePatternErrors(t *testing.T) {
	for _, s := range []string{"", ".t", "db.", "db.[a"} {
		if _, err := ParsePattern(s); err == nil {
			t.Errorf("ParsePattern(%q) = nil error", s)
		}
	}
}

func TestNaming(t *testing.T) {
	n, err := NewNaming([]string{"shop=public", " crm = Sales "})
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Schema("shop"); got != "public" {
		t.Errorf("Schema(shop) = %q", got)
	}
	if got := n.Schema("other"); got != "other" {
		t.Errorf("Schema(other) = %q", got)
	}
	if got := n.QTable(TableID{"crm", `We"ird`}); got != `"Sales"."We""ird"` {
		t.Errorf("QTable = %s", got)
	}
	if got := n.QName("shop", "ix"); got != `"public"."ix"` {
		t.Errorf("QName = %s", got)
	}
	if got := QuoteIdents([]string{"a", "B"}); got != `"a", "B"` {
		t.Errorf("QuoteIdents = %s", got)
	}
	for _, bad := range [][]string{{"x"}, {"=y"}, {"a=b", "a=c"}, {"a=sluice"}} {
		if _, err := NewNaming(bad); err == nil {
			t.Errorf("NewNaming(%q) = nil error", bad)
		}
	}
	if err := n.CheckDatabases([]string{"shop", "sluice"}); err == nil || !strings.Contains(err.Error(), "--schema-map sluice=") {
		t.Errorf("CheckDatabases(sluice) = %v, want a --schema-map hint", err)
	}
}

func TestLiterals(t *testing.T) {
	for _, s := range []string{"", "it's", `a\b`, "nul\x00in", "line\nfeed\r", "tab\tz\x1a", "NULL"} {
		q := QuoteLiteral(s)
		back, err := UnquoteLiteral(q)
		if err != nil || back != s {
			t.Errorf("round trip %q → %s → %q, %v", s, q, back, err)
		}
	}
	if got := QuoteLiteral("it's \\ x"); got != `'it''s \\ x'` {
		t.Errorf("QuoteLiteral = %s", got)
	}
	if got, _ := UnquoteLiteral(`'a\'b\"c\%'`); got != `a'b"c\%` {
		t.Errorf("UnquoteLiteral = %q", got)
	}
	for _, bad := range []string{"abc", "'a'b'", `'a\'`} {
		if IsQuotedLiteral(bad) {
			t.Errorf("IsQuotedLiteral(%s) = true", bad)
		}
	}
}

func TestParseElements(t *testing.T) {
	cases := map[string][]string{
		"enum('a','b')":                {"a", "b"},
		"enum('it''s','','x,y')":       {"it's", "", "x,y"},
		`set('back\\slash','q''')`:     {`back\slash`, "q'"},
		"enum('(paren)','a)b')":        {"(paren)", "a)b"},
		"enum('')":                     {""},
		"set('a','b','c','d','e','f')": {"a", "b", "c", "d", "e", "f"},
	}
	for in, want := range cases {
		got, err := ParseElements(in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("ParseElements(%s) = %q, %v; want %q", in, got, err, want)
		}
	}
	if _, err := ParseElements("enum('a"); err == nil {
		t.Error("unterminated member: nil error")
	}
}

func TestCanonicalExpr(t *testing.T) {
	cases := map[string]string{
		"current_timestamp()":         "current_timestamp()",
		"CURRENT_TIMESTAMP":           "current_timestamp()",
		"CURRENT_TIMESTAMP(3)":        "current_timestamp(3)",
		"now(6)":                      "current_timestamp(6)",
		"`e` + 1":                     "e + 1",
		"(1 + 2)":                     "1 + 2",
		"concat(_utf8mb4'a',`b`)":     "concat('a', b)",
		"`Weird Col` > 0":             "`Weird Col` > 0",
		"this is not ) an expression": "this is not ) an expression",
	}
	for in, want := range cases {
		if got := CanonicalExpr(in); got != want {
			t.Errorf("CanonicalExpr(%s) = %s, want %s", in, got, want)
		}
	}
	if fsp, ok := IsCurrentTimestamp("current_timestamp(3)"); !ok || fsp != 3 {
		t.Errorf("IsCurrentTimestamp(3) = %d %v", fsp, ok)
	}
	if _, ok := IsCurrentTimestamp("current_timestamp(3) + 1"); ok {
		t.Error("IsCurrentTimestamp matched an expression")
	}
	if got := JSONValidColumn("json_valid(`doc`)"); got != "doc" {
		t.Errorf("JSONValidColumn = %q", got)
	}
	if got := JSONValidColumn("json_valid(`doc`) and 1"); got != "" {
		t.Errorf("JSONValidColumn(compound) = %q", got)
	}
}

// TestPatternBackquotedDatabaseWithDot: a dot inside backquotes is part of
// the name, and literal names count as literal includes (checked to exist).
func TestPatternBackquotedDatabaseWithDot(t *testing.T) {
	f, err := NewFilter([]string{"`x.y`.`z*`", "db.`t\\`"}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	if !f.Match("x.y", "z*") || f.Match("x.y", "zz") || f.Match("x", "y.z*") {
		t.Errorf("filter %s: backquoted x.y.z* matched wrongly", f)
	}
	got := f.LiteralIncludes()
	want := []TableID{{Database: "x.y", Name: "z*"}, {Database: "db", Name: "t\\"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LiteralIncludes() = %v, want %v", got, want)
	}
}

// TestPatternBackslashIsLiteral: a backslash is a character of MySQL names,
// so an unquoted pattern with one names that table (it used to escape the
// next character, and db.a\b silently matched ab), with or without wildcards.
func TestPatternBackslashIsLiteral(t *testing.T) {
	f, err := NewFilter([]string{`db.a\b`, `db.test_table\`, `db.w\*`}, nil, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, yes := range []string{`a\b`, `test_table\`, `w\`, `w\x`} {
		if !f.Match("db", yes) {
			t.Errorf("%s does not match %s", f, yes)
		}
	}
	for _, no := range []string{"ab", "test_table", "w", "wx"} {
		if f.Match("db", no) {
			t.Errorf("%s matches %s", f, no)
		}
	}
	got := f.LiteralIncludes()
	want := []TableID{{Database: "db", Name: `a\b`}, {Database: "db", Name: `test_table\`}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("LiteralIncludes() = %v, want %v", got, want)
	}
}
