package rowpolicy

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// cmpFn compares two non-NULL values of unified classes.
type cmpFn func(a, b val) (int, error)

// unify decides how l and r compare, as MySQL would for the classes
// supported: numbers exactly (DOUBLE when one side is), text under the
// column's collation (a literal takes the column's), binary strings by
// bytes, dates as dates (a quoted literal is read as one). Anything that
// MySQL would compare through an implicit conversion is refused.
func unify(l, r *node, ordered bool, e sqlparser.Expr) (cmpFn, error) {
	switch {
	case l.k == clNull || r.k == clNull:
		return func(val, val) (int, error) { return 0, nil }, nil
	case l.k.numeric() && r.k.numeric():
		return numCompare, nil
	case l.k == clStr && r.k == clStr:
		coll, err := pickCollation(l, r, e)
		if err != nil {
			return nil, err
		}
		if ordered && !coll.ordered {
			return nil, unsupported("ordering (<, >, BETWEEN) under collation "+coll.name+": only = <> IN LIKE", e)
		}
		return func(a, b val) (int, error) { return coll.compare(a.s, b.s) }, nil
	case l.k == clBin && (r.k == clBin || (r.k == clStr && r.lit != nil)),
		r.k == clBin && l.k == clStr && l.lit != nil:
		return func(a, b val) (int, error) { return strings.Compare(a.s, b.s), nil }, nil
	case l.k == clTime && r.k == clTime:
		return func(a, b val) (int, error) { return strings.Compare(a.s, b.s), nil }, nil
	case l.k == clTime && r.k == clStr && r.lit != nil:
		return timeLiteral(r, e)
	case r.k == clTime && l.k == clStr && l.lit != nil:
		return timeLiteral(l, e)
	}
	return nil, unsupported(fmt.Sprintf("comparing a %s with a %s (MySQL converts one of them implicitly; quote or unquote the literal to match the column's type)", l.k, r.k), e)
}

// timeLiteral rewrites a quoted literal compared with a date into the
// canonical date form, refusing text MySQL would not read as one strictly.
func timeLiteral(lit *node, e sqlparser.Expr) (cmpFn, error) {
	t, err := canonicalTime(lit.lit.s)
	if err != nil {
		return nil, fmt.Errorf("%w: %v (in %q)", errUnsupported, err, sqlparser.String(e))
	}
	v := val{k: clTime, s: t}
	*lit.lit = v
	lit.k = clTime
	lit.eval = func([]any) (val, error) { return v, nil }
	return func(a, b val) (int, error) { return strings.Compare(a.s, b.s), nil }, nil
}

func pickCollation(l, r *node, e sqlparser.Expr) (*collation, error) {
	switch {
	case l.coll != nil && r.coll != nil:
		if l.coll.name != r.coll.name {
			return nil, unsupported("comparing columns of different collations ("+l.coll.name+", "+r.coll.name+")", e)
		}
		return l.coll, nil
	case l.coll != nil:
		return l.coll, nil
	case r.coll != nil:
		return r.coll, nil
	}
	return nil, unsupported("comparing two constant strings (no column gives the collation)", e)
}

func numCompare(a, b val) (int, error) {
	if a.k == clFloat || b.k == clFloat {
		x, y := a.float(), b.float()
		switch {
		case x < y:
			return -1, nil
		case x > y:
			return 1, nil
		}
		return 0, nil
	}
	if a.k == clInt && b.k == clInt {
		switch {
		case a.i < b.i:
			return -1, nil
		case a.i > b.i:
			return 1, nil
		}
		return 0, nil
	}
	return a.rat().Cmp(b.rat()), nil
}

var cmpOps = map[sqlparser.ComparisonExprOperator]func(int) bool{
	sqlparser.EqualOp:        func(c int) bool { return c == 0 },
	sqlparser.NotEqualOp:     func(c int) bool { return c != 0 },
	sqlparser.LessThanOp:     func(c int) bool { return c < 0 },
	sqlparser.LessEqualOp:    func(c int) bool { return c <= 0 },
	sqlparser.GreaterThanOp:  func(c int) bool { return c > 0 },
	sqlparser.GreaterEqualOp: func(c int) bool { return c >= 0 },
}

func (c *compiler) comparison(n *sqlparser.ComparisonExpr) (*node, error) {
	if n.Modifier != sqlparser.Missing {
		return nil, unsupported("ANY/ALL", n)
	}
	switch n.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		return c.in(n)
	case sqlparser.LikeOp, sqlparser.NotLikeOp:
		return c.like(n)
	case sqlparser.RegexpOp, sqlparser.NotRegexpOp:
		return nil, unsupported("REGEXP", n)
	}
	l, r, err := c.pair(n.Left, n.Right)
	if err != nil {
		return nil, err
	}
	if n.Operator == sqlparser.NullSafeEqualOp {
		cmp, err := unify(l, r, false, n)
		if err != nil {
			return nil, err
		}
		return &node{k: clInt, eval: func(row []any) (val, error) {
			a, b, err := both(l, r, row)
			if err != nil || a.null || b.null {
				return boolVal(a.null && b.null), err
			}
			d, err := cmp(a, b)
			return boolVal(d == 0), err
		}}, nil
	}
	test := cmpOps[n.Operator]
	op := n.Operator
	cmp, err := unify(l, r, op != sqlparser.EqualOp && op != sqlparser.NotEqualOp, n)
	if err != nil {
		return nil, err
	}
	return &node{k: clInt, eval: func(row []any) (val, error) {
		a, b, err := both(l, r, row)
		if err != nil || a.null || b.null {
			return null, err
		}
		d, err := cmp(a, b)
		return boolVal(test(d)), err
	}}, nil
}

