package objects

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// sameFunc maps MySQL functions to PostgreSQL functions of the same meaning
// and argument order, with their result class.
var sameFunc = map[string]struct {
	pg  string
	res class
}{
	"lower": {"lower", cText}, "lcase": {"lower", cText}, "upper": {"upper", cText}, "ucase": {"upper", cText},
	"char_length": {"char_length", cInt}, "character_length": {"char_length", cInt},
	"reverse": {"reverse", cText}, "left": {"left", cText}, "right": {"right", cText},
	"lpad": {"lpad", cText}, "rpad": {"rpad", cText}, "repeat": {"repeat", cText}, "replace": {"replace", cText},
	"ltrim": {"ltrim", cText}, "rtrim": {"rtrim", cText}, "md5": {"md5", cText}, "ascii": {"ascii", cInt},
	"abs": {"abs", cUnknown}, "ceil": {"ceil", cInt}, "ceiling": {"ceil", cInt}, "floor": {"floor", cInt},
	"sign": {"sign", cInt}, "sqrt": {"sqrt", cNum}, "exp": {"exp", cNum}, "ln": {"ln", cNum},
	"log10": {"log10", cNum}, "power": {"power", cNum}, "pow": {"power", cNum}, "pi": {"pi", cNum},
	"length": {"octet_length", cInt}, "octet_length": {"octet_length", cInt},
}

// textArgs are the positions of the string arguments of sameFunc's text functions.
var textArgs = map[string][]int{
	"lower": {0}, "lcase": {0}, "upper": {0}, "ucase": {0}, "char_length": {0}, "character_length": {0},
	"reverse": {0}, "left": {0}, "right": {0}, "lpad": {0, 2}, "rpad": {0, 2}, "repeat": {0},
	"replace": {0, 1, 2}, "ltrim": {0}, "rtrim": {0}, "md5": {0}, "ascii": {0}, "length": {0}, "octet_length": {0},
}

func (x *xlate) args(es []sqlparser.Expr, sc *scope) ([]pexpr, error) {
	out := make([]pexpr, len(es))
	for i, e := range es {
		a, err := x.valExpr(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = a
	}
	return out, nil
}

func sqls(es []pexpr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.sql
	}
	return strings.Join(s, ", ")
}

// function translates function calls and the parser's special forms.
func (x *xlate) function(e sqlparser.Expr, sc *scope) (pexpr, error) {
	switch n := e.(type) {
	case *sqlparser.FuncExpr:
		if !n.Qualifier.IsEmpty() {
			return pexpr{}, refuse("calls stored function %s.%s, which is not translated", n.Qualifier.String(), n.Name.String())
		}
		return x.namedFunc(n.Name.Lowered(), n.Exprs, sc)
	case *sqlparser.CurTimeFuncExpr:
		return curTime(n.Name.Lowered(), n.Fsp)
	case *sqlparser.CountStar:
		if n.OverClause != nil {
			return pexpr{}, refuse("window function")
		}
		return pe("count(*)", cInt), nil
	case *sqlparser.Count:
		if n.OverClause != nil || len(n.Args) != 1 {
			return pexpr{}, refuse("COUNT with %d arguments or a window", len(n.Args))
		}
		return x.aggregate("count", n.Distinct, n.Args[0], cInt, sc)
	case *sqlparser.Sum:
		if n.OverClause != nil {
			return pexpr{}, refuse("window function")
		}
		return x.aggregate("sum", n.Distinct, n.Arg, cNum, sc)
	case *sqlparser.Min:
		if n.OverClause != nil {
			return pexpr{}, refuse("window function")
		}
		return x.aggregate("min", n.Distinct, n.Arg, cUnknown, sc)
	case *sqlparser.Max:
		if n.OverClause != nil {
			return pexpr{}, refuse("window function")
		}
		return x.aggregate("max", n.Distinct, n.Arg, cUnknown, sc)
	case *sqlparser.Avg:
		if n.OverClause != nil {
			return pexpr{}, refuse("window function")
		}
		return x.avg(n, sc)
	case *sqlparser.GroupConcatExpr:
		return x.groupConcat(n, sc)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{n.Name, n.From}
		if n.To != nil {
			args = append(args, n.To)
		}
		return x.namedFunc("substring", args, sc)
	case *sqlparser.LocateExpr:
		if n.Pos != nil {
			return pexpr{}, refuse("LOCATE with a start position")
		}
		return x.namedFunc("instr", []sqlparser.Expr{n.Str, n.SubStr}, sc)
	case *sqlparser.TrimFuncExpr:
		return x.trim(n, sc)
	case *sqlparser.CastExpr:
		if n.Array {
			return pexpr{}, refuse("CAST … ARRAY")
		}
		return x.cast(n.Expr, n.Type, sc)
	case *sqlparser.ConvertExpr:
		return x.cast(n.Expr, n.Type, sc)
	case *sqlparser.ConvertUsingExpr:
		x.note("CONVERT(… USING " + n.Type + ") dropped: PostgreSQL text has the database's encoding")
		return x.expr(n.Expr, sc)
	case *sqlparser.ExtractFuncExpr:
		return x.extract(strings.ToLower(n.IntervalType.ToString()), n.Expr, sc)
	case *sqlparser.IntervalDateExpr:
		return x.interval(n, sc)
	}
	return pexpr{}, refuse("%s has no known PostgreSQL translation", sqlparser.String(e))
}

