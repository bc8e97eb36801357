package ddl

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/typemap"
)

// sameName maps MySQL functions to PostgreSQL functions of the same meaning
// and argument order, with the class of their arguments and result.
var sameName = map[string]struct {
	pg       string
	arg, res class
	nargs    []int
}{
	"lower": {"lower", clsText, clsText, []int{1}}, "lcase": {"lower", clsText, clsText, []int{1}},
	"upper": {"upper", clsText, clsText, []int{1}}, "ucase": {"upper", clsText, clsText, []int{1}},
	"char_length": {"char_length", clsText, clsNum, []int{1}}, "character_length": {"char_length", clsText, clsNum, []int{1}},
	"reverse": {"reverse", clsText, clsText, []int{1}},
	"abs":     {"abs", clsNum, clsNum, []int{1}}, "ceil": {"ceil", clsNum, clsNum, []int{1}},
	"ceiling": {"ceil", clsNum, clsNum, []int{1}}, "floor": {"floor", clsNum, clsNum, []int{1}},
	"sign": {"sign", clsNum, clsNum, []int{1}}, "sqrt": {"sqrt", clsNum, clsNum, []int{1}},
	"exp": {"exp", clsNum, clsNum, []int{1}}, "ln": {"ln", clsNum, clsNum, []int{1}},
	"log10": {"log10", clsNum, clsNum, []int{1}}, "power": {"power", clsNum, clsNum, []int{2}},
	"pow": {"power", clsNum, clsNum, []int{2}}, "pi": {"pi", clsNum, clsNum, []int{0}},
}

func (x *exprTranslator) function(name string, args []sqlparser.Expr) (pgExpr, error) {
	if f, ok := sameName[name]; ok {
		if !intIn(len(args), f.nargs) {
			return pgExpr{}, refuse("%s with %d arguments", name, len(args))
		}
		parts, err := x.classArgs(args, f.arg)
		if err != nil {
			return pgExpr{}, err
		}
		return pe(f.pg+"("+strings.Join(parts, ", ")+")", f.res), nil
	}
	switch name {
	case "concat":
		return x.concat(args)
	case "concat_ws", "length", "octet_length":
		// concat_ws is not IMMUTABLE in PostgreSQL; LENGTH counts bytes of the
		// column's charset in MySQL, UTF-8 bytes in PostgreSQL.
		if x.purpose != forCheck {
			return pgExpr{}, refuse("%s outside a CHECK constraint", name)
		}
		if name == "concat_ws" {
			parts, err := x.classArgs(args, clsText)
			if err != nil {
				return pgExpr{}, err
			}
			return pe("concat_ws("+strings.Join(parts, ", ")+")", clsText), nil
		}
		return x.fixed("octet_length", args, clsText, clsNum, 1)
	case "left", "right", "repeat":
		return x.textAndNums(name, args, 2, 2)
	case "lpad", "rpad":
		return x.textAndNums(name, args, 3, 3)
	case "replace":
		return x.fixed("replace", args, clsText, clsText, 3)
	case "substring", "substr", "mid":
		return x.substring(args)
	case "round", "truncate":
		return x.round(name, args)
	case "mod":
		if len(args) != 2 {
			return pgExpr{}, refuse("mod with %d arguments", len(args))
		}
		n, err := x.numArgs(args...)
		if err != nil {
			return pgExpr{}, err
		}
		return pe("mod("+n[0].sql+", NULLIF("+n[1].sql+", 0))", clsNum), nil
	case "coalesce", "ifnull", "nullif":
		return x.coalesce(name, args)
	case "if":
		return x.ifFunc(args)
	case "year", "month", "day", "dayofmonth", "hour", "minute", "second", "date", "to_days", "datediff":
		return x.dateFunction(name, args)
	}
	return pgExpr{}, refuse("function %s()", name)
}

