package ddl

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
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

// kindMapperMariaDB is kindMapper for a MariaDB source: the decisions are
// the same, the SQL of a DECIMAL quotient follows MariaDB (sqlexpr).
var kindMapperMariaDB = typemap.New(func() typemap.Options {
	o := typemap.DefaultOptions()
	o.SourceFlavor = "mariadb"
	return o
}(), nil)

// genMapper is the kind mapper for the source flavor of m (nil: MySQL's).
func genMapper(m *typemap.Mapper) *typemap.Mapper {
	if m != nil && m.Options().SourceFlavor == "mariadb" {
		return kindMapperMariaDB
	}
	return kindMapper
}

// translateGenerated decides, for every generated column of t (by index in
// t.Columns), whether PostgreSQL computes it (a translated expression) or it
// becomes a plain column that sluice copies from the source. PostgreSQL
// generated columns cannot reference each other, so a reference to an
// earlier translated generated column is replaced by its expression.
func translateGenerated(t *schema.Table, m *typemap.Mapper, n schema.Naming) map[int]generated {
	out := map[int]generated{}
	x := newExprTranslator(t, m, sqlexpr.Generated, n)
	x.scope.inline = map[string]sqlexpr.Expr{}
	for i := range t.Columns {
		c := &t.Columns[i]
		if c.GenerationExpr == "" {
			continue
		}
		x.tr.Quotient = false
		e, err := x.translateText(c.GenerationExpr)
		var inline sqlexpr.Expr
		if err == nil {
			e, inline, err = fitGenerated(e, x.tr.Quotient, c, m)
		}
		if err != nil {
			out[i] = generated{reason: err.Error(), warning: fmt.Sprintf("%s.%s: generated column expression %s: %v; "+
				"it becomes a plain column whose values are copied from the source", t, c.Name, c.GenerationExpr, err)}
			continue
		}
		g := generated{expr: e.SQL}
		if !c.GeneratedStored {
			g.warning = fmt.Sprintf("%s.%s: VIRTUAL generated column becomes STORED (PostgreSQL 15 has no virtual columns)",
				t, c.Name)
		}
		out[i] = g
		x.scope.inline[strings.ToLower(c.Name)] = inline
	}
	return out
}

// fitGenerated checks the expression's class against the column's type,
// and returns the form another generated column reads it in: the value
// stored in the column's type, as MySQL reads it (a DECIMAL(p,2) column of
// a quotient holds 2 decimals, not the quotient's 4).
func fitGenerated(e sqlexpr.Expr, quotient bool, c *schema.Column, m *typemap.Mapper) (sqlexpr.Expr, sqlexpr.Expr, error) {
	pgType, kind, err := m.PGType(*c)
	if err != nil {
		return e, e, err
	}
	col, err := sqlexpr.ColumnOf(c, m)
	if err != nil {
		return e, e, err
	}
	e = sqlexpr.ToValue(e)
	if quotient && col.Float {
		return e, e, sqlexpr.Refuse("cannot translate a quotient (/) for a %s column (MySQL carries it in groups of 9 digits)", c.DataType)
	}
	if col.Class == sqlexpr.Other || !sqlexpr.Fits(e.Class, sqlexpr.KindClass(kind)) {
		return e, e, sqlexpr.Refuse("cannot translate a %s expression for a %s column", e.Class, c.DataType)
	}
	return e, sqlexpr.Expr{SQL: "((" + e.SQL + ")::" + pgType + ")", Class: col.Class, Col: col}, nil
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
