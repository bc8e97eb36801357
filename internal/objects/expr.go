package objects

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
)

// pexpr is a translated expression: PostgreSQL text and its class.
type pexpr struct {
	sql string
	cls class
	col *colInfo // set for a plain column reference
}

func pe(sql string, cls class) pexpr { return pexpr{sql: sql, cls: cls} }

// toVal turns a PostgreSQL boolean into MySQL's 1/0 where a value is used.
func toVal(e pexpr) pexpr {
	if e.cls == cBool {
		return pe("("+e.sql+")::integer", cInt)
	}
	return e
}

// toBool turns a MySQL truth value into a PostgreSQL boolean.
func toBool(e pexpr) (pexpr, error) {
	switch e.cls {
	case cBool:
		return e, nil
	case cNull:
		return pe("NULL::boolean", cBool), nil
	case cInt, cNum, cUnknown:
		return pe("("+e.sql+" <> 0)", cBool), nil
	}
	return pexpr{}, refuse("a %s value used as a truth value (MySQL converts it to a number)", e.cls)
}

func (c class) String() string {
	return [...]string{"unknown", "null", "boolean", "integer", "number", "text", "date", "datetime", "time", "other"}[c]
}

func (x *xlate) boolExpr(e sqlparser.Expr, sc *scope) (pexpr, error) {
	p, err := x.expr(e, sc)
	if err != nil {
		return pexpr{}, err
	}
	return toBool(p)
}

func (x *xlate) valExpr(e sqlparser.Expr, sc *scope) (pexpr, error) {
	p, err := x.expr(e, sc)
	return toVal(p), err
}

func (x *xlate) expr(e sqlparser.Expr, sc *scope) (pexpr, error) {
	switch n := e.(type) {
	case *sqlparser.ColName:
		return sc.column(qualifier(n.Qualifier), n.Name.String())
	case *sqlparser.Literal:
		return literal(n)
	case *sqlparser.NullVal:
		return pe("NULL", cNull), nil
	case sqlparser.BoolVal:
		if n {
			return pe("TRUE", cBool), nil
		}
		return pe("FALSE", cBool), nil
	case *sqlparser.IntroducerExpr:
		return x.expr(n.Expr, sc)
	case *sqlparser.CollateExpr:
		x.note("COLLATE " + n.Collation + " dropped: PostgreSQL compares with the column's collation")
		return x.expr(n.Expr, sc)
	case *sqlparser.BinaryExpr:
		return x.binary(n, sc)
	case *sqlparser.UnaryExpr:
		return x.unary(n, sc)
	case *sqlparser.ComparisonExpr:
		return x.comparison(n, sc)
	case *sqlparser.AndExpr:
		return x.logical("AND", n.Left, n.Right, sc)
	case *sqlparser.OrExpr:
		return x.logical("OR", n.Left, n.Right, sc)
	case *sqlparser.XorExpr:
		return x.logical("<>", n.Left, n.Right, sc)
	case *sqlparser.NotExpr:
		a, err := x.boolExpr(n.Expr, sc)
		if err != nil {
			return pexpr{}, err
		}
		return pe("(NOT "+a.sql+")", cBool), nil
	case *sqlparser.IsExpr:
		return x.is(n, sc)
	case *sqlparser.BetweenExpr:
		return x.between(n, sc)
	case *sqlparser.CaseExpr:
		return x.caseExpr(n, sc)
	case *sqlparser.Subquery:
		q, cols, err := x.query(n.Select, sc)
		if err != nil {
			return pexpr{}, err
		}
		cls := cUnknown
		if len(cols) == 1 {
			cls = cols[0].info.cls
		}
		return pe("("+q+")", cls), nil
	case *sqlparser.ExistsExpr:
		q, _, err := x.query(n.Subquery.Select, sc)
		if err != nil {
			return pexpr{}, err
		}
		return pe("(EXISTS ("+q+"))", cBool), nil
	case sqlparser.ValTuple:
		return pexpr{}, refuse("row constructor %s", sqlparser.String(n))
	case *sqlparser.Variable:
		return pexpr{}, refuse("variable %s (session state has no PostgreSQL counterpart here)", sqlparser.String(n))
	}
	return x.function(e, sc)
}