func intIn(n int, set []int) bool {
	for _, v := range set {
		if v == n {
			return true
		}
	}
	return false
}

// classArgs translates arguments that must all be of one class.
func (x *exprTranslator) classArgs(args []sqlparser.Expr, cls class) ([]string, error) {
	out := make([]string, len(args))
	for i, e := range args {
		a, err := x.expr(e)
		if err != nil {
			return nil, err
		}
		if cls == clsNum {
			if a, err = toNum(a); err != nil {
				return nil, err
			}
		}
		if a.cls != cls && a.cls != clsNull {
			return nil, refuse("%s argument where %s is expected", a.cls, cls)
		}
		out[i] = a.sql
	}
	return out, nil
}

func (x *exprTranslator) fixed(pg string, args []sqlparser.Expr, arg, res class, n int) (pgExpr, error) {
	if len(args) != n {
		return pgExpr{}, refuse("%s with %d arguments", pg, len(args))
	}
	parts, err := x.classArgs(args, arg)
	if err != nil {
		return pgExpr{}, err
	}
	return pe(pg+"("+strings.Join(parts, ", ")+")", res), nil
}

// textAndNums translates f(text, num, [text]) functions: left, right, repeat, lpad, rpad.
func (x *exprTranslator) textAndNums(name string, args []sqlparser.Expr, min, max int) (pgExpr, error) {
	if len(args) < min || len(args) > max {
		return pgExpr{}, refuse("%s with %d arguments", name, len(args))
	}
	s, err := x.textArg(args[0])
	if err != nil {
		return pgExpr{}, err
	}
	n, err := x.numArgs(args[1])
	if err != nil {
		return pgExpr{}, err
	}
	parts := []string{s.sql, n[0].sql}
	if len(args) == 3 {
		p, err := x.textArg(args[2])
		if err != nil {
			return pgExpr{}, err
		}
		parts = append(parts, p.sql)
	}
	return pe(name+"("+strings.Join(parts, ", ")+")", clsText), nil
}

// concat becomes ||, which like MySQL's CONCAT yields NULL when any argument
// is NULL. Numbers are cast to text only when both databases print them
// alike: integers and DECIMALs, not floating point or dates.
func (x *exprTranslator) concat(args []sqlparser.Expr) (pgExpr, error) {
	if len(args) == 0 {
		return pgExpr{}, refuse("concat()")
	}
	parts := make([]string, len(args))
	for i, e := range args {
		a, err := x.expr(e)
		if err != nil {
			return pgExpr{}, err
		}
		switch {
		case a.cls == clsText:
			parts[i] = a.sql
		case a.cls == clsNull:
			parts[i] = "NULL::text"
		case a.cls == clsNum && exactNumber(a):
			parts[i] = "(" + a.sql + ")::text"
		default:
			return pgExpr{}, refuse("concat() of a %s value (printed differently by the two databases)", a.cls)
		}
	}
	if len(parts) == 1 {
		return pe(parts[0], clsText), nil
	}
	return pe("("+strings.Join(parts, " || ")+")", clsText), nil
}

// exactNumber reports whether a number prints the same in both databases:
// an integer literal, or a column of an integer or DECIMAL type.
func exactNumber(a pgExpr) bool {
	if a.col == nil {
		_, err := strconv.ParseInt(a.sql, 10, 64)
		return err == nil
	}
	switch a.col.DataType {
	case "tinyint", "smallint", "mediumint", "int", "bigint", "decimal", "year":
		return true
	}
	return false
}

