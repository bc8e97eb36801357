package rowpolicy

import (
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

var parser = sqlparser.NewTestParser()

// node is one compiled sub-expression: its static class (and collation for
// text), and how to evaluate it on a row image in Table.Columns order.
type node struct {
	k    class
	coll *collation // clStr: the column's collation; nil for a literal
	// unsigned: an UNSIGNED column's value (arithmetic on it is refused:
	// MySQL errors when an unsigned result would go negative).
	unsigned bool
	lit      *val // a constant (literals, folded)
	eval     func(row []any) (val, error)
}

// errUnsupported marks a construct outside the subset.
var errUnsupported = errors.New("not supported in --where")

func unsupported(what string, e sqlparser.Expr) error {
	return fmt.Errorf("%w: %s (in %q; see docs/filters-masks.md for the subset)", errUnsupported, what, sqlparser.String(e))
}

type compiler struct {
	t    *schema.Table
	cols []int // the columns the condition reads (indexes into t.Columns)
}

func constant(v val) *node {
	return &node{k: v.k, lit: &v, eval: func([]any) (val, error) { return v, nil }}
}

func (c *compiler) expr(e sqlparser.Expr) (*node, error) {
	switch n := e.(type) {
	case *sqlparser.ColName:
		return c.column(n)
	case *sqlparser.Literal:
		return literal(n)
	case *sqlparser.NullVal:
		return constant(null), nil
	case sqlparser.BoolVal:
		return constant(boolVal(bool(n))), nil
	case *sqlparser.AndExpr:
		return c.logic(n, n.Left, n.Right, and3)
	case *sqlparser.OrExpr:
		return c.logic(n, n.Left, n.Right, or3)
	case *sqlparser.XorExpr:
		return c.logic(n, n.Left, n.Right, xor3)
	case *sqlparser.NotExpr:
		return c.not(n)
	case *sqlparser.ComparisonExpr:
		return c.comparison(n)
	case *sqlparser.BetweenExpr:
		return c.between(n)
	case *sqlparser.IsExpr:
		return c.is(n)
	case *sqlparser.BinaryExpr:
		return c.arith(n)
	case *sqlparser.UnaryExpr:
		return c.unary(n)
	case *sqlparser.FuncExpr:
		return c.function(n)
	}
	return nil, unsupported(fmt.Sprintf("%T", e)[len("*sqlparser."):], e)
}

func (c *compiler) column(n *sqlparser.ColName) (*node, error) {
	if q := n.Qualifier; !q.IsEmpty() {
		if !strings.EqualFold(q.Name.String(), c.t.Name) || (!q.Qualifier.IsEmpty() && !strings.EqualFold(q.Qualifier.String(), c.t.Database)) {
			return nil, fmt.Errorf("%q names another table: a condition on %s may use only that table's own columns", sqlparser.String(n), c.t.TableID)
		}
	}
	i := c.t.ColumnIndex(n.Name.String())
	if i < 0 {
		return nil, fmt.Errorf("table %s has no column %q (its columns: %s)", c.t.TableID, n.Name.String(), columnNames(c.t))
	}
	col := &c.t.Columns[i]
	if !slices.Contains(c.cols, i) {
		c.cols = append(c.cols, i)
	}
	k, err := colClass(col)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errUnsupported, err)
	}
	nd := &node{k: k, unsigned: col.Unsigned}
	if k == clStr {
		nd.coll, _ = collationOf(col.Collation)
	}
	nd.eval = func(row []any) (val, error) { return columnValue(col, k, row[i]) }
	return nd, nil
}

func columnNames(t *schema.Table) string {
	names := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		names[i] = c.Name
	}
	return strings.Join(names, ", ")
}

