package sqlexpr

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

var comparisonOps = map[sqlparser.ComparisonExprOperator]string{
	sqlparser.EqualOp: "=", sqlparser.LessThanOp: "<", sqlparser.GreaterThanOp: ">",
	sqlparser.LessEqualOp: "<=", sqlparser.GreaterEqualOp: ">=", sqlparser.NotEqualOp: "<>",
	sqlparser.NullSafeEqualOp: "IS NOT DISTINCT FROM",
}

// TextCompare handles a comparison of text, which MySQL makes by the
// column's collation (usually case-insensitive, trailing spaces ignored)
// and PostgreSQL byte-wise: a generated column must not depend on it, a
// reviewed query gets a note, a CHECK may be stricter.
func (x *Translator) TextCompare(es ...Expr) error {
	for _, e := range es {
		if e.Class != Text && e.Class != Unknown {
			continue
		}
		switch {
		case x.Purpose == Generated && e.Class == Text:
			return Refuse("text comparison in a generated column (MySQL compares by collation)")
		case x.Purpose == Query && e.Col != nil && e.Col.CI:
			x.Note("text compared by MySQL's case-insensitive collation (trailing spaces ignored) is compared exactly by PostgreSQL")
		}
	}
	return nil
}

func (x *Translator) comparison(n *sqlparser.ComparisonExpr, sc Scope) (Expr, error) {
	l, err := x.Value(n.Left, sc)
	if err != nil {
		return Expr{}, err
	}
	switch n.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		return x.in(n, l, sc)
	case sqlparser.LikeOp, sqlparser.NotLikeOp:
		return x.like(n, l, sc)
	case sqlparser.RegexpOp, sqlparser.NotRegexpOp:
		return x.regexp(n, l, sc)
	}
	op, ok := comparisonOps[n.Operator]
	if !ok {
		return Expr{}, Refuse("cannot translate operator %s", n.Operator.ToString())
	}
	if n.Modifier != sqlparser.Missing {
		sub, ok := n.Right.(*sqlparser.Subquery)
		if !ok || x.Queries == nil {
			return Expr{}, Refuse("cannot translate ANY/ALL comparison %s", sqlparser.String(n))
		}
		q, _, err := x.Queries.Query(sub.Select, sc)
		if err != nil {
			return Expr{}, err
		}
		mod := " ANY "
		if n.Modifier == sqlparser.All {
			mod = " ALL "
		}
		return pe("("+l.SQL+" "+op+mod+"("+q+"))", Bool), nil
	}
	r, err := x.Value(n.Right, sc)
	if err != nil {
		return Expr{}, err
	}
	if err := x.comparable(l, r); err != nil {
		return Expr{}, err
	}
	return pe("("+l.SQL+" "+op+" "+r.SQL+")", Bool), nil
}

func (x *Translator) in(n *sqlparser.ComparisonExpr, l Expr, sc Scope) (Expr, error) {
	op := " IN "
	if n.Operator == sqlparser.NotInOp {
		op = " NOT IN "
	}
	switch r := n.Right.(type) {
	case sqlparser.ValTuple:
		items := make([]string, len(r))
		for i, it := range r {
			v, err := x.Value(it, sc)
			if err != nil {
				return Expr{}, err
			}
			if err := x.comparable(l, v); err != nil {
				return Expr{}, err
			}
			items[i] = v.SQL
		}
		return pe("("+l.SQL+op+"("+strings.Join(items, ", ")+"))", Bool), nil
	case *sqlparser.Subquery:
		if x.Queries == nil {
			return Expr{}, Refuse("cannot translate IN with a subquery")
		}
		q, _, err := x.Queries.Query(r.Select, sc)
		if err != nil {
			return Expr{}, err
		}
		if err := x.TextCompare(l); err != nil {
			return Expr{}, err
		}
		return pe("("+l.SQL+op+"("+q+"))", Bool), nil
	}
	return Expr{}, Refuse("cannot translate IN %s", sqlparser.String(n.Right))
}