// substring needs a positive constant start: MySQL counts a negative start
// from the end of the string, PostgreSQL does not.
func (x *exprTranslator) substring(args []sqlparser.Expr) (pgExpr, error) {
	if len(args) < 2 || len(args) > 3 {
		return pgExpr{}, refuse("substring with %d arguments", len(args))
	}
	s, err := x.textArg(args[0])
	if err != nil {
		return pgExpr{}, err
	}
	from, ok := args[1].(*sqlparser.Literal)
	if n, err := strconv.Atoi(sqlparser.String(args[1])); !ok || err != nil || n < 1 {
		return pgExpr{}, refuse("substring with a start that is not a positive constant")
	}
	out := "substr(" + s.sql + ", " + from.Val
	if len(args) == 3 {
		n, err := x.numArgs(args[2])
		if err != nil {
			return pgExpr{}, err
		}
		out += ", greatest(" + n[0].sql + ", 0)" // MySQL: a negative length gives ''
	}
	return pe(out+")", clsText), nil
}

func (x *exprTranslator) round(name string, args []sqlparser.Expr) (pgExpr, error) {
	if len(args) < 1 || len(args) > 2 || (name == "truncate" && len(args) != 2) {
		return pgExpr{}, refuse("%s with %d arguments", name, len(args))
	}
	n, err := x.numArgs(args...)
	if err != nil {
		return pgExpr{}, err
	}
	pg := map[string]string{"round": "round", "truncate": "trunc"}[name]
	if len(n) == 1 {
		return pe(pg+"("+n[0].sql+")", clsNum), nil
	}
	return pe(pg+"(("+n[0].sql+")::numeric, "+n[1].sql+")", clsNum), nil
}

func (x *exprTranslator) coalesce(name string, args []sqlparser.Expr) (pgExpr, error) {
	if (name != "coalesce" && len(args) != 2) || len(args) == 0 {
		return pgExpr{}, refuse("%s with %d arguments", name, len(args))
	}
	vals := make([]pgExpr, len(args))
	parts := make([]string, len(args))
	for i, e := range args {
		a, err := x.expr(e)
		if err != nil {
			return pgExpr{}, err
		}
		if a.cls == clsBool {
			a, _ = toNum(a)
		}
		vals[i], parts[i] = a, a.sql
	}
	cls, err := commonClass(vals)
	if err != nil {
		return pgExpr{}, err
	}
	pg := "coalesce"
	if name == "nullif" {
		pg = "nullif"
	}
	return pe(pg+"("+strings.Join(parts, ", ")+")", cls), nil
}

func (x *exprTranslator) ifFunc(args []sqlparser.Expr) (pgExpr, error) {
	if len(args) != 3 {
		return pgExpr{}, refuse("if with %d arguments", len(args))
	}
	c, err := x.boolArg(args[0])
	if err != nil {
		return pgExpr{}, err
	}
	a, err := x.expr(args[1])
	if err != nil {
		return pgExpr{}, err
	}
	b, err := x.expr(args[2])
	if err != nil {
		return pgExpr{}, err
	}
	cls, err := commonClass([]pgExpr{a, b})
	if err != nil {
		return pgExpr{}, err
	}
	return pe("(CASE WHEN "+c.sql+" THEN "+a.sql+" ELSE "+b.sql+" END)", cls), nil
}

// zoneless accepts DATE and DATETIME columns: functions of a TIMESTAMP depend
// on the session time zone in both databases and are not IMMUTABLE in PostgreSQL.
func (x *exprTranslator) zoneless(e sqlparser.Expr) (pgExpr, error) {
	a, err := x.expr(e)
	if err != nil {
		return pgExpr{}, err
	}
	if a.col == nil {
		return pgExpr{}, refuse("date function of an expression (only DATE and DATETIME columns)")
	}
	_, kind, err := x.m.PGType(*a.col)
	if err != nil {
		return pgExpr{}, err
	}
	if kind != typemap.KindDate && kind != typemap.KindDateTime {
		return pgExpr{}, refuse("date function of a %s column", a.col.DataType)
	}
	return a, nil
}

var extractUnits = map[string]string{"year": "YEAR", "month": "MONTH", "day": "DAY", "hour": "HOUR",
	"minute": "MINUTE", "second": "SECOND", "quarter": "QUARTER", "week": "", "microsecond": ""}

