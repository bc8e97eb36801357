package sqlexpr

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"
)

// number checks an arithmetic operand: MySQL converts text and dates to
// numbers, PostgreSQL refuses or means something else.
func number(v Expr) error {
	switch v.Class {
	case Text, Date, DateTime, Time, Other:
		return Refuse("arithmetic on a %s value (MySQL converts it to a number)", v.Class)
	}
	return nil
}

// widen casts a smallint/integer column to bigint: MySQL does integer
// arithmetic in 64 bits, PostgreSQL in the operands' width (`i + 1`
// would overflow at 2^31 where MySQL gives a BIGINT).
func widen(e Expr) string {
	if e.Col != nil && e.Col.Narrow {
		return e.SQL + "::bigint"
	}
	return e.SQL
}

func (x *Translator) binary(n *sqlparser.BinaryExpr, sc Scope) (Expr, error) {
	a, err := x.Value(n.Left, sc)
	if err != nil {
		return Expr{}, err
	}
	b, err := x.Value(n.Right, sc)
	if err != nil {
		return Expr{}, err
	}
	for _, v := range []Expr{a, b} {
		if err := number(v); err != nil {
			return Expr{}, err
		}
	}
	res := Num
	if a.Class == Int && b.Class == Int {
		res = Int
	}
	switch n.Operator {
	case sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp:
		out := pe("("+widen(a)+" "+n.Operator.ToString()+" "+widen(b)+")", res)
		sa, okA := scaleOf(a)
		sb, okB := scaleOf(b)
		if res == Num && okA && okB {
			// MySQL's result scale: the larger one for + and -, the sum for *.
			scale := max(sa, sb)
			if n.Operator == sqlparser.MultOp {
				scale = sa + sb
			}
			out = exactNum(out.SQL, scale)
		}
		return out, nil
	case sqlparser.DivOp:
		return x.divide(a, b)
	case sqlparser.IntDivOp:
		return pe("div(("+a.SQL+")::numeric, NULLIF("+b.SQL+", 0))", Int), nil
	case sqlparser.ModOp:
		return pe("mod("+a.SQL+", NULLIF("+b.SQL+", 0))", res), nil
	case sqlparser.BitAndOp, sqlparser.BitOrOp, sqlparser.BitXorOp, sqlparser.ShiftLeftOp, sqlparser.ShiftRightOp:
		return x.bits(n.Operator, a, b)
	}
	return Expr{}, Refuse("cannot translate operator %s", n.Operator.ToString())
}

// divide translates /: MySQL's never divides integers, gives NULL for x/0
// and keeps the dividend's scale + 4 (div_precision_increment) digits,
// rounded. MariaDB computes those digits in words of 9 and truncates there
// (2/3 is 0.6667 on MySQL 9.7, 0.666666666 on MariaDB 10.11): a stored
// DECIMAL(20,8) of (d + 0.125) / 7 holds 0.19642860 on one, 0.19642857 on
// the other.
func (x *Translator) divide(a, b Expr) (Expr, error) {
	x.Quotient = true
	q := "(" + a.SQL + ")::numeric / NULLIF(" + b.SQL + ", 0)"
	sa, okA := scaleOf(a)
	if _, okB := scaleOf(b); okA && okB {
		scale := min(sa+4, maxScale)
		if x.MariaDB {
			words := min((sa+4+8)/9*9, 36)
			return exactNum("trunc("+q+", "+strconv.Itoa(words)+")", words), nil
		}
		return exactNum("round("+q+", "+strconv.Itoa(scale)+")", scale), nil
	}
	if err := x.differs("cannot translate a quotient of FLOAT/DOUBLE values or expressions (MySQL's scale and precision differ)",
		"the scale of a quotient differs (MySQL keeps the dividend's scale + 4 digits)"); err != nil {
		return Expr{}, err
	}
	return pe("("+q+")", Num), nil
}

// bits translates the bit operators, which MySQL computes on unsigned 64-bit
// integers: the same as PostgreSQL's bigint ones for values that are not
// negative.
func (x *Translator) bits(op sqlparser.BinaryExprOperator, a, b Expr) (Expr, error) {
	if a.Class != Int || b.Class != Int {
		return Expr{}, Refuse("bit operator %s on non-integers", op.ToString())
	}
	if err := x.differs("cannot translate bit operator "+op.ToString()+" (MySQL computes it in unsigned 64 bits)",
		"bit operators: MySQL computes them in unsigned 64 bits, PostgreSQL's differ for negative values"); err != nil {
		return Expr{}, err
	}
	pg := op.ToString()
	if op == sqlparser.BitXorOp {
		pg = "#"
	}
	return pe("("+widen(a)+" "+pg+" "+widen(b)+")", Int), nil
}

func (x *Translator) unary(n *sqlparser.UnaryExpr, sc Scope) (Expr, error) {
	switch n.Operator {
	case sqlparser.UMinusOp, sqlparser.UPlusOp:
		a, err := x.Value(n.Expr, sc)
		if err != nil {
			return Expr{}, err
		}
		if !a.Class.numeric() && a.Class != Unknown && a.Class != Null {
			return Expr{}, Refuse("sign of a %s value", a.Class)
		}
		out := pe("("+n.Operator.ToString()+widen(a)+")", a.Class)
		if sc, ok := scaleOf(a); ok && a.Class == Num {
			out = exactNum(out.SQL, sc)
		}
		return out, nil
	case sqlparser.BangOp:
		a, err := x.Bool(n.Expr, sc)
		if err != nil {
			return Expr{}, err
		}
		return pe("(NOT "+a.SQL+")", Bool), nil
	}
	return Expr{}, Refuse("cannot translate operator %s", n.Operator.ToString())
}
