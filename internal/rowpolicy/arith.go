package rowpolicy

import (
	"fmt"
	"math"
	"math/big"
	"strings"
	"unicode/utf8"

	"vitess.io/vitess/go/vt/sqlparser"
)

// arith compiles + - * DIV %: exact for integers and decimals (MySQL's
// DECIMAL arithmetic is exact for these), DOUBLE once a side is one. An
// integer result outside BIGINT is an error in MySQL, and here (the stream
// stops). / is refused: MySQL rounds its quotient to the dividend's scale
// + 4 (MariaDB truncates), which a filter must not approximate.
func (c *compiler) arith(n *sqlparser.BinaryExpr) (*node, error) {
	op := n.Operator
	switch op {
	case sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp, sqlparser.IntDivOp, sqlparser.ModOp:
	case sqlparser.DivOp:
		return nil, unsupported("/ (its rounding differs between MySQL and MariaDB; use DIV, or multiply the other side)", n)
	default:
		return nil, unsupported("bit operators", n)
	}
	l, r, err := c.pair(n.Left, n.Right)
	if err != nil {
		return nil, err
	}
	for _, x := range []*node{l, r} {
		if !x.k.numeric() && x.k != clNull {
			return nil, unsupported("arithmetic on a "+x.k.String(), n)
		}
		if x.unsigned {
			return nil, unsupported("arithmetic on an UNSIGNED column (MySQL errors when the result would be negative)", n)
		}
	}
	k := clInt
	switch {
	case l.k == clFloat || r.k == clFloat:
		k = clFloat
	case l.k == clDec || r.k == clDec:
		k = clDec
	}
	if (op == sqlparser.IntDivOp || op == sqlparser.ModOp) && k != clInt {
		return nil, unsupported("DIV and % on non-integers", n)
	}
	return &node{k: k, eval: func(row []any) (val, error) {
		a, b, err := both(l, r, row)
		if err != nil || a.null || b.null {
			return null, err
		}
		return compute(op, k, a, b, n)
	}}, nil
}

func compute(op sqlparser.BinaryExprOperator, k class, a, b val, e sqlparser.Expr) (val, error) {
	switch k {
	case clFloat:
		x, y := a.float(), b.float()
		switch op {
		case sqlparser.PlusOp:
			return val{k: clFloat, f: x + y}, nil
		case sqlparser.MinusOp:
			return val{k: clFloat, f: x - y}, nil
		}
		return val{k: clFloat, f: x * y}, nil
	case clDec:
		x, y := a.rat(), b.rat()
		z := new(big.Rat)
		switch op {
		case sqlparser.PlusOp:
			z.Add(x, y)
		case sqlparser.MinusOp:
			z.Sub(x, y)
		default:
			z.Mul(x, y)
		}
		return val{k: clDec, r: z}, nil
	}
	if (op == sqlparser.IntDivOp || op == sqlparser.ModOp) && b.i == 0 {
		return null, nil // MySQL: division by zero is NULL
	}
	z, ok := intCompute(op, a.i, b.i)
	if !ok {
		return val{}, fmt.Errorf("BIGINT value is out of range in %q", sqlparser.String(e))
	}
	return intVal(z), nil
}

// intCompute is exact BIGINT arithmetic in int64 (no allocation): false
// when the result is out of range, as MySQL errors. DIV truncates and %
// takes the dividend's sign, as Go's / and % do; y is not 0 for them.
func intCompute(op sqlparser.BinaryExprOperator, x, y int64) (int64, bool) {
	switch op {
	case sqlparser.PlusOp:
		z := x + y
		return z, (z > x) == (y > 0)
	case sqlparser.MinusOp:
		z := x - y
		return z, (z < x) == (y > 0)
	case sqlparser.MultOp:
		if x == 0 || y == 0 {
			return 0, true
		}
		z := x * y
		return z, z/y == x && !(x == -1 && y == math.MinInt64) && !(y == -1 && x == math.MinInt64)
	case sqlparser.IntDivOp:
		return x / y, !(x == math.MinInt64 && y == -1)
	case sqlparser.ModOp:
		if y == -1 {
			return 0, true // x % -1, and Go's MinInt64 % -1, is 0
		}
		return x % y, true
	}
	return 0, false
}

func (c *compiler) unary(n *sqlparser.UnaryExpr) (*node, error) {
	a, err := c.expr(n.Expr)
	if err != nil {
		return nil, err
	}
	switch n.Operator {
	case sqlparser.UPlusOp:
		return a, nil
	case sqlparser.BangOp:
		if err := boolean(a, n.Expr); err != nil {
			return nil, err
		}
		return negate(a), nil
	case sqlparser.UMinusOp:
	default:
		return nil, unsupported("this unary operator", n)
	}
	if !a.k.numeric() && a.k != clNull {
		return nil, unsupported("- on a "+a.k.String(), n)
	}
	if a.unsigned {
		return nil, unsupported("- on an UNSIGNED column", n)
	}
	neg := func(v val) (val, error) {
		switch {
		case v.null:
			return null, nil
		case v.k == clFloat:
			return val{k: clFloat, f: -v.f}, nil
		case v.k == clDec:
			return val{k: clDec, r: new(big.Rat).Neg(v.r)}, nil
		case v.i == math.MinInt64:
			return val{}, fmt.Errorf("BIGINT value is out of range in %q", sqlparser.String(n))
		}
		return intVal(-v.i), nil
	}
	if a.lit != nil { // a negative literal stays a literal (-5, -2.5)
		v, err := neg(*a.lit)
		if err != nil {
			return nil, err
		}
		return constant(v), nil
	}
	return &node{k: a.k, eval: func(row []any) (val, error) {
		v, err := a.eval(row)
		if err != nil {
			return val{}, err
		}
		return neg(v)
	}}, nil
}