func (x *exprTranslator) extract(unit string, e sqlparser.Expr) (pgExpr, error) {
	u := extractUnits[unit]
	if u == "" {
		return pgExpr{}, refuse("date part %s", unit)
	}
	a, err := x.zoneless(e)
	if err != nil {
		return pgExpr{}, err
	}
	if u == "SECOND" { // PostgreSQL includes the fraction, MySQL does not
		return pe("floor(EXTRACT(SECOND FROM "+a.sql+"))::integer", clsNum), nil
	}
	return pe("EXTRACT("+u+" FROM "+a.sql+")::integer", clsNum), nil
}

func (x *exprTranslator) cast(e sqlparser.Expr, t *sqlparser.ConvertType) (pgExpr, error) {
	a, err := x.expr(e)
	if err != nil {
		return pgExpr{}, err
	}
	typ := strings.ToLower(t.Type)
	switch {
	case (typ == "signed" || typ == "signed integer") && a.cls == clsNum:
		return pe("round("+a.sql+")::bigint", clsNum), nil
	case typ == "decimal" && a.cls == clsNum:
		p, s := 10, 0
		if t.Length != nil {
			p = *t.Length
		}
		if t.Scale != nil {
			s = *t.Scale
		}
		return pe("("+a.sql+")::numeric("+strconv.Itoa(p)+","+strconv.Itoa(s)+")", clsNum), nil
	case (typ == "double" || typ == "real") && a.cls == clsNum:
		return pe("("+a.sql+")::double precision", clsNum), nil
	case typ == "char" && (a.cls == clsText || (a.cls == clsNum && exactNumber(a))):
		out := "(" + a.sql + ")::text"
		if t.Length != nil {
			out = "left(" + out + ", " + strconv.Itoa(*t.Length) + ")"
		}
		return pe(out, clsText), nil
	case typ == "date":
		if _, err := x.zoneless(e); err != nil {
			return pgExpr{}, err
		}
		return pe("("+a.sql+")::date", clsTemporal), nil
	}
	return pgExpr{}, refuse("CAST(%s AS %s)", a.cls, typ)
}

// dateFunction translates the date functions of DATE and DATETIME columns.
func (x *exprTranslator) dateFunction(name string, args []sqlparser.Expr) (pgExpr, error) {
	switch name {
	case "year", "month", "day", "dayofmonth", "hour", "minute", "second":
		if len(args) != 1 {
			return pgExpr{}, refuse("%s with %d arguments", name, len(args))
		}
		unit := map[string]string{"dayofmonth": "day"}[name]
		if unit == "" {
			unit = name
		}
		return x.extract(unit, args[0])
	case "date":
		if len(args) != 1 {
			return pgExpr{}, refuse("date with %d arguments", len(args))
		}
		a, err := x.zoneless(args[0])
		if err != nil {
			return pgExpr{}, err
		}
		return pe("("+a.sql+")::date", clsTemporal), nil
	case "to_days":
		// MariaDB stores DATEDIFF(a, b) as to_days(a) - to_days(b).
		if len(args) != 1 {
			return pgExpr{}, refuse("to_days with %d arguments", len(args))
		}
		a, err := x.zoneless(args[0])
		if err != nil {
			return pgExpr{}, err
		}
		return pe("(("+a.sql+")::date - DATE '0001-01-01' + 366)", clsNum), nil
	case "datediff":
		if len(args) != 2 {
			return pgExpr{}, refuse("datediff with %d arguments", len(args))
		}
		a, err := x.zoneless(args[0])
		if err != nil {
			return pgExpr{}, err
		}
		b, err := x.zoneless(args[1])
		if err != nil {
			return pgExpr{}, err
		}
		return pe("(("+a.sql+")::date - ("+b.sql+")::date)", clsNum), nil
	}
	return pgExpr{}, refuse("function %s()", name)
}
