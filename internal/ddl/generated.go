package ddl

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// generated is the target form of one MySQL generated column.
type generated struct {
	expr    string // PostgreSQL expression of GENERATED ALWAYS AS (expr) STORED; "" = plain column
	warning string
	reason  string // why the expression was not translated
}

// kindMapper gives column Kinds, which do not depend on the mapper's
// policies: WritableColumns needs them without the caller's Mapper.
var kindMapper = typemap.New(typemap.DefaultOptions(), nil)

// translateGenerated decides, for every generated column of t (by index in
// t.Columns), whether PostgreSQL computes it (a translated expression) or it
// becomes a plain column that sluice copies from the source. PostgreSQL
// generated columns cannot reference each other, so a reference to an
// earlier translated generated column is replaced by its expression.
func translateGenerated(t *schema.Table, m *typemap.Mapper, n schema.Naming) map[int]generated {
	out := map[int]generated{}
	x := &exprTranslator{t: t, m: m, purpose: forGenerated, inline: map[string]pgExpr{}, n: n}
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.GenerationExpr == "" {
			continue
		}
		e, err := x.translateText(c.GenerationExpr)
		if err == nil {
			e, err = fitGenerated(e, c, m)
		}
		if err != nil {
			out[i] = generated{reason: err.Error(), warning: fmt.Sprintf("%s.%s: generated column expression %s: %v; "+
				"it becomes a plain column whose values are copied from the source", t, c.Name, c.GenerationExpr, err)}
			continue
		}
		g := generated{expr: e.sql}
		if !c.GeneratedStored {
			g.warning = fmt.Sprintf("%s.%s: VIRTUAL generated column becomes STORED (PostgreSQL 15 has no virtual columns)",
				t, c.Name)
		}
		out[i] = g
		x.inline[strings.ToLower(c.Name)] = pgExpr{sql: "(" + e.sql + ")", cls: e.cls}
	}
	return out
}

// fitGenerated checks the expression's class against the column's type.
func fitGenerated(e pgExpr, c *schema.Column, m *typemap.Mapper) (pgExpr, error) {
	_, kind, err := m.PGType(*c)
	if err != nil {
		return e, err
	}
	want := kindClass(kind)
	if e.cls == clsBool && want == clsNum {
		return toNum(e)
	}
	if want == clsOther || (e.cls != want && e.cls != clsNull) {
		return e, refuse("a %s expression for a %s column", e.cls, c.DataType)
	}
	return e, nil
}

// WritableColumns returns the indexes (into t.Columns) of the columns sluice
// writes on the target: all but those PostgreSQL generates itself. Snapshot,
// apply and verify writers use it; it depends only on t, so all of them
// agree with the CREATE TABLE that CreateTable planned.
func WritableColumns(t *schema.Table) []int {
	gen := translateGenerated(t, kindMapper, schema.Naming{})
	out := make([]int, 0, len(t.Columns))
	for i := range t.Columns {
		if g, ok := gen[i]; ok && g.expr != "" {
			continue
		}
		out = append(out, i)
	}
	return out
}

// WritableColumnsIn is WritableColumns without the columns --exclude-columns
// leaves out: the columns that exist on the target and that sluice writes.
func WritableColumnsIn(t *schema.Table, n schema.Naming) []int {
	return n.Keep(t, WritableColumns(t))
}
