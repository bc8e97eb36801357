package objects

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// class is the family of a translated expression's PostgreSQL type: enough
// to turn MySQL's implicit conversions (truth values are numbers, CONCAT
// prints anything) into explicit PostgreSQL ones.
type class int

const (
	cUnknown class = iota
	cNull
	cBool
	cInt
	cNum // DECIMAL, FLOAT, DOUBLE
	cText
	cDate
	cDateTime
	cTime
	cOther
)

// colInfo is what the translator knows about one column of a relation.
type colInfo struct {
	name  string // exact spelling (PostgreSQL names are case-sensitive when quoted)
	pg    string // the target's name (schema.Naming) when it differs from name
	cls   class
	scale int  // DECIMAL scale, -1 when unknown or not a DECIMAL
	ci    bool // text compared by a case-insensitive collation on the source
	float bool // FLOAT/DOUBLE: printed differently by the two databases
	tz    bool // MySQL TIMESTAMP: timestamptz on the target
}

// classOf maps a MySQL DATA_TYPE to the class of its PostgreSQL column (docs/types.md).
func classOf(dataType string) class {
	switch strings.ToLower(dataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year":
		return cInt
	case "decimal", "numeric", "float", "double", "real":
		return cNum
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum", "set":
		return cText
	case "date":
		return cDate
	case "datetime", "timestamp":
		return cDateTime
	}
	return cOther
}

func colInfoOf(c *schema.Column) *colInfo {
	ci := &colInfo{name: c.Name, cls: classOf(c.DataType), scale: -1}
	if ci.cls == cText && c.IsJSON {
		ci.cls = cOther
	}
	switch strings.ToLower(c.DataType) {
	case "decimal", "numeric":
		ci.scale = c.Scale
	case "float", "double", "real":
		ci.float = true
	case "timestamp":
		ci.tz = true
	}
	coll := strings.ToLower(c.Collation)
	ci.ci = ci.cls == cText && !strings.HasSuffix(coll, "_bin") && !strings.HasSuffix(coll, "_cs") && coll != "binary"
	return ci
}

// relation is a table, view, derived table or CTE that a query can refer to.
// target is the column's name on the target.
func (c *colInfo) target() string {
	if c.pg != "" {
		return c.pg
	}
	return c.name
}

type relation struct {
	qname string   // the quoted target name of the table or view read
	pg    string   // how PostgreSQL qualifies its columns: "alias", "schema"."table", NEW
	names []string // lower-cased names MySQL may qualify its columns with
	cols  map[string]*colInfo
}

func newRelation(pg string, cols []*colInfo, names ...string) *relation {
	r := &relation{pg: pg, cols: map[string]*colInfo{}}
	for _, n := range names {
		r.names = append(r.names, strings.ToLower(n))
	}
	for _, c := range cols {
		r.cols[strings.ToLower(c.name)] = c
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
	aliases map[string]pexpr
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

// column resolves a column reference: qual is "", "t" or "db.t".
func (s *scope) column(qual, name string) (pexpr, error) {
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
					return pexpr{}, refuse("column %s.%s is unknown", qual, name)
				}
				continue
			}
			name := schema.QuoteIdent(c.target())
			if r.pg != "" {
				name = r.pg + "." + name
			}
			return pexpr{sql: name, cls: c.cls, col: c}, nil
		}
	}
	if qual == "" {
		if a, ok := s.aliases[lname]; ok {
			return a, nil
		}
	}
	if qual != "" {
		return pexpr{}, refuse("column %s.%s: no table or alias %s in the query", qual, name, qual)
	}
	return pexpr{}, refuse("column %s is unknown", name)
}

// human is an error that makes an object need a human.
type human struct{ why string }

func (h *human) Error() string { return h.why }

func refuse(format string, args ...any) error { return &human{why: fmt.Sprintf(format, args...)} }
