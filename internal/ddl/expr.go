// Package ddl translates MySQL table definitions and DDL statements to
// PostgreSQL: CreateTable plans the snapshot's DDL for one table, Translate
// turns one replicated DDL statement into PostgreSQL statements and the new
// schema model. Everything here is a pure function of its inputs; the rules
// are documented in docs/schema.md.
package ddl

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// tableScope resolves the column references of an expression over one
// table (defaults, generated columns, CHECKs and index parts have no other).
type tableScope struct {
	t *schema.Table
	m *typemap.Mapper
	// n names the referenced columns on the target (the zero Naming keeps them).
	n schema.Naming
	// inline maps lower-cased generated column names to their translated
	// expression: PostgreSQL generated columns cannot reference each other.
	inline map[string]sqlexpr.Expr
}

// Column resolves a column of the table (a qualifier can only name it).
func (s *tableScope) Column(_, name string) (sqlexpr.Expr, error) {
	c := s.t.Column(name)
	if c == nil {
		return sqlexpr.Expr{}, sqlexpr.Refuse("cannot translate reference to unknown column %s", name)
	}
	if in, ok := s.inline[strings.ToLower(c.Name)]; ok {
		return in, nil
	}
	col, err := sqlexpr.ColumnOf(c, s.m)
	if err != nil {
		return sqlexpr.Expr{}, err
	}
	return sqlexpr.Expr{SQL: s.n.QColumn(s.t.TableID, c.Name), Class: col.Class, Col: col}, nil
}

// exprTranslator translates the expressions of one table for one purpose.
type exprTranslator struct {
	tr    sqlexpr.Translator
	scope tableScope
}

func newExprTranslator(t *schema.Table, m *typemap.Mapper, p sqlexpr.Purpose, n schema.Naming) *exprTranslator {
	mariadb := m != nil && m.Options().SourceFlavor == "mariadb"
	return &exprTranslator{tr: sqlexpr.Translator{Purpose: p, MariaDB: mariadb}, scope: tableScope{t: t, m: m, n: n}}
}

// translateText parses and translates MySQL expression text.
func (x *exprTranslator) translateText(s string) (sqlexpr.Expr, error) {
	return x.tr.Text(s, &x.scope)
}

// checkExpr translates a CHECK constraint's condition.
func checkExpr(t *schema.Table, m *typemap.Mapper, n schema.Naming, expr string) (string, error) {
	e, err := newExprTranslator(t, m, sqlexpr.Check, n).translateText(expr)
	if err == nil {
		e, err = sqlexpr.ToBool(e)
	}
	return e.SQL, err
}