// comparable refuses comparisons MySQL resolves by converting one side
// (text with a number compares as numbers there, a date with a number
// as numbers), except against a literal, which PostgreSQL types from the
// other side.
func (x *Translator) comparable(l, r Expr) error {
	if l.Class == Null || r.Class == Null {
		return nil
	}
	if (l.Class == Other || r.Class == Other) && x.Purpose != Query {
		return Refuse("comparison of a %s/%s value", l.Class, r.Class)
	}
	if err := x.TextCompare(l, r); err != nil {
		return err
	}
	family := func(c Class) Class {
		switch c {
		case Int, Num:
			return Num
		case Date, DateTime:
			return Date
		}
		return c
	}
	lf, rf := family(l.Class), family(r.Class)
	switch {
	case lf == rf || lf == Unknown || rf == Unknown || isLiteral(l) || isLiteral(r):
		return nil
	case lf == Num && rf == Text || lf == Text && rf == Num:
		return Refuse("comparison of text with a number (MySQL compares them as numbers)")
	case lf == Other || rf == Other:
		return nil // a reviewed query: PostgreSQL's own comparison, checked on the target
	}
	return Refuse("comparison of %s with %s (MySQL converts implicitly)", l.Class, r.Class)
}

func (x *Translator) like(n *sqlparser.ComparisonExpr, l Expr, sc Scope) (Expr, error) {
	if x.Purpose == Generated {
		return Expr{}, Refuse("LIKE in a generated column (MySQL matches by collation)")
	}
	r, err := x.Value(n.Right, sc)
	if err != nil {
		return Expr{}, err
	}
	if l.Class != Text && l.Class != Unknown {
		return Expr{}, Refuse("LIKE on a %s value", l.Class)
	}
	op := " LIKE "
	if l.Col != nil && l.Col.CI {
		op = " ILIKE " // the column's collation ignores case on the source
	}
	if n.Operator == sqlparser.NotLikeOp {
		op = " NOT" + op
	}
	out := "(" + l.SQL + op + r.SQL
	if n.Escape != nil {
		esc, err := x.Value(n.Escape, sc)
		if err != nil {
			return Expr{}, err
		}
		out += " ESCAPE " + esc.SQL
	}
	return pe(out+")", Bool), nil
}

func (x *Translator) regexp(n *sqlparser.ComparisonExpr, l Expr, sc Scope) (Expr, error) {
	if err := x.differs("cannot translate operator regexp",
		"REGEXP became ~* (case-insensitive POSIX regular expression): check the pattern's syntax"); err != nil {
		return Expr{}, err
	}
	r, err := x.Value(n.Right, sc)
	if err != nil {
		return Expr{}, err
	}
	op := " ~* "
	if n.Operator == sqlparser.NotRegexpOp {
		op = " !~* "
	}
	return pe("("+l.SQL+op+r.SQL+")", Bool), nil
}

var isOps = map[sqlparser.IsExprOperator]string{sqlparser.IsTrueOp: "IS TRUE", sqlparser.IsNotTrueOp: "IS NOT TRUE",
	sqlparser.IsFalseOp: "IS FALSE", sqlparser.IsNotFalseOp: "IS NOT FALSE"}

func (x *Translator) is(n *sqlparser.IsExpr, sc Scope) (Expr, error) {
	a, err := x.Expr(n.Left, sc)
	if err != nil {
		return Expr{}, err
	}
	switch n.Right {
	case sqlparser.IsNullOp:
		return pe("("+a.SQL+" IS NULL)", Bool), nil
	case sqlparser.IsNotNullOp:
		return pe("("+a.SQL+" IS NOT NULL)", Bool), nil
	}
	b, err := ToBool(a)
	if err != nil {
		return Expr{}, err
	}
	return pe("("+b.SQL+" "+isOps[n.Right]+")", Bool), nil
}

func (x *Translator) between(n *sqlparser.BetweenExpr, sc Scope) (Expr, error) {
	vs, err := x.values(sc, n.Left, n.From, n.To)
	if err != nil {
		return Expr{}, err
	}
	for _, bound := range vs[1:] {
		if err := x.comparable(vs[0], bound); err != nil {
			return Expr{}, err
		}
	}
	op := " BETWEEN "
	if !n.IsBetween {
		op = " NOT BETWEEN "
	}
	return pe("("+vs[0].SQL+op+vs[1].SQL+" AND "+vs[2].SQL+")", Bool), nil
}

// values translates expressions used as values.
func (x *Translator) values(sc Scope, es ...sqlparser.Expr) ([]Expr, error) {
	out := make([]Expr, len(es))
	for i, e := range es {
		a, err := x.Value(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}
