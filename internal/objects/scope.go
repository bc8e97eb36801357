package objects

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/sqlexpr"
	"github.com/sluice-db/sluice/internal/typemap"
)

// columnOf describes a column for the translator by the PostgreSQL type
// sluice gives it; a type sluice does not map is of class Other.
func columnOf(c *schema.Column, m *typemap.Mapper) *sqlexpr.Column {
	col, err := sqlexpr.ColumnOf(c, m)
	if err != nil {
		return &sqlexpr.Column{Name: c.Name, Class: sqlexpr.Other, Scale: -1}
	}
	return col
}

// relation is a table, view, derived table or CTE that a query can refer to.
type relation struct {
	qname string   // the quoted target name of the table or view read
	pg    string   // how PostgreSQL qualifies its columns: "alias", "schema"."table", NEW
	names []string // lower-cased names MySQL may qualify its columns with
	cols  map[string]*sqlexpr.Column
}

func newRelation(pg string, cols []*sqlexpr.Column, names ...string) *relation {
	r := &relation{pg: pg, cols: map[string]*sqlexpr.Column{}}
	for _, n := range names {
		r.names = append(r.names, strings.ToLower(n))
	}
	for _, c := range cols {
		r.cols[strings.ToLower(c.Name)] = c
	}
	return r
}

// aliased is a copy of r known under another name.
func (r *relation) aliased(alias string) *relation {
	return &relation{pg: schema.QuoteIdent(alias), names: []string{strings.ToLower(alias)}, cols: r.cols}
}

func (r *relation) known(name string) bool {
	for _, n := range r.names {
		if n == name {
			return true
		}
	}
	return false
}

// scope is one query level: its FROM relations, CTEs, and the select
// list's aliases (ORDER BY and HAVING may name them).
type scope struct {
	parent  *scope
	rels    []*relation
	ctes    map[string]*relation
	aliases map[string]sqlexpr.Expr
	// aliasFirst resolves a bare name as a select alias before a column
	// (MySQL's rule for ORDER BY and HAVING; GROUP BY prefers columns).
	aliasFirst bool
}

func (s *scope) cte(name string) *relation {
	for ; s != nil; s = s.parent {
		if r, ok := s.ctes[strings.ToLower(name)]; ok {
			return r
		}
	}
	return nil
}

// Column resolves a column reference: qual is "", "t" or "db.t".
func (s *scope) Column(qual, name string) (sqlexpr.Expr, error) {
	lname := strings.ToLower(name)
	if qual == "" && s.aliasFirst {
		if a, ok := s.aliases[lname]; ok {
			return a, nil
		}
	}
	for sc := s; sc != nil; sc = sc.parent {
		for _, r := range sc.rels {
			if qual != "" && !r.known(strings.ToLower(qual)) {
				continue
			}
			c, ok := r.cols[lname]
			if !ok {
				if qual != "" {
					return sqlexpr.Expr{}, sqlexpr.Refuse("column %s.%s is unknown", qual, name)
				}
				continue
			}
			name := schema.QuoteIdent(c.Target())
			if r.pg != "" {
				name = r.pg + "." + name
			}
			return sqlexpr.Expr{SQL: name, Class: c.Class, Col: c}, nil
		}
	}
	if qual == "" {
		if a, ok := s.aliases[lname]; ok {
			return a, nil
		}
	}
	if qual != "" {
		return sqlexpr.Expr{}, sqlexpr.Refuse("column %s.%s: no table or alias %s in the query", qual, name, qual)
	}
	return sqlexpr.Expr{}, sqlexpr.Refuse("column %s is unknown", name)
}

// refuse is an error that makes an object need a human.
func refuse(format string, args ...any) error { return sqlexpr.Refuse(format, args...) }
