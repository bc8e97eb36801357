package typecorpus

import (
	"strings"
	"testing"
)

// TestCorpusIsConsistent checks the shape of the corpus the type tests rely
// on: unique names, Rows rows, literals exactly for the written columns.
func TestCorpusIsConsistent(t *testing.T) {
	seen := map[string]bool{}
	longest := 0
	for _, c := range Columns {
		if seen[c.Name] {
			t.Errorf("column %s listed twice", c.Name)
		}
		seen[c.Name] = true
		longest = max(longest, len(c.Values))
		for r, v := range c.Values {
			if (v[0] == "") != c.Generated() {
				t.Errorf("column %s row %d: literal %q for a column generated=%v", c.Name, r+1, v[0], c.Generated())
			}
		}
		if c.PostGIS != nil && len(c.PostGIS) != len(c.Values) {
			t.Errorf("column %s: %d PostGIS values for %d values", c.Name, len(c.PostGIS), len(c.Values))
		}
	}
	if longest != Rows {
		t.Errorf("longest column has %d values, Rows is %d", longest, Rows)
	}
}

func TestInsertWritesEveryLiteral(t *testing.T) {
	ins := Insert("types")
	if n := strings.Count(ins, "), ("); n != Rows-1 {
		t.Errorf("%d row separators, want %d", n, Rows-1)
	}
	for _, c := range Columns {
		if c.Generated() {
			if strings.Contains(ins, "`"+c.Name+"`") {
				t.Errorf("generated column %s is written", c.Name)
			}
			continue
		}
		for _, v := range c.Values {
			if !strings.Contains(ins, v[0]) {
				t.Errorf("column %s: literal %s is not in the INSERT", c.Name, v[0])
			}
		}
	}
	if got, want := (Column{DDL: "DATE NOT NULL"}).SQL(0), "DEFAULT"; got != want {
		t.Errorf("NOT NULL column beyond its values writes %s, want %s", got, want)
	}
	if got := (Column{DDL: "INT"}).SQL(3); got != Null {
		t.Errorf("nullable column beyond its values writes %s, want NULL", got)
	}
}

func TestForMySQL(t *testing.T) {
	if len(For(false)) != len(Columns) {
		t.Errorf("MariaDB corpus has %d columns, want all %d", len(For(false)), len(Columns))
	}
	my := For(true)
	for _, name := range []string{"u", "i4", "i6"} {
		if _, ok := my.Find(name); ok {
			t.Errorf("MySQL corpus has the MariaDB-only column %s", name)
		}
	}
	tm, _ := my.Find("tm1")
	orig, _ := Find("tm1")
	if tm.PG(1) != "838:59:59" || orig.PG(1) != "838:59:59.9" {
		t.Errorf("tm1 row 1: MySQL %q, MariaDB %q (the override must not leak into Columns)", tm.PG(1), orig.PG(1))
	}
}