// qualifier is "", "t" or "db.t".
func qualifier(t sqlparser.TableName) string {
	if t.Name.IsEmpty() {
		return ""
	}
	if t.Qualifier.IsEmpty() {
		return t.Name.String()
	}
	return t.Qualifier.String() + "." + t.Name.String()
}

func literal(n *sqlparser.Literal) (pexpr, error) {
	switch n.Type {
	case sqlparser.StrVal:
		if strings.ContainsRune(n.Val, 0) {
			return pexpr{}, refuse("string literal with a NUL character")
		}
		return pe(quotePG(n.Val), cText), nil
	case sqlparser.IntVal:
		return pe(n.Val, cInt), nil
	case sqlparser.DecimalVal, sqlparser.FloatVal:
		return pe(n.Val, cNum), nil
	case sqlparser.DateVal:
		return pe("DATE "+quotePG(n.Val), cDate), nil
	case sqlparser.TimestampVal:
		return pe("TIMESTAMP "+quotePG(n.Val), cDateTime), nil
	case sqlparser.TimeVal:
		return pe("TIME "+quotePG(n.Val), cTime), nil
	}
	return pexpr{}, refuse("literal %s", sqlparser.String(n))
}

// quotePG quotes a string for PostgreSQL (standard_conforming_strings on).
func quotePG(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// intLiteral returns the value of an integer constant, also a negated one.
func intLiteral(e sqlparser.Expr) (int, bool) {
	neg := false
	if u, ok := e.(*sqlparser.UnaryExpr); ok && u.Operator == sqlparser.UMinusOp {
		neg, e = true, u.Expr
	}
	l, ok := e.(*sqlparser.Literal)
	if !ok || l.Type != sqlparser.IntVal {
		return 0, false
	}
	n, err := strconv.Atoi(l.Val)
	if err != nil {
		return 0, false
	}
	if neg {
		n = -n
	}
	return n, true
}

func (x *xlate) logical(op string, l, r sqlparser.Expr, sc *scope) (pexpr, error) {
	a, err := x.boolExpr(l, sc)
	if err != nil {
		return pexpr{}, err
	}
	b, err := x.boolExpr(r, sc)
	if err != nil {
		return pexpr{}, err
	}
	return pe("("+a.sql+" "+op+" "+b.sql+")", cBool), nil
}

func isInt(e pexpr) bool { return e.cls == cInt }

func (x *xlate) binary(n *sqlparser.BinaryExpr, sc *scope) (pexpr, error) {
	a, err := x.valExpr(n.Left, sc)
	if err != nil {
		return pexpr{}, err
	}
	b, err := x.valExpr(n.Right, sc)
	if err != nil {
		return pexpr{}, err
	}
	for _, v := range []pexpr{a, b} {
		if v.cls == cText || v.cls == cDate || v.cls == cDateTime || v.cls == cTime || v.cls == cOther {
			return pexpr{}, refuse("arithmetic on a %s value (MySQL converts it to a number)", v.cls)
		}
	}
	res := cNum
	if isInt(a) && isInt(b) {
		res = cInt
	}
	switch n.Operator {
	case sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp:
		return pe("("+a.sql+" "+n.Operator.ToString()+" "+b.sql+")", res), nil
	case sqlparser.DivOp:
		// MySQL's / never divides integers, gives NULL for x/0 and keeps
		// the dividend's scale + 4 (div_precision_increment) digits.
		q := "(" + a.sql + ")::numeric / NULLIF(" + b.sql + ", 0)"
		switch {
		case isInt(a) && isInt(b):
			return pe("round("+q+", 4)", cNum), nil
		case a.col != nil && a.col.scale >= 0 && (isInt(b) || b.col != nil && b.col.scale >= 0):
			return pe("round("+q+", "+strconv.Itoa(a.col.scale+4)+")", cNum), nil
		}
		x.note("the scale of a quotient differs (MySQL keeps the dividend's scale + 4 digits)")
		return pe("("+q+")", cNum), nil
	case sqlparser.IntDivOp:
		return pe("div(("+a.sql+")::numeric, NULLIF("+b.sql+", 0))", cInt), nil
	case sqlparser.ModOp:
		return pe("mod("+a.sql+", NULLIF("+b.sql+", 0))", res), nil
	case sqlparser.BitAndOp, sqlparser.BitOrOp, sqlparser.ShiftLeftOp, sqlparser.ShiftRightOp:
		if !isInt(a) || !isInt(b) {
			return pexpr{}, refuse("bit operator %s on non-integers", n.Operator.ToString())
		}
		return pe("("+a.sql+" "+n.Operator.ToString()+" "+b.sql+")", cInt), nil
	case sqlparser.BitXorOp:
		if !isInt(a) || !isInt(b) {
			return pexpr{}, refuse("bit operator ^ on non-integers")
		}
		return pe("("+a.sql+" # "+b.sql+")", cInt), nil
	}
	return pexpr{}, refuse("operator %s", n.Operator.ToString())
}

func (x *xlate) unary(n *sqlparser.UnaryExpr, sc *scope) (pexpr, error) {
	switch n.Operator {
	case sqlparser.UMinusOp, sqlparser.UPlusOp:
		a, err := x.valExpr(n.Expr, sc)
		if err != nil {
			return pexpr{}, err
		}
		if a.cls != cInt && a.cls != cNum && a.cls != cUnknown && a.cls != cNull {
			return pexpr{}, refuse("sign of a %s value", a.cls)
		}
		return pe("("+n.Operator.ToString()+a.sql+")", a.cls), nil
	case sqlparser.BangOp:
		a, err := x.boolExpr(n.Expr, sc)
		if err != nil {
			return pexpr{}, err
		}
		return pe("(NOT "+a.sql+")", cBool), nil
	}
	return pexpr{}, refuse("operator %s", n.Operator.ToString())
}

var comparisonOps = map[sqlparser.ComparisonExprOperator]string{
	sqlparser.EqualOp: "=", sqlparser.LessThanOp: "<", sqlparser.GreaterThanOp: ">",
	sqlparser.LessEqualOp: "<=", sqlparser.GreaterEqualOp: ">=", sqlparser.NotEqualOp: "<>",
	sqlparser.NullSafeEqualOp: "IS NOT DISTINCT FROM",
}

// textCompare notes that MySQL compares text by its collation.
func (x *xlate) textCompare(es ...pexpr) {
	for _, e := range es {
		if e.col != nil && e.col.ci {
			x.note("text compared by MySQL's case-insensitive collation (trailing spaces ignored) is compared exactly by PostgreSQL")
			return
		}
	}
}

func (x *xlate) comparison(n *sqlparser.ComparisonExpr, sc *scope) (pexpr, error) {
	l, err := x.valExpr(n.Left, sc)
	if err != nil {
		return pexpr{}, err
	}
	switch n.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		op := " IN "
		if n.Operator == sqlparser.NotInOp {
			op = " NOT IN "
		}
		switch r := n.Right.(type) {
		case sqlparser.ValTuple:
			items := make([]string, len(r))
			for i, it := range r {
				v, err := x.valExpr(it, sc)
				if err != nil {
					return pexpr{}, err
				}
				if err := comparable(l, v); err != nil {
					return pexpr{}, err
				}
				items[i] = v.sql
			}
			x.textCompare(l)
			return pe("("+l.sql+op+"("+strings.Join(items, ", ")+"))", cBool), nil
		case *sqlparser.Subquery:
			q, _, err := x.query(r.Select, sc)
			if err != nil {
				return pexpr{}, err
			}
			x.textCompare(l)
			return pe("("+l.sql+op+"("+q+"))", cBool), nil
		}
		return pexpr{}, refuse("IN %s", sqlparser.String(n.Right))
	case sqlparser.LikeOp, sqlparser.NotLikeOp:
		return x.like(n, l, sc)
	case sqlparser.RegexpOp, sqlparser.NotRegexpOp:
		r, err := x.valExpr(n.Right, sc)
		if err != nil {
			return pexpr{}, err
		}
		op := " ~* "
		if n.Operator == sqlparser.NotRegexpOp {
			op = " !~* "
		}
		x.note("REGEXP became ~* (case-insensitive POSIX regular expression): check the pattern's syntax")
		return pe("("+l.sql+op+r.sql+")", cBool), nil
	}
	op, ok := comparisonOps[n.Operator]
	if !ok {
		return pexpr{}, refuse("operator %s", n.Operator.ToString())
	}
	if n.Modifier != sqlparser.Missing {
		sub, ok := n.Right.(*sqlparser.Subquery)
		if !ok {
			return pexpr{}, refuse("ANY/ALL without a subquery")
		}
		q, _, err := x.query(sub.Select, sc)
		if err != nil {
			return pexpr{}, err
		}
		mod := " ANY "
		if n.Modifier == sqlparser.All {
			mod = " ALL "
		}
		return pe("("+l.sql+" "+op+mod+"("+q+"))", cBool), nil
	}
	r, err := x.valExpr(n.Right, sc)
	if err != nil {
		return pexpr{}, err
	}
	if err := comparable(l, r); err != nil {
		return pexpr{}, err
	}
	x.textCompare(l, r)
	return pe("("+l.sql+" "+op+" "+r.sql+")", cBool), nil
}