func literal(n *sqlparser.Literal) (*node, error) {
	switch n.Type {
	case sqlparser.StrVal:
		return constant(val{k: clStr, s: n.Val}), nil
	case sqlparser.IntVal:
		if i, err := strconv.ParseInt(n.Val, 10, 64); err == nil {
			return constant(intVal(i)), nil
		}
		fallthrough
	case sqlparser.DecimalVal:
		r, ok := new(big.Rat).SetString(n.Val)
		if !ok {
			return nil, unsupported("number "+n.Val, n)
		}
		return constant(val{k: clDec, r: r}), nil
	case sqlparser.FloatVal:
		f, err := strconv.ParseFloat(n.Val, 64)
		if err != nil {
			return nil, unsupported("number "+n.Val, n)
		}
		return constant(val{k: clFloat, f: f}), nil
	}
	return nil, unsupported("this kind of literal (hex, bit, date literal): write it as a quoted string or a number", n)
}

// boolean checks a logical operand: a number (what comparisons give).
func boolean(n *node, e sqlparser.Expr) error {
	if n.k.numeric() || n.k == clNull {
		return nil
	}
	return unsupported("a "+n.k.String()+" used as a condition (compare it with something)", e)
}

// pair compiles the two operands of a binary construct.
func (c *compiler) pair(l, r sqlparser.Expr) (*node, *node, error) {
	a, err := c.expr(l)
	if err != nil {
		return nil, nil, err
	}
	b, err := c.expr(r)
	return a, b, err
}

func (c *compiler) logic(e, l, r sqlparser.Expr, op func(a, b tri) tri) (*node, error) {
	a, b, err := c.pair(l, r)
	if err != nil {
		return nil, err
	}
	if err := boolean(a, l); err != nil {
		return nil, err
	}
	if err := boolean(b, r); err != nil {
		return nil, err
	}
	return &node{k: clInt, eval: func(row []any) (val, error) {
		x, err := a.eval(row)
		if err != nil {
			return val{}, err
		}
		y, err := b.eval(row)
		if err != nil {
			return val{}, err
		}
		return fromTruth(op(x.truth(), y.truth())), nil
	}}, nil
}

func fromTruth(t tri) val {
	if t == unknown {
		return null
	}
	return boolVal(t == isTrue)
}

func and3(a, b tri) tri {
	switch {
	case a == isFalse || b == isFalse:
		return isFalse
	case a == unknown || b == unknown:
		return unknown
	}
	return isTrue
}

func or3(a, b tri) tri {
	switch {
	case a == isTrue || b == isTrue:
		return isTrue
	case a == unknown || b == unknown:
		return unknown
	}
	return isFalse
}

func xor3(a, b tri) tri {
	if a == unknown || b == unknown {
		return unknown
	}
	return triOf(a != b)
}

func not3(a tri) tri {
	switch a {
	case isTrue:
		return isFalse
	case isFalse:
		return isTrue
	}
	return unknown
}

func (c *compiler) not(n *sqlparser.NotExpr) (*node, error) {
	a, err := c.expr(n.Expr)
	if err != nil {
		return nil, err
	}
	if err := boolean(a, n.Expr); err != nil {
		return nil, err
	}
	return negate(a), nil
}

func negate(a *node) *node {
	return &node{k: clInt, eval: func(row []any) (val, error) {
		x, err := a.eval(row)
		if err != nil {
			return val{}, err
		}
		return fromTruth(not3(x.truth())), nil
	}}
}

func (c *compiler) is(n *sqlparser.IsExpr) (*node, error) {
	a, err := c.expr(n.Left)
	if err != nil {
		return nil, err
	}
	op := n.Right
	if op != sqlparser.IsNullOp && op != sqlparser.IsNotNullOp {
		if err := boolean(a, n.Left); err != nil {
			return nil, err
		}
	}
	return &node{k: clInt, eval: func(row []any) (val, error) {
		x, err := a.eval(row)
		if err != nil {
			return val{}, err
		}
		t := x.truth()
		switch op {
		case sqlparser.IsNullOp:
			return boolVal(x.null), nil
		case sqlparser.IsNotNullOp:
			return boolVal(!x.null), nil
		case sqlparser.IsTrueOp:
			return boolVal(t == isTrue), nil
		case sqlparser.IsNotTrueOp:
			return boolVal(t != isTrue), nil
		case sqlparser.IsFalseOp:
			return boolVal(t == isFalse), nil
		default: // IS NOT FALSE
			return boolVal(t != isFalse), nil
		}
	}}, nil
}