// function compiles the few functions of the subset.
func (c *compiler) function(n *sqlparser.FuncExpr) (*node, error) {
	if !n.Qualifier.IsEmpty() {
		return nil, unsupported("a stored function", n)
	}
	args := make([]*node, len(n.Exprs))
	for i, e := range n.Exprs {
		var err error
		if args[i], err = c.expr(e); err != nil {
			return nil, err
		}
	}
	name := n.Name.Lowered()
	one := func(ok func(class) bool) (*node, error) {
		if len(args) != 1 || !(ok(args[0].k) || args[0].k == clNull) {
			return nil, unsupported(name+" takes one argument of another type here", n)
		}
		return args[0], nil
	}
	switch name {
	case "lower", "upper", "lcase", "ucase":
		a, err := one(func(k class) bool { return k == clStr })
		if err != nil {
			return nil, err
		}
		up := name == "upper" || name == "ucase"
		return &node{k: clStr, coll: a.coll, eval: mapStr(a, func(s string) (val, error) { return caseMap(s, up) })}, nil
	case "char_length", "character_length", "length", "octet_length":
		a, err := one(func(k class) bool { return k == clStr || k == clBin })
		if err != nil {
			return nil, err
		}
		chars := name == "char_length" || name == "character_length"
		return &node{k: clInt, eval: mapStr(a, func(s string) (val, error) {
			if chars && a.k == clStr {
				return intVal(int64(utf8.RuneCountInString(s))), nil
			}
			return intVal(int64(len(s))), nil
		})}, nil
	case "abs":
		a, err := one(class.numeric)
		if err != nil {
			return nil, err
		}
		if a.unsigned {
			return a, nil
		}
		return &node{k: a.k, eval: func(row []any) (val, error) {
			v, err := a.eval(row)
			if err != nil || v.null {
				return null, err
			}
			if c, _ := numCompare(v, intVal(0)); c < 0 {
				return compute(sqlparser.MinusOp, v.k, zeroOf(v.k), v, n)
			}
			return v, nil
		}}, nil
	case "coalesce", "ifnull":
		return coalesce(name, args, n)
	}
	return nil, unsupported("function "+name+" (supported: lower, upper, char_length, length, abs, coalesce, ifnull)", n)
}

func zeroOf(k class) val {
	switch k {
	case clDec:
		return val{k: clDec, r: new(big.Rat)}
	case clFloat:
		return val{k: clFloat}
	}
	return intVal(0)
}

func mapStr(a *node, f func(string) (val, error)) func([]any) (val, error) {
	return func(row []any) (val, error) {
		v, err := a.eval(row)
		if err != nil || v.null {
			return null, err
		}
		return f(v.s)
	}
}

// caseMap is LOWER/UPPER for ASCII text; MySQL's tables for other
// characters are not reproduced, so such a value stops the stream.
func caseMap(s string, up bool) (val, error) {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return val{}, fmt.Errorf("LOWER/UPPER of a non-ASCII value is not evaluated by --where (MySQL's case tables are not reproduced)")
		}
	}
	if up {
		return val{k: clStr, s: strings.ToUpper(s)}, nil
	}
	return val{k: clStr, s: strings.ToLower(s)}, nil
}

func coalesce(name string, args []*node, n sqlparser.Expr) (*node, error) {
	if len(args) == 0 || (name == "ifnull" && len(args) != 2) {
		return nil, unsupported(name+" with this many arguments", n)
	}
	res := &node{k: clNull}
	for _, a := range args {
		switch {
		case a.k == clNull:
		case res.k == clNull:
			res.k, res.coll, res.unsigned = a.k, a.coll, a.unsigned
		case res.k.numeric() && a.k.numeric():
			res.k = max(res.k, a.k) // int < dec < float
			res.unsigned = res.unsigned || a.unsigned
		case res.k == a.k && (a.coll == nil || res.coll == nil || a.coll.name == res.coll.name):
			if res.coll == nil {
				res.coll = a.coll
			}
		default:
			return nil, unsupported(name+" of arguments of different types", n)
		}
	}
	k := res.k
	res.eval = func(row []any) (val, error) {
		for _, a := range args {
			v, err := a.eval(row)
			if err != nil {
				return val{}, err
			}
			if !v.null {
				return widen(v, k), nil
			}
		}
		return null, nil
	}
	return res, nil
}

// widen converts a numeric value to a wider numeric class.
func widen(v val, k class) val {
	switch {
	case v.k == k || !k.numeric():
		return v
	case k == clFloat:
		return val{k: clFloat, f: v.float()}
	}
	return val{k: clDec, r: v.rat()}
}