// comparable refuses comparisons MySQL resolves by converting one side
// (text with a number compares as numbers there, an error in PostgreSQL),
// except against a literal, which PostgreSQL types from the other side.
func comparable(l, r pexpr) error {
	num := func(c class) bool { return c == cInt || c == cNum }
	lit := func(e pexpr) bool {
		return e.col == nil && (strings.HasPrefix(e.sql, "'") || e.cls == cInt || e.cls == cNum)
	}
	if (num(l.cls) && r.cls == cText || l.cls == cText && num(r.cls)) && !lit(l) && !lit(r) {
		return refuse("comparison of text with a number (MySQL compares them as numbers)")
	}
	return nil
}

func (x *xlate) like(n *sqlparser.ComparisonExpr, l pexpr, sc *scope) (pexpr, error) {
	r, err := x.valExpr(n.Right, sc)
	if err != nil {
		return pexpr{}, err
	}
	if l.cls != cText && l.cls != cUnknown {
		return pexpr{}, refuse("LIKE on a %s value", l.cls)
	}
	op := " LIKE "
	if l.col != nil && l.col.ci {
		op = " ILIKE " // the column's collation ignores case on the source
	}
	if n.Operator == sqlparser.NotLikeOp {
		op = " NOT" + op
	}
	out := "(" + l.sql + op + r.sql
	if n.Escape != nil {
		esc, err := x.valExpr(n.Escape, sc)
		if err != nil {
			return pexpr{}, err
		}
		out += " ESCAPE " + esc.sql
	}
	return pe(out+")", cBool), nil
}