func both(l, r *node, row []any) (val, val, error) {
	a, err := l.eval(row)
	if err != nil {
		return val{}, val{}, err
	}
	b, err := r.eval(row)
	return a, b, err
}

func (c *compiler) in(n *sqlparser.ComparisonExpr) (*node, error) {
	tuple, ok := n.Right.(sqlparser.ValTuple)
	if !ok {
		return nil, unsupported("IN with a subquery", n)
	}
	l, err := c.expr(n.Left)
	if err != nil {
		return nil, err
	}
	items := make([]*node, len(tuple))
	cmps := make([]cmpFn, len(tuple))
	for i, e := range tuple {
		if items[i], err = c.expr(e); err != nil {
			return nil, err
		}
		if cmps[i], err = unify(l, items[i], false, n); err != nil {
			return nil, err
		}
	}
	neg := n.Operator == sqlparser.NotInOp
	nd := &node{k: clInt, eval: func(row []any) (val, error) {
		a, err := l.eval(row)
		if err != nil || a.null {
			return null, err
		}
		sawNull := false
		for i, it := range items {
			b, err := it.eval(row)
			if err != nil {
				return val{}, err
			}
			if b.null {
				sawNull = true
				continue
			}
			d, err := cmps[i](a, b)
			if err != nil {
				return val{}, err
			}
			if d == 0 {
				return boolVal(true), nil
			}
		}
		if sawNull {
			return null, nil
		}
		return boolVal(false), nil
	}}
	if neg {
		return negate(nd), nil
	}
	return nd, nil
}

func (c *compiler) between(n *sqlparser.BetweenExpr) (*node, error) {
	l, err := c.expr(n.Left)
	if err != nil {
		return nil, err
	}
	lo, err := c.expr(n.From)
	if err != nil {
		return nil, err
	}
	hi, err := c.expr(n.To)
	if err != nil {
		return nil, err
	}
	c1, err := unify(l, lo, true, n)
	if err != nil {
		return nil, err
	}
	c2, err := unify(l, hi, true, n)
	if err != nil {
		return nil, err
	}
	nd := &node{k: clInt, eval: func(row []any) (val, error) {
		a, err := l.eval(row)
		if err != nil || a.null {
			return null, err
		}
		x, y, err := both(lo, hi, row)
		if err != nil {
			return val{}, err
		}
		ge, le := unknown, unknown
		if !x.null {
			d, err := c1(a, x)
			if err != nil {
				return val{}, err
			}
			ge = triOf(d >= 0)
		}
		if !y.null {
			d, err := c2(a, y)
			if err != nil {
				return val{}, err
			}
			le = triOf(d <= 0)
		}
		return fromTruth(and3(ge, le)), nil
	}}
	if !n.IsBetween {
		return negate(nd), nil
	}
	return nd, nil
}

func (c *compiler) like(n *sqlparser.ComparisonExpr) (*node, error) {
	l, p, err := c.pair(n.Left, n.Right)
	if err != nil {
		return nil, err
	}
	esc := '\\'
	if n.Escape != nil {
		lit, ok := n.Escape.(*sqlparser.Literal)
		if !ok || lit.Type != sqlparser.StrVal || len([]rune(lit.Val)) != 1 {
			return nil, unsupported("an ESCAPE other than one quoted character", n)
		}
		esc = []rune(lit.Val)[0]
	}
	var coll *collation
	switch {
	case l.k == clStr && p.k == clStr:
		if coll, err = pickCollation(l, p, n); err != nil {
			return nil, err
		}
	case (l.k == clBin || l.k == clStr) && (p.k == clBin || p.k == clStr) && (l.k == clBin) != (p.k == clBin):
		if (l.k == clStr && l.lit == nil) || (p.k == clStr && p.lit == nil) {
			return nil, unsupported("LIKE between a text column and a binary string", n)
		}
	case l.k == clBin && p.k == clBin:
	case l.k == clNull || p.k == clNull:
	default:
		return nil, unsupported("LIKE on a "+l.k.String()+" (only on strings)", n)
	}
	binary := coll == nil
	nd := &node{k: clInt, eval: func(row []any) (val, error) {
		a, b, err := both(l, p, row)
		if err != nil || a.null || b.null {
			return null, err
		}
		if binary {
			var sb, pb [64]rune // on the stack for values up to 64 bytes
			ok, err := likeMatch(byteRunes(sb[:0], a.s), byteRunes(pb[:0], b.s), esc, func(x, y rune) (bool, error) { return x == y, nil })
			return boolVal(ok), err
		}
		ok, err := coll.like(a.s, b.s, esc)
		return boolVal(ok), err
	}}
	if n.Operator == sqlparser.NotLikeOp {
		return negate(nd), nil
	}
	return nd, nil
}

// byteRunes appends the bytes of s to dst, one rune each (LIKE on binary
// strings matches byte by byte).
func byteRunes(dst []rune, s string) []rune {
	for i := 0; i < len(s); i++ {
		dst = append(dst, rune(s[i]))
	}
	return dst
}
