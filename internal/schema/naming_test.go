package schema

import (
	"strings"
	"testing"
)

func TestNamingMapsAndRefuses(t *testing.T) {
	n, err := NewNamingOptions(NamingOptions{Identifiers: "lower", SchemaMap: []string{"Shop=Public"},
		Renames: []string{"Shop.Orders=order_rows", "Shop.Items.SKU=code"}, ExcludeColumns: []string{"Shop.Items.Secret"}})
	if err != nil {
		t.Fatal(err)
	}
	items := TableID{Database: "Shop", Name: "Items"}
	for got, want := range map[string]string{
		n.Schema("Shop"):  "Public", // explicit names are kept as given
		n.Schema("Other"): "other",
		n.Table(TableID{Database: "Shop", Name: "Orders"}): "order_rows",
		n.Table(items):         "items",
		n.Column(items, "sku"): "code", // columns match case-insensitively
		n.Column(items, "Qty"): "qty",
		n.QTable(items):        `"Public"."items"`,
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if !n.Excluded(items, "SECRET") || n.Excluded(items, "qty") {
		t.Error("Excluded")
	}
	for _, o := range []NamingOptions{
		{Identifiers: "upper"},
		{Renames: []string{"justtable=x"}},
		{Renames: []string{"db.t=" + strings.Repeat("x", 64)}},
		{ExcludeColumns: []string{"db.t"}},
	} {
		if _, err := NewNamingOptions(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	a := NamingOptions{Identifiers: "lower"}
	if d := n.Options().Differs(a); len(d) != 3 { // schema map, renames, excluded columns
		t.Errorf("Differs: %v", d)
	}
}

func TestNamingCheck(t *testing.T) {
	tbl := func(name string, cols ...string) *Table {
		t := &Table{TableID: TableID{Database: "db", Name: name}, PrimaryKey: []string{cols[0]}}
		for _, c := range cols {
			t.Columns = append(t.Columns, Column{Name: c})
		}
		return t
	}
	lower, _ := NewNamingOptions(NamingOptions{Identifiers: "lower"})
	err := lower.Check([]*Table{tbl("Dup", "id"), tbl("dup", "id")})
	if err == nil || !strings.Contains(err.Error(), "db.Dup") || !strings.Contains(err.Error(), "db.dup") ||
		!strings.Contains(err.Error(), "--rename") {
		t.Errorf("table collision: %v", err)
	}
	ren, _ := NewNamingOptions(NamingOptions{Renames: []string{"db.t.a=b"}})
	if err := ren.Check([]*Table{tbl("t", "id", "a", "b")}); err == nil || !strings.Contains(err.Error(), "both become") {
		t.Errorf("column collision: %v", err)
	}
	long := strings.Repeat("é", 35)
	if err := (Naming{}).Check([]*Table{tbl(long, "id")}); err == nil || !strings.Contains(err.Error(), "--rename db."+long+"=") {
		t.Errorf("70-byte name: %v", err)
	}
	// A MySQL target keeps the source's names, up to MySQL's 64 characters
	// (found by TestFuzzDifferential, seed 3: replicate into MariaDB refused
	// a 64-byte column name the snapshot had copied).
	longCol := tbl("t", "id", strings.Repeat("ü", 32))
	if err := (Naming{}).ForMySQLTarget().Check([]*Table{tbl(long, "id"), longCol}); err != nil {
		t.Errorf("MySQL target, long names: %v", err)
	}
	if err := (Naming{}).Check([]*Table{longCol}); err == nil {
		t.Errorf("PostgreSQL target, a 64-byte column name accepted")
	}
	gen := tbl("g", "id", "price", "total")
	gen.Columns[2].GenerationExpr = "`price` * 2"
	gen.Indexes = []Index{{Name: "u", Unique: true, Columns: []IndexColumn{{Name: "price"}}}}
	ex, _ := NewNamingOptions(NamingOptions{ExcludeColumns: []string{"db.g.id", "db.g.price"}})
	err = ex.Check([]*Table{gen})
	for _, want := range []string{"primary key", "generated column total"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("excluded column: %v lacks %q", err, want)
		}
	}
	nopk := tbl("k", "a", "b")
	nopk.PrimaryKey = nil
	nopk.Indexes = []Index{{Name: "uk", Unique: true, Columns: []IndexColumn{{Name: "a"}}}}
	ex2, _ := NewNamingOptions(NamingOptions{ExcludeColumns: []string{"db.k.a"}})
	if err := ex2.Check([]*Table{nopk}); err == nil || !strings.Contains(err.Error(), "unique key uk") {
		t.Errorf("excluded unique key column: %v", err)
	}
	if !ExprMentions("concat(`a`, 'price')", "a") || ExprMentions("concat(b, 'a')", "a") {
		t.Error("ExprMentions")
	}
}

func TestNamingUnmatched(t *testing.T) {
	n, _ := NewNamingOptions(NamingOptions{Renames: []string{"db.t=u", "db.gone=x", "db.t.typo=y"},
		ExcludeColumns: []string{"db.t.a", "db.t.pasword"}})
	tbl := &Table{TableID: TableID{Database: "db", Name: "t"}, Columns: []Column{{Name: "a"}, {Name: "password"}}}
	got := strings.Join(n.Unmatched([]*Table{tbl}), "\n")
	for _, want := range []string{"--rename db.gone", "--rename db.t.typo", "--exclude-columns db.t.pasword"} {
		if !strings.Contains(got, want) {
			t.Errorf("Unmatched lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "db.t.a") || strings.Contains(got, "db.t:") {
		t.Errorf("Unmatched lists a matching entry:\n%s", got)
	}
}

func TestQuoteMySQL(t *testing.T) {
	for in, want := range map[string]string{
		"t":      "`t`",
		"a`b":    "`a``b`",
		"``":     "``````",
		"":       "``",
		"Zürich": "`Zürich`",
	} {
		if got := QuoteMySQL(in); got != want {
			t.Errorf("QuoteMySQL(%q) = %q, want %q", in, got, want)
		}
	}
}