func (x *xlate) is(n *sqlparser.IsExpr, sc *scope) (pexpr, error) {
	a, err := x.expr(n.Left, sc)
	if err != nil {
		return pexpr{}, err
	}
	switch n.Right {
	case sqlparser.IsNullOp:
		return pe("("+a.sql+" IS NULL)", cBool), nil
	case sqlparser.IsNotNullOp:
		return pe("("+a.sql+" IS NOT NULL)", cBool), nil
	}
	b, err := toBool(a)
	if err != nil {
		return pexpr{}, err
	}
	ops := map[sqlparser.IsExprOperator]string{sqlparser.IsTrueOp: "IS TRUE", sqlparser.IsNotTrueOp: "IS NOT TRUE",
		sqlparser.IsFalseOp: "IS FALSE", sqlparser.IsNotFalseOp: "IS NOT FALSE"}
	return pe("("+b.sql+" "+ops[n.Right]+")", cBool), nil
}

func (x *xlate) between(n *sqlparser.BetweenExpr, sc *scope) (pexpr, error) {
	v, err := x.valExpr(n.Left, sc)
	if err != nil {
		return pexpr{}, err
	}
	lo, err := x.valExpr(n.From, sc)
	if err != nil {
		return pexpr{}, err
	}
	hi, err := x.valExpr(n.To, sc)
	if err != nil {
		return pexpr{}, err
	}
	if err := comparable(v, lo); err != nil {
		return pexpr{}, err
	}
	if err := comparable(v, hi); err != nil {
		return pexpr{}, err
	}
	x.textCompare(v)
	op := " BETWEEN "
	if !n.IsBetween {
		op = " NOT BETWEEN "
	}
	return pe("("+v.sql+op+lo.sql+" AND "+hi.sql+")", cBool), nil
}

