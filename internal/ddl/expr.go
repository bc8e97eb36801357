// Package ddl translates MySQL table definitions and DDL statements to
// PostgreSQL: CreateTable plans the snapshot's DDL for one table, Translate
// turns one replicated DDL statement into PostgreSQL statements and the new
// schema model. Everything here is a pure function of its inputs; the rules
// are documented in docs/schema.md.
package ddl

import (
	"fmt"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// class is the PostgreSQL-side type family of a translated expression,
// enough to refuse what PostgreSQL would reject or compute differently.
type class int

const (
	clsNull class = iota
	clsBool
	clsNum
	clsText
	clsTemporal
	clsOther
)

func (c class) String() string {
	return [...]string{"null", "boolean", "number", "text", "date/time", "other"}[c]
}

// pgExpr is a translated expression: PostgreSQL text and its class.
type pgExpr struct {
	sql string
	cls class
	col *schema.Column // set for a plain column reference
}

// purpose says what a translated expression is for: generated columns must
// compute exactly what MySQL computed, so they accept a stricter subset.
type purpose int

const (
	forGenerated purpose = iota
	forCheck
	forIndex
	forDefault
)

func pe(sql string, cls class) pgExpr { return pgExpr{sql: sql, cls: cls} }

// exprTranslator turns a MySQL expression over one table's columns into a
// PostgreSQL expression, or says why it cannot.
type exprTranslator struct {
	t       *schema.Table
	m       *typemap.Mapper
	purpose purpose
	// n names the referenced columns on the target (the zero Naming keeps them).
	n schema.Naming
	// inline maps lower-cased generated column names to their translated
	// expression: PostgreSQL generated columns cannot reference each other.
	inline map[string]pgExpr
}

// untranslatable is the error for expressions outside the supported subset.
type untranslatable struct{ what string }

func (u *untranslatable) Error() string { return "cannot translate " + u.what }

func refuse(format string, args ...any) error {
	return &untranslatable{what: fmt.Sprintf(format, args...)}
}

// translateText parses and translates MySQL expression text.
func (x *exprTranslator) translateText(s string) (pgExpr, error) {
	e, err := schema.ParseExpr(s)
	if err != nil {
		return pgExpr{}, refuse("%q: %v", s, err)
	}
	return x.expr(e)
}

func (x *exprTranslator) expr(e sqlparser.Expr) (pgExpr, error) {
	switch n := e.(type) {
	case *sqlparser.ColName:
		return x.column(n)
	case *sqlparser.Literal:
		return literal(n)
	case *sqlparser.NullVal:
		return pe("NULL", clsNull), nil
	case sqlparser.BoolVal:
		if n {
			return pe("1", clsNum), nil
		}
		return pe("0", clsNum), nil
	case *sqlparser.IntroducerExpr:
		return x.expr(n.Expr)
	case *sqlparser.BinaryExpr:
		return x.binary(n)
	case *sqlparser.UnaryExpr:
		return x.unary(n)
	case *sqlparser.ComparisonExpr:
		return x.comparison(n)
	case *sqlparser.AndExpr:
		return x.logical("AND", n.Left, n.Right)
	case *sqlparser.OrExpr:
		return x.logical("OR", n.Left, n.Right)
	case *sqlparser.XorExpr:
		return x.logical("<>", n.Left, n.Right)
	case *sqlparser.NotExpr:
		a, err := x.boolArg(n.Expr)
		if err != nil {
			return pgExpr{}, err
		}
		return pe("(NOT "+a.sql+")", clsBool), nil
	case *sqlparser.IsExpr:
		return x.is(n)
	case *sqlparser.BetweenExpr:
		return x.between(n)
	case *sqlparser.CaseExpr:
		return x.caseExpr(n)
	case *sqlparser.FuncExpr:
		return x.function(n.Name.Lowered(), n.Exprs)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{n.Name, n.From}
		if n.To != nil {
			args = append(args, n.To)
		}
		return x.function("substring", args)
	case *sqlparser.TrimFuncExpr:
		return x.trim(n)
	case *sqlparser.CastExpr:
		return x.cast(n.Expr, n.Type)
	case *sqlparser.ConvertExpr:
		return x.cast(n.Expr, n.Type)
	case *sqlparser.ExtractFuncExpr:
		return x.extract(strings.ToLower(n.IntervalType.ToString()), n.Expr)
	}
	return pgExpr{}, refuse("%s (%T is not in the supported subset)", sqlparser.String(e), e)
}

// column resolves a column reference to its PostgreSQL name and class, or to
// the inlined expression of another generated column.
func (x *exprTranslator) column(n *sqlparser.ColName) (pgExpr, error) {
	c := x.t.Column(n.Name.String())
	if c == nil {
		return pgExpr{}, refuse("reference to unknown column %s", n.Name.String())
	}
	if in, ok := x.inline[strings.ToLower(c.Name)]; ok {
		return in, nil
	}
	_, kind, err := x.m.PGType(*c)
	if err != nil {
		return pgExpr{}, err
	}
	return pgExpr{sql: x.n.QColumn(x.t.TableID, c.Name), cls: kindClass(kind), col: c}, nil
}

// widenInt casts a smallint/integer column reference to bigint.
func (x *exprTranslator) widenInt(e pgExpr) string {
	if e.col == nil {
		return e.sql
	}
	pg, kind, err := x.m.PGType(*e.col)
	if err != nil || kind != typemap.KindInt || pg == "bigint" {
		return e.sql
	}
	return e.sql + "::bigint"
}

func kindClass(k typemap.Kind) class {
	switch k {
	case typemap.KindInt, typemap.KindUint64, typemap.KindDecimal, typemap.KindFloat32,
		typemap.KindFloat64, typemap.KindYear:
		return clsNum
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		return clsText
	case typemap.KindDate, typemap.KindDateTime, typemap.KindTimestamp:
		return clsTemporal
	}
	return clsOther
}

func literal(n *sqlparser.Literal) (pgExpr, error) {
	switch n.Type {
	case sqlparser.StrVal:
		if strings.ContainsRune(n.Val, 0) {
			return pgExpr{}, refuse("string literal with a NUL character")
		}
		return pe(quotePG(n.Val), clsText), nil
	case sqlparser.IntVal, sqlparser.DecimalVal, sqlparser.FloatVal:
		return pe(n.Val, clsNum), nil
	case sqlparser.DateVal:
		return pe("DATE "+quotePG(n.Val), clsTemporal), nil
	case sqlparser.TimestampVal:
		return pe("TIMESTAMP "+quotePG(n.Val), clsTemporal), nil
	}
	return pgExpr{}, refuse("literal %s", sqlparser.String(n))
}

// quotePG quotes a string for PostgreSQL (standard_conforming_strings on).
func quotePG(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func (x *exprTranslator) boolArg(e sqlparser.Expr) (pgExpr, error) {
	a, err := x.expr(e)
	if err != nil {
		return pgExpr{}, err
	}
	return toBool(a)
}

// toBool turns a MySQL truth value (a number) into a PostgreSQL boolean.
func toBool(a pgExpr) (pgExpr, error) {
	switch a.cls {
	case clsBool:
		return a, nil
	case clsNum:
		return pe("("+a.sql+" <> 0)", clsBool), nil
	case clsNull:
		return pe("NULL::boolean", clsBool), nil
	}
	return pgExpr{}, refuse("%s used as a truth value", a.cls)
}

// toNum turns a PostgreSQL boolean into MySQL's 1/0.
func toNum(a pgExpr) (pgExpr, error) {
	switch a.cls {
	case clsNum, clsNull:
		return a, nil
	case clsBool:
		return pe("("+a.sql+")::integer", clsNum), nil
	}
	return pgExpr{}, refuse("%s used as a number", a.cls)
}

func (x *exprTranslator) numArgs(es ...sqlparser.Expr) ([]pgExpr, error) {
	out := make([]pgExpr, len(es))
	for i, e := range es {
		a, err := x.expr(e)
		if err != nil {
			return nil, err
		}
		if out[i], err = toNum(a); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (x *exprTranslator) logical(op string, l, r sqlparser.Expr) (pgExpr, error) {
	a, err := x.boolArg(l)
	if err != nil {
		return pgExpr{}, err
	}
	b, err := x.boolArg(r)
	if err != nil {
		return pgExpr{}, err
	}
	return pe("("+a.sql+" "+op+" "+b.sql+")", clsBool), nil
}

func (x *exprTranslator) binary(n *sqlparser.BinaryExpr) (pgExpr, error) {
	args, err := x.numArgs(n.Left, n.Right)
	if err != nil {
		return pgExpr{}, err
	}
	a, b := args[0].sql, args[1].sql
	switch n.Operator {
	case sqlparser.PlusOp, sqlparser.MinusOp, sqlparser.MultOp:
		// MySQL does integer arithmetic in 64 bits; PostgreSQL in the
		// operands' width, so smallint/integer columns are widened first
		// (else `i + 1` overflows at 2^31 where MySQL gives a BIGINT).
		a, b = x.widenInt(args[0]), x.widenInt(args[1])
		return pe("("+a+" "+n.Operator.ToString()+" "+b+")", clsNum), nil
	case sqlparser.DivOp:
		// MySQL's / is never integer division, and x/0 is NULL.
		return pe("("+a+"::numeric / NULLIF("+b+", 0))", clsNum), nil
	case sqlparser.IntDivOp:
		return pe("trunc("+a+"::numeric / NULLIF("+b+", 0))", clsNum), nil
	case sqlparser.ModOp:
		return pe("mod("+a+", NULLIF("+b+", 0))", clsNum), nil
	}
	return pgExpr{}, refuse("operator %s", n.Operator.ToString())
}

func (x *exprTranslator) unary(n *sqlparser.UnaryExpr) (pgExpr, error) {
	switch n.Operator {
	case sqlparser.UMinusOp, sqlparser.UPlusOp:
		args, err := x.numArgs(n.Expr)
		if err != nil {
			return pgExpr{}, err
		}
		return pe("("+n.Operator.ToString()+args[0].sql+")", clsNum), nil
	case sqlparser.BangOp:
		a, err := x.boolArg(n.Expr)
		if err != nil {
			return pgExpr{}, err
		}
		return pe("(NOT "+a.sql+")", clsBool), nil
	}
	return pgExpr{}, refuse("operator %s", n.Operator.ToString())
}

var comparisonOps = map[sqlparser.ComparisonExprOperator]string{
	sqlparser.EqualOp: "=", sqlparser.LessThanOp: "<", sqlparser.GreaterThanOp: ">",
	sqlparser.LessEqualOp: "<=", sqlparser.GreaterEqualOp: ">=", sqlparser.NotEqualOp: "<>",
	sqlparser.NullSafeEqualOp: "IS NOT DISTINCT FROM",
}

func (x *exprTranslator) comparison(n *sqlparser.ComparisonExpr) (pgExpr, error) {
	if n.Modifier != sqlparser.Missing {
		return pgExpr{}, refuse("ANY/ALL comparison")
	}
	l, err := x.expr(n.Left)
	if err != nil {
		return pgExpr{}, err
	}
	switch n.Operator {
	case sqlparser.InOp, sqlparser.NotInOp:
		tuple, ok := n.Right.(sqlparser.ValTuple)
		if !ok {
			return pgExpr{}, refuse("IN with a subquery")
		}
		items := make([]string, len(tuple))
		for i, it := range tuple {
			r, err := x.expr(it)
			if err != nil {
				return pgExpr{}, err
			}
			if l, r, err = x.comparable(l, r); err != nil {
				return pgExpr{}, err
			}
			items[i] = r.sql
		}
		op := " IN ("
		if n.Operator == sqlparser.NotInOp {
			op = " NOT IN ("
		}
		return pe("("+l.sql+op+strings.Join(items, ", ")+"))", clsBool), nil
	case sqlparser.LikeOp, sqlparser.NotLikeOp:
		return x.like(n, l)
	}
	op, ok := comparisonOps[n.Operator]
	if !ok {
		return pgExpr{}, refuse("operator %s", n.Operator.ToString())
	}
	r, err := x.expr(n.Right)
	if err != nil {
		return pgExpr{}, err
	}
	if l, r, err = x.comparable(l, r); err != nil {
		return pgExpr{}, err
	}
	return pe("("+l.sql+" "+op+" "+r.sql+")", clsBool), nil
}

// comparable checks that two operands compare alike in both databases.
// MySQL compares text by collation (usually case-insensitive, trailing
// spaces ignored); PostgreSQL byte-wise: a generated column must not depend
// on it, a CHECK may (a stricter check fails loudly on copy, never silently).
func (x *exprTranslator) comparable(l, r pgExpr) (pgExpr, pgExpr, error) {
	var err error
	if l.cls == clsBool {
		if l, err = toNum(l); err != nil {
			return l, r, err
		}
	}
	if r.cls == clsBool {
		if r, err = toNum(r); err != nil {
			return l, r, err
		}
	}
	if l.cls == clsNull || r.cls == clsNull {
		return l, r, nil
	}
	if l.cls == clsOther || r.cls == clsOther {
		return l, r, refuse("comparison of a %s/%s value", l.cls, r.cls)
	}
	if (l.cls == clsText || r.cls == clsText) && x.purpose == forGenerated {
		return l, r, refuse("text comparison in a generated column (MySQL compares by collation)")
	}
	if l.cls != r.cls && !isStringLiteral(l) && !isStringLiteral(r) {
		return l, r, refuse("comparison of %s with %s (MySQL converts implicitly)", l.cls, r.cls)
	}
	return l, r, nil
}

func isStringLiteral(e pgExpr) bool {
	return e.cls == clsText && strings.HasPrefix(e.sql, "'")
}

func (x *exprTranslator) like(n *sqlparser.ComparisonExpr, l pgExpr) (pgExpr, error) {
	if x.purpose == forGenerated {
		return pgExpr{}, refuse("LIKE in a generated column (MySQL matches by collation)")
	}
	if n.Escape != nil {
		return pgExpr{}, refuse("LIKE ... ESCAPE")
	}
	r, err := x.expr(n.Right)
	if err != nil {
		return pgExpr{}, err
	}
	if l.cls != clsText || r.cls != clsText {
		return pgExpr{}, refuse("LIKE on %s", l.cls)
	}
	op := " LIKE "
	if n.Operator == sqlparser.NotLikeOp {
		op = " NOT LIKE "
	}
	return pe("("+l.sql+op+r.sql+")", clsBool), nil
}

func (x *exprTranslator) is(n *sqlparser.IsExpr) (pgExpr, error) {
	a, err := x.expr(n.Left)
	if err != nil {
		return pgExpr{}, err
	}
	switch n.Right {
	case sqlparser.IsNullOp:
		return pe("("+a.sql+" IS NULL)", clsBool), nil
	case sqlparser.IsNotNullOp:
		return pe("("+a.sql+" IS NOT NULL)", clsBool), nil
	}
	b, err := toBool(a)
	if err != nil {
		return pgExpr{}, err
	}
	ops := map[sqlparser.IsExprOperator]string{sqlparser.IsTrueOp: "IS TRUE", sqlparser.IsNotTrueOp: "IS NOT TRUE",
		sqlparser.IsFalseOp: "IS FALSE", sqlparser.IsNotFalseOp: "IS NOT FALSE"}
	return pe("("+b.sql+" "+ops[n.Right]+")", clsBool), nil
}

func (x *exprTranslator) between(n *sqlparser.BetweenExpr) (pgExpr, error) {
	v, err := x.expr(n.Left)
	if err != nil {
		return pgExpr{}, err
	}
	lo, err := x.expr(n.From)
	if err != nil {
		return pgExpr{}, err
	}
	hi, err := x.expr(n.To)
	if err != nil {
		return pgExpr{}, err
	}
	if v, lo, err = x.comparable(v, lo); err != nil {
		return pgExpr{}, err
	}
	if v, hi, err = x.comparable(v, hi); err != nil {
		return pgExpr{}, err
	}
	op := " BETWEEN "
	if !n.IsBetween {
		op = " NOT BETWEEN "
	}
	return pe("("+v.sql+op+lo.sql+" AND "+hi.sql+")", clsBool), nil
}

func (x *exprTranslator) caseExpr(n *sqlparser.CaseExpr) (pgExpr, error) {
	var b strings.Builder
	b.WriteString("CASE")
	var subject pgExpr
	if n.Expr != nil {
		s, err := x.expr(n.Expr)
		if err != nil {
			return pgExpr{}, err
		}
		subject = s
		b.WriteString(" " + s.sql)
	}
	var vals []pgExpr
	for _, w := range n.Whens {
		var cond pgExpr
		var err error
		if n.Expr != nil {
			if cond, err = x.expr(w.Cond); err == nil {
				_, cond, err = x.comparable(subject, cond)
			}
		} else {
			cond, err = x.boolArg(w.Cond)
		}
		if err != nil {
			return pgExpr{}, err
		}
		v, err := x.expr(w.Val)
		if err != nil {
			return pgExpr{}, err
		}
		vals = append(vals, v)
		b.WriteString(" WHEN " + cond.sql + " THEN " + v.sql)
	}
	if n.Else != nil {
		v, err := x.expr(n.Else)
		if err != nil {
			return pgExpr{}, err
		}
		vals = append(vals, v)
		b.WriteString(" ELSE " + v.sql)
	}
	b.WriteString(" END")
	cls, err := commonClass(vals)
	if err != nil {
		return pgExpr{}, err
	}
	return pe("("+b.String()+")", cls), nil
}

// commonClass is the class of a CASE/IF/COALESCE result: all branches alike.
func commonClass(vals []pgExpr) (class, error) {
	cls := clsNull
	for _, v := range vals {
		switch {
		case v.cls == clsNull:
		case cls == clsNull:
			cls = v.cls
		case cls != v.cls:
			return 0, refuse("branches of different types (%s, %s)", cls, v.cls)
		}
	}
	return cls, nil
}

func (x *exprTranslator) trim(n *sqlparser.TrimFuncExpr) (pgExpr, error) {
	s, err := x.textArg(n.StringArg)
	if err != nil {
		return pgExpr{}, err
	}
	side := map[sqlparser.TrimFuncType]string{sqlparser.NormalTrimType: "BOTH", sqlparser.LTrimType: "LEADING",
		sqlparser.RTrimType: "TRAILING"}[n.TrimFuncType]
	switch n.Type {
	case sqlparser.LeadingTrimType:
		side = "LEADING"
	case sqlparser.TrailingTrimType:
		side = "TRAILING"
	case sqlparser.BothTrimType:
		side = "BOTH"
	}
	chars := "' '" // MySQL trims spaces only, PostgreSQL's default too, but say it
	if n.TrimArg != nil {
		c, err := x.textArg(n.TrimArg)
		if err != nil {
			return pgExpr{}, err
		}
		if !isStringLiteral(c) || len(c.sql) != 3 {
			// MySQL removes a whole substring, PostgreSQL a set of characters:
			// they agree only for one character.
			return pgExpr{}, refuse("TRIM of a multi-character string")
		}
		chars = c.sql
	}
	return pe("trim("+side+" "+chars+" FROM "+s.sql+")", clsText), nil
}

func (x *exprTranslator) textArg(e sqlparser.Expr) (pgExpr, error) {
	a, err := x.expr(e)
	if err != nil {
		return pgExpr{}, err
	}
	if a.cls != clsText && a.cls != clsNull {
		return pgExpr{}, refuse("%s where text is expected", a.cls)
	}
	return a, nil
}
