package schema

import (
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// Check refuses a mapping that cannot hold the tables in scope, before
// anything is written: two source names that become one target name (in a
// schema, or in a table), a target name over PostgreSQL's 63 bytes, and an
// excluded column that the target needs (a key that identifies rows, a
// foreign key, a generated column computed from it). An entry for a column
// the table does not have (yet) applies when DDL adds it.
func (n Naming) Check(tables []*Table) error {
	var errs []error
	byTarget := map[string]TableID{}
	for _, t := range tables {
		key := n.Schema(t.Database) + "\x00" + n.Table(t.TableID)
		if prev, dup := byTarget[key]; dup {
			errs = append(errs, fmt.Errorf("tables %s and %s both become %s on the target: give one another name with --rename %s=new_name",
				prev, t.TableID, n.QTable(t.TableID), t.TableID))
			continue
		}
		byTarget[key] = t.TableID
		errs = append(errs, n.CheckTable(t)...)
	}
	return errors.Join(errs...)
}

// CheckTable is Check for one table's own names and excluded columns (also
// run on each table version DDL replication creates).
func (n Naming) CheckTable(t *Table) []error {
	var errs []error
	if name := n.Table(t.TableID); len(name) > MaxIdent && !n.anyLength {
		errs = append(errs, fmt.Errorf("table %s: PostgreSQL name %q is %d bytes, over PostgreSQL's %d: give it a shorter name with --rename %s=new_name",
			t.TableID, name, len(name), MaxIdent, t.TableID))
	}
	cols := map[string]string{}
	for _, c := range t.Columns {
		if n.Excluded(t.TableID, c.Name) {
			continue
		}
		name := n.Column(t.TableID, c.Name)
		if prev, dup := cols[name]; dup {
			errs = append(errs, fmt.Errorf("table %s: columns %s and %s both become %q on the target: give one another name with --rename %s.%s=new_name",
				t.TableID, prev, c.Name, name, t.TableID, c.Name))
		}
		cols[name] = c.Name
		if len(name) > MaxIdent && !n.anyLength {
			errs = append(errs, fmt.Errorf("table %s: column name %q is %d bytes, over PostgreSQL's %d: give it a shorter name with --rename %s.%s=new_name",
				t.TableID, name, len(name), MaxIdent, t.TableID, c.Name))
		}
	}
	if n.lower {
		ixs := map[string]string{}
		for _, ix := range t.Indexes {
			name := n.Ident(ix.Name)
			if prev, dup := ixs[name]; dup {
				errs = append(errs, fmt.Errorf("table %s: indexes %s and %s both become %q with --identifiers lower: rename one on the source or use --identifiers preserve",
					t.TableID, prev, ix.Name, name))
			}
			ixs[name] = ix.Name
		}
	}
	return append(errs, n.checkExcluded(t)...)
}

// checkExcluded refuses leaving out a column the target cannot do without.
func (n Naming) checkExcluded(t *Table) []error {
	var errs []error
	for _, col := range n.ExcludedColumns(t.TableID) {
		c := t.Column(col)
		if c == nil {
			continue // applies when such a column is added
		}
		flag := "--exclude-columns " + t.TableID.String() + "." + c.Name
		for _, k := range t.PrimaryKey {
			if strings.EqualFold(k, c.Name) {
				errs = append(errs, fmt.Errorf("%s: %s is in the primary key, which identifies rows on the target: it cannot be left out", flag, c.Name))
			}
		}
		if len(t.PrimaryKey) == 0 {
			for _, ix := range t.Indexes {
				if ix.Unique && indexHas(ix, c.Name) {
					errs = append(errs, fmt.Errorf("%s: %s is in unique key %s, which identifies rows of this table without a primary key: it cannot be left out",
						flag, c.Name, ix.Name))
				}
			}
		}
		for _, fk := range t.ForeignKeys {
			for _, fc := range fk.Columns {
				if strings.EqualFold(fc, c.Name) {
					errs = append(errs, fmt.Errorf("%s: %s is in foreign key %s: it cannot be left out", flag, c.Name, fk.Name))
				}
			}
		}
		for _, g := range t.Columns {
			if g.GenerationExpr != "" && !strings.EqualFold(g.Name, c.Name) && !n.Excluded(t.TableID, g.Name) && ExprMentions(g.GenerationExpr, c.Name) {
				errs = append(errs, fmt.Errorf("%s: generated column %s is computed from %s: leave out both, or neither", flag, g.Name, c.Name))
			}
		}
	}
	return errs
}

func indexHas(ix Index, col string) bool {
	for _, ic := range ix.Columns {
		if strings.EqualFold(ic.Name, col) || (ic.Expression != "" && ExprMentions(ic.Expression, col)) {
			return true
		}
	}
	return false
}

// ExprMentions reports whether a MySQL expression refers to a column: the
// name as a whole word, bare or in backquotes, outside string literals. It
// may see a column where a function of the same name is called, which only
// makes callers more careful.
func ExprMentions(expr, col string) bool {
	var b strings.Builder
	inQuote := byte(0)
	for i := 0; i < len(expr); i++ {
		ch := expr[i]
		switch {
		case inQuote != 0:
			if ch == inQuote {
				inQuote = 0
			}
			b.WriteByte(' ')
		case ch == '\'' || ch == '"':
			inQuote = ch
			b.WriteByte(' ')
		default:
			b.WriteByte(ch)
		}
	}
	re := regexp.MustCompile("(?i)(^|[^A-Za-z0-9_$])`?" + regexp.QuoteMeta(col) + "`?($|[^A-Za-z0-9_$])")
	return re.MatchString(b.String())
}

// Unmatched describes the --rename and --exclude-columns entries that name
// no table or column of tables: they apply when DDL creates it, and may be
// typos, so callers log them (an excluded column that is copied after all
// must not go unnoticed).
func (n Naming) Unmatched(tables []*Table) []string {
	byID := make(map[TableID]*Table, len(tables))
	for _, t := range tables {
		byID[t.TableID] = t
	}
	var out []string
	for id := range n.tables {
		if byID[id] == nil {
			out = append(out, "--rename "+id.String()+": no such table in scope")
		}
	}
	for id, cols := range n.columns {
		for c := range cols {
			if t := byID[id]; t == nil || t.Column(c) == nil {
				out = append(out, "--rename "+id.String()+"."+c+": no such column in scope")
			}
		}
	}
	for id, cols := range n.excluded {
		for c := range cols {
			if t := byID[id]; t == nil || t.Column(c) == nil {
				out = append(out, "--exclude-columns "+id.String()+"."+c+": no such column in scope")
			}
		}
	}
	sort.Strings(out)
	return out
}