func (x *xlate) caseExpr(n *sqlparser.CaseExpr, sc *scope) (pexpr, error) {
	var b strings.Builder
	b.WriteString("CASE")
	var subject pexpr
	if n.Expr != nil {
		s, err := x.valExpr(n.Expr, sc)
		if err != nil {
			return pexpr{}, err
		}
		subject = s
		b.WriteString(" " + s.sql)
	}
	var vals []pexpr
	var conds []string
	for _, w := range n.Whens {
		var cond pexpr
		var err error
		if n.Expr != nil {
			if cond, err = x.valExpr(w.Cond, sc); err == nil {
				err = comparable(subject, cond)
			}
		} else {
			cond, err = x.boolExpr(w.Cond, sc)
		}
		if err != nil {
			return pexpr{}, err
		}
		v, err := x.valExpr(w.Val, sc)
		if err != nil {
			return pexpr{}, err
		}
		conds = append(conds, cond.sql)
		vals = append(vals, v)
	}
	if n.Else != nil {
		v, err := x.valExpr(n.Else, sc)
		if err != nil {
			return pexpr{}, err
		}
		vals = append(vals, v)
	}
	vals, cls := x.unify(vals)
	for i, c := range conds {
		b.WriteString(" WHEN " + c + " THEN " + vals[i].sql)
	}
	if n.Else != nil {
		b.WriteString(" ELSE " + vals[len(vals)-1].sql)
	}
	b.WriteString(" END")
	return pe("("+b.String()+")", cls), nil
}

// unify gives the results of CASE, IF, COALESCE one type as MySQL does:
// a mix of text and other values is text (PostgreSQL refuses the mix).
func (x *xlate) unify(vals []pexpr) ([]pexpr, class) {
	cls := cNull
	mixed := false
	for _, v := range vals {
		switch {
		case v.cls == cNull:
		case cls == cNull:
			cls = v.cls
		case cls != v.cls:
			if (cls == cInt || cls == cNum) && (v.cls == cInt || v.cls == cNum) {
				cls = cNum
				continue
			}
			mixed = true
		}
	}
	if !mixed {
		return vals, cls
	}
	out := make([]pexpr, len(vals))
	for i, v := range vals {
		out[i] = x.asText(v)
	}
	return out, cText
}

// asText is MySQL's implicit conversion of a value to a string.
func (x *xlate) asText(v pexpr) pexpr {
	switch v.cls {
	case cText:
		return v
	case cNull:
		return pe("NULL::text", cText)
	case cNum:
		if v.col != nil && v.col.float || v.col == nil && strings.ContainsAny(v.sql, "eE") {
			x.note("a FLOAT/DOUBLE value printed as text may be spelled differently by PostgreSQL")
		}
	case cDateTime:
		if v.col != nil && v.col.tz {
			x.note("a TIMESTAMP column is timestamptz on the target: as text it carries the zone offset")
		}
	case cOther, cUnknown:
		x.note("a value of a type other than text, number or date is printed as text by PostgreSQL's rules")
	}
	return pe("("+v.sql+")::text", cText)
}

// quoteIdent is schema.QuoteIdent, short for the many call sites.
func quoteIdent(s string) string { return schema.QuoteIdent(s) }