// namedFunc translates a call of the MySQL function name: the few that
// take their arguments untranslated first, then those PostgreSQL has
// under the same name, then the families below.
func (x *xlate) namedFunc(name string, es []sqlparser.Expr, sc *scope) (pexpr, error) {
	switch name {
	case "substring_index":
		return x.substringIndex(es, sc)
	case "date_format":
		return x.dateFormat(es, sc)
	case "year", "month", "day", "dayofmonth", "hour", "minute", "second", "quarter", "dayofyear":
		if len(es) != 1 {
			return pexpr{}, refuse("%s with %d arguments", name, len(es))
		}
		unit := map[string]string{"dayofmonth": "day", "dayofyear": "doy"}[name]
		if unit == "" {
			unit = name
		}
		return x.extract(unit, es[0], sc)
	}
	args, err := x.args(es, sc)
	if err != nil {
		return pexpr{}, err
	}
	if f, ok := sameFunc[name]; ok {
		// MySQL converts any value to text where a string is expected;
		// PostgreSQL has no implicit cast to text for function arguments.
		for _, i := range textArgs[name] {
			if i < len(args) {
				args[i] = x.asText(args[i])
			}
		}
		res := f.res
		if res == cUnknown && len(args) > 0 {
			res = args[0].cls
		}
		return pe(f.pg+"("+sqls(args)+")", res), nil
	}
	// The translators of the functions that differ from PostgreSQL's, by
	// family; each says whether the name is its own.
	families := [...]func(x *xlate, name string, es []sqlparser.Expr, args []pexpr, sc *scope) (pexpr, bool, error){
		(*xlate).controlFunc, (*xlate).stringFunc, (*xlate).numericFunc, (*xlate).temporalFunc,
	}
	for _, family := range families {
		if p, ok, err := family(x, name, es, args, sc); ok {
			return p, err
		}
	}
	if x.routines[x.db+"."+name] {
		return pexpr{}, refuse("calls stored function %s.%s, which is not translated", x.db, name)
	}
	return pexpr{}, refuse("function %s() has no known PostgreSQL translation", name)
}

// wantArgs refuses a call of name with other than n arguments.
func wantArgs(name string, args []pexpr, n int) error {
	if len(args) != n {
		return refuse("%s with %d arguments", name, len(args))
	}
	return nil
}

// controlFunc translates the NULL-handling and choice functions (IFNULL,
// IF, GREATEST …) and UUID; ok is false for a name of another family.
func (x *xlate) controlFunc(name string, es []sqlparser.Expr, args []pexpr, sc *scope) (pexpr, bool, error) {
	switch name {
	case "ifnull", "coalesce":
		if name == "ifnull" && len(args) != 2 || len(args) == 0 {
			return pexpr{}, true, refuse("%s with %d arguments", name, len(args))
		}
		vals, cls := x.unify(args)
		return pe("coalesce("+sqls(vals)+")", cls), true, nil
	case "nullif":
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		return pe("nullif("+sqls(args)+")", args[0].cls), true, nil
	case "if":
		if err := wantArgs(name, args, 3); err != nil {
			return pexpr{}, true, err
		}
		c, err := x.boolExpr(es[0], sc)
		if err != nil {
			return pexpr{}, true, err
		}
		vals, cls := x.unify(args[1:])
		return pe("(CASE WHEN "+c.sql+" THEN "+vals[0].sql+" ELSE "+vals[1].sql+" END)", cls), true, nil
	case "greatest", "least":
		vals, cls := x.unify(args)
		x.note(strings.ToUpper(name) + ": MySQL returns NULL when an argument is NULL, PostgreSQL ignores NULLs")
		return pe(name+"("+sqls(vals)+")", cls), true, nil
	case "uuid":
		x.note("UUID() became gen_random_uuid() (version 4, not MySQL's version 1)")
		return pe("gen_random_uuid()::text", cText), true, nil
	}
	return pexpr{}, false, nil
}

