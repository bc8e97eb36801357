// Package sqlexpr translates MySQL expressions (the vitess parser's AST)
// into PostgreSQL expressions, for every caller that needs one: generated
// columns, CHECK constraints, functional index parts and expression
// defaults (internal/ddl, over one table) and views and triggers
// (internal/objects, over scopes of several tables, with subqueries). One
// node switch, one function table and one set of refusals; what each
// caller may accept is its Purpose: a generated column must compute exactly
// what MySQL computed, a view for review may carry notes instead.
package sqlexpr

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// Class is the family of a translated expression's PostgreSQL type: enough
// to turn MySQL's implicit conversions (truth values are numbers, CONCAT
// prints anything) into explicit PostgreSQL ones, and to refuse what
// PostgreSQL would reject or compute differently.
type Class int

// The classes; Unknown is a value whose type the translator cannot tell
// (a subquery of several columns, an aggregate of one).
const (
	Unknown Class = iota
	Null
	Bool
	Int
	Num // DECIMAL, FLOAT, DOUBLE
	Text
	Date
	DateTime
	Time
	Other
)

func (c Class) String() string {
	return [...]string{"unknown", "null", "boolean", "integer", "number", "text", "date", "datetime", "time", "other"}[c]
}

func (c Class) numeric() bool { return c == Int || c == Num }

// Column is what the translator knows about one column of a relation.
type Column struct {
	Name   string // exact spelling (PostgreSQL names are case-sensitive when quoted)
	PG     string // the target's name (schema.Naming) when it differs from Name
	Class  Class
	Scale  int  // DECIMAL scale, -1 when unknown or not a DECIMAL
	CI     bool // text compared by a case-insensitive collation on the source
	Float  bool // FLOAT/DOUBLE: printed differently by the two databases
	TZ     bool // MySQL TIMESTAMP: timestamptz on the target
	Narrow bool // smallint/integer on the target: MySQL computes integers in 64 bits
}

// Target is the column's name on the target.
func (c *Column) Target() string {
	if c.PG != "" {
		return c.PG
	}
	return c.Name
}

// ColumnOf describes a table column by the PostgreSQL type m maps it to.
func ColumnOf(c *schema.Column, m *typemap.Mapper) (*Column, error) {
	pg, kind, err := m.PGType(*c)
	if err != nil {
		return nil, err
	}
	col := &Column{Name: c.Name, Class: kindClass(kind), Scale: -1}
	switch kind {
	case typemap.KindInt:
		col.Narrow = pg != "bigint"
	case typemap.KindDecimal:
		col.Scale = c.Scale
	case typemap.KindFloat32, typemap.KindFloat64:
		col.Float = true
	case typemap.KindTimestamp:
		col.TZ = true
	}
	coll := strings.ToLower(c.Collation)
	col.CI = col.Class == Text && !strings.HasSuffix(coll, "_bin") && !strings.HasSuffix(coll, "_cs") && coll != "binary"
	return col, nil
}

func kindClass(k typemap.Kind) Class {
	switch k {
	case typemap.KindInt, typemap.KindUint64, typemap.KindYear:
		return Int
	case typemap.KindDecimal, typemap.KindFloat32, typemap.KindFloat64:
		return Num
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		return Text
	case typemap.KindDate:
		return Date
	case typemap.KindDateTime, typemap.KindTimestamp:
		return DateTime
	}
	return Other
}

// Expr is a translated expression: PostgreSQL text and its class.
type Expr struct {
	SQL   string
	Class Class
	Col   *Column // set for a plain column reference (and a DECIMAL cast: its scale)
	// Exact says a computed number is exact (DECIMAL arithmetic) with
	// Scale digits after the point, by MySQL's rules for the result's scale.
	Exact bool
	Scale int
}

// maxScale is MySQL's largest DECIMAL scale; results are capped to it.
const maxScale = 30

// scaleOf is the MySQL scale of an exact number (an integer, a DECIMAL
// column, literal or computation); false for FLOAT/DOUBLE and the unknown.
func scaleOf(e Expr) (int, bool) {
	switch {
	case e.Class == Int:
		return 0, true
	case e.Exact:
		return e.Scale, true
	case e.Col != nil && e.Col.Scale >= 0 && !e.Col.Float:
		return e.Col.Scale, true
	}
	return 0, false
}

// exactNum is a computed exact number of the given scale.
func exactNum(sql string, scale int) Expr {
	return Expr{SQL: sql, Class: Num, Exact: true, Scale: min(scale, maxScale)}
}

func pe(sql string, cls Class) Expr { return Expr{SQL: sql, Class: cls} }

// Scope resolves column references: qual is "", "t" or "db.t".
type Scope interface {
	Column(qual, name string) (Expr, error)
}

// Queries translates the subqueries of an expression (views and triggers);
// without it a subquery is refused.
type Queries interface {
	Query(st sqlparser.TableStatement, sc Scope) (string, []*Column, error)
}

// Refusal is the error for an expression outside what is translated: it
// says why, for the caller's warning or the reviewer.
type Refusal struct{ Why string }

func (r *Refusal) Error() string { return r.Why }

// Refuse returns a Refusal.
func Refuse(format string, args ...any) error {
	return &Refusal{Why: fmt.Sprintf(format, args...)}
}

// QuotePG quotes a string for PostgreSQL (standard_conforming_strings on).
func QuotePG(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// KindClass is the class of a PostgreSQL column of a typemap Kind.
func KindClass(k typemap.Kind) Class { return kindClass(k) }

// Fits reports whether a value of class c can be stored in a column of
// class col as MySQL stores it: numbers in numbers, dates in dates and
// datetimes, NULL anywhere.
func Fits(c, col Class) bool {
	switch {
	case c == Null || c == col:
		return true
	case c.numeric() && col.numeric():
		return true
	}
	return (c == Date || c == DateTime) && (col == Date || col == DateTime)
}