// stringFunc translates the string functions whose arguments or NULL
// handling differ from PostgreSQL's; ok is false for another family.
func (x *xlate) stringFunc(name string, es []sqlparser.Expr, args []pexpr, sc *scope) (pexpr, bool, error) {
	switch name {
	case "concat":
		// || yields NULL when any argument is NULL, as MySQL's CONCAT;
		// PostgreSQL's concat() would skip NULLs.
		if len(args) == 0 {
			return pexpr{}, true, refuse("concat()")
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = x.asText(a).sql
		}
		return pe("("+strings.Join(parts, " || ")+")", cText), true, nil
	case "concat_ws":
		// Both skip NULL arguments after the separator and yield NULL for a
		// NULL separator.
		if len(args) < 2 {
			return pexpr{}, true, refuse("concat_ws with %d arguments", len(args))
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = x.asText(a).sql
		}
		return pe("concat_ws("+strings.Join(parts, ", ")+")", cText), true, nil
	case "substring", "substr", "mid":
		if len(es) < 2 || len(es) > 3 {
			return pexpr{}, true, refuse("%s with %d arguments", name, len(es))
		}
		// MySQL counts a negative start from the end, PostgreSQL does not.
		if from, ok := intLiteral(es[1]); !ok || from < 1 {
			return pexpr{}, true, refuse("%s with a start that is not a positive constant", name)
		}
		out := "substr(" + args[0].sql + ", " + args[1].sql
		if len(args) == 3 {
			out += ", greatest(" + args[2].sql + ", 0)" // MySQL: a negative length gives ''
		}
		return pe(out+")", cText), true, nil
	case "instr":
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		x.textCompare(args[0])
		return pe("strpos("+args[0].sql+", "+args[1].sql+")", cInt), true, nil
	case "space":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("repeat(' ', "+args[0].sql+")", cText), true, nil
	}
	return pexpr{}, false, nil
}

// numericFunc translates ROUND, TRUNCATE and MOD, whose argument types
// or division by zero differ; ok is false for another family.
func (x *xlate) numericFunc(name string, es []sqlparser.Expr, args []pexpr, sc *scope) (pexpr, bool, error) {
	switch name {
	case "round":
		if len(args) == 1 {
			return pe("round("+args[0].sql+")", args[0].cls), true, nil
		}
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		return pe("round(("+args[0].sql+")::numeric, "+args[1].sql+")", cNum), true, nil
	case "truncate":
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		return pe("trunc(("+args[0].sql+")::numeric, "+args[1].sql+")", cNum), true, nil
	case "mod":
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		return pe("mod("+args[0].sql+", NULLIF("+args[1].sql+", 0))", args[0].cls), true, nil
	}
	return pexpr{}, false, nil
}

// temporalFunc translates the date and time functions; ok is false for
// a name of another family.
func (x *xlate) temporalFunc(name string, es []sqlparser.Expr, args []pexpr, sc *scope) (pexpr, bool, error) {
	switch name {
	case "date":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("("+args[0].sql+")::date", cDate), true, nil
	case "datediff":
		if err := wantArgs(name, args, 2); err != nil {
			return pexpr{}, true, err
		}
		return pe("(("+args[0].sql+")::date - ("+args[1].sql+")::date)", cInt), true, nil
	case "to_days": // MariaDB stores DATEDIFF(a, b) as to_days(a) - to_days(b)
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("(("+args[0].sql+")::date - DATE '0001-01-01' + 366)", cInt), true, nil
	case "last_day":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("(date_trunc('month', "+args[0].sql+") + interval '1 month - 1 day')::date", cDate), true, nil
	case "dayname", "monthname":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		f := map[string]string{"dayname": "FMDay", "monthname": "FMMonth"}[name]
		return pe("to_char("+x.timestampArg(args[0])+", '"+f+"')", cText), true, nil
	case "dayofweek":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("(EXTRACT(DOW FROM "+args[0].sql+")::integer + 1)", cInt), true, nil
	case "weekday":
		if err := wantArgs(name, args, 1); err != nil {
			return pexpr{}, true, err
		}
		return pe("(EXTRACT(ISODOW FROM "+args[0].sql+")::integer - 1)", cInt), true, nil
	case "curdate", "current_date", "utc_date", "now", "curtime", "sysdate":
		if len(args) > 1 {
			return pexpr{}, true, refuse("%s with %d arguments", name, len(args))
		}
		fsp := 0
		if len(es) == 1 {
			n, ok := intLiteral(es[0])
			if !ok {
				return pexpr{}, true, refuse("%s with a non-constant precision", name)
			}
			fsp = n
		}
		p, err := curTime(name, fsp)
		return p, true, err
	}
	return pexpr{}, false, nil
}

// substringIndex translates SUBSTRING_INDEX(s, delim, n) for a constant n:
// the first n fields (n > 0) or the last -n (n < 0) joined by delim.
func (x *xlate) substringIndex(es []sqlparser.Expr, sc *scope) (pexpr, error) {
	if len(es) != 3 {
		return pexpr{}, refuse("substring_index with %d arguments", len(es))
	}
	n, ok := intLiteral(es[2])
	if !ok {
		return pexpr{}, refuse("substring_index with a count that is not a constant")
	}
	args, err := x.args(es[:2], sc)
	if err != nil {
		return pexpr{}, err
	}
	s, d := x.asText(args[0]).sql, args[1].sql
	if n == 1 {
		return pe("split_part("+s+", "+d+", 1)", cText), nil
	}
	arr := "string_to_array(" + s + ", " + d + ")"
	if n >= 0 {
		return pe("array_to_string(("+arr+")[1:"+strconv.Itoa(n)+"], "+d+")", cText), nil
	}
	from := "greatest(cardinality(" + arr + ") - " + strconv.Itoa(-n-1) + ", 1)"
	if n == -1 {
		from = "cardinality(" + arr + ")"
	}
	return pe("array_to_string(("+arr+")["+from+":], "+d+")", cText), nil
}

func (x *xlate) trim(n *sqlparser.TrimFuncExpr, sc *scope) (pexpr, error) {
	s, err := x.valExpr(n.StringArg, sc)
	if err != nil {
		return pexpr{}, err
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
	chars := "' '"
	if n.TrimArg != nil {
		l, ok := n.TrimArg.(*sqlparser.Literal)
		if !ok || l.Type != sqlparser.StrVal || len([]rune(l.Val)) != 1 {
			// MySQL removes a whole substring, PostgreSQL a set of characters:
			// they agree for one character only.
			return pexpr{}, refuse("TRIM of a string other than one character")
		}
		chars = quotePG(l.Val)
	}
	return pe("trim("+side+" "+chars+" FROM "+s.sql+")", cText), nil
}

func (x *xlate) cast(e sqlparser.Expr, t *sqlparser.ConvertType, sc *scope) (pexpr, error) {
	a, err := x.valExpr(e, sc)
	if err != nil {
		return pexpr{}, err
	}
	typ := strings.ToLower(t.Type)
	switch typ {
	case "signed", "signed integer", "unsigned", "unsigned integer":
		if a.cls == cText {
			x.note("CAST of text to an integer: MySQL reads a leading number and ignores the rest, PostgreSQL refuses")
		}
		return pe("("+a.sql+")::bigint", cInt), nil
	case "decimal":
		p, s := 10, 0
		if t.Length != nil {
			p = *t.Length
		}
		if t.Scale != nil {
			s = *t.Scale
		}
		return pexpr{sql: "(" + a.sql + ")::numeric(" + strconv.Itoa(p) + "," + strconv.Itoa(s) + ")", cls: cNum,
			col: &colInfo{cls: cNum, scale: s}}, nil
	case "double", "real", "float":
		return pe("("+a.sql+")::double precision", cNum), nil
	case "char", "nchar":
		out := x.asText(a).sql
		if t.Length != nil {
			out = "left(" + out + ", " + strconv.Itoa(*t.Length) + ")"
		}
		return pe(out, cText), nil
	case "date":
		return pe("("+a.sql+")::date", cDate), nil
	case "datetime":
		fsp := 0
		if t.Length != nil {
			fsp = *t.Length
		}
		return pe("("+a.sql+")::timestamp("+strconv.Itoa(fsp)+")", cDateTime), nil
	case "time":
		return pe("("+a.sql+")::time", cTime), nil
	case "json":
		return pe("("+a.sql+")::jsonb", cOther), nil
	}
	return pexpr{}, refuse("CAST(… AS %s)", typ)
}
