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

func curTime(name string, fsp int) (pexpr, error) {
	p := "(" + strconv.Itoa(fsp) + ")"
	switch name {
	case "now", "current_timestamp", "localtime", "localtimestamp", "sysdate":
		return pe("LOCALTIMESTAMP"+p, cDateTime), nil
	case "utc_timestamp":
		return pe("(now() AT TIME ZONE 'UTC')::timestamp"+p, cDateTime), nil
	case "curtime", "current_time":
		return pe("LOCALTIME"+p, cTime), nil
	case "utc_time":
		return pe("(now() AT TIME ZONE 'UTC')::time"+p, cTime), nil
	case "curdate", "current_date":
		return pe("CURRENT_DATE", cDate), nil
	case "utc_date":
		return pe("(now() AT TIME ZONE 'UTC')::date", cDate), nil
	}
	return pexpr{}, refuse("%s() has no known PostgreSQL translation", name)
}

func (x *xlate) aggregate(fn string, distinct bool, arg sqlparser.Expr, res class, sc *scope) (pexpr, error) {
	a, err := x.valExpr(arg, sc)
	if err != nil {
		return pexpr{}, err
	}
	if res == cUnknown {
		res = a.cls
		if fn == "min" || fn == "max" {
			x.textCompare(a)
		}
	}
	if fn == "sum" && a.cls == cInt {
		res = cInt
	}
	d := ""
	if distinct {
		d = "DISTINCT "
		x.textCompare(a)
	}
	return pexpr{sql: fn + "(" + d + a.sql + ")", cls: res}, nil
}

// avg keeps MySQL's scale: an integer's average has 4 decimals, a
// DECIMAL(p,s)'s s+4 (div_precision_increment).
func (x *xlate) avg(n *sqlparser.Avg, sc *scope) (pexpr, error) {
	a, err := x.aggregate("avg", n.Distinct, n.Arg, cNum, sc)
	if err != nil {
		return pexpr{}, err
	}
	arg, _ := x.valExpr(n.Arg, sc)
	switch {
	case arg.cls == cInt:
		return pe("round("+a.sql+", 4)", cNum), nil
	case arg.col != nil && arg.col.scale >= 0:
		return pe("round("+a.sql+", "+strconv.Itoa(arg.col.scale+4)+")", cNum), nil
	}
	x.note("AVG of a FLOAT/DOUBLE or an expression: the result's precision may differ")
	return a, nil
}

// groupConcat becomes string_agg: like GROUP_CONCAT it skips NULLs, and
// several expressions are concatenated with || so a row with a NULL in any
// of them is skipped too.
func (x *xlate) groupConcat(n *sqlparser.GroupConcatExpr, sc *scope) (pexpr, error) {
	if n.Limit != nil {
		return pexpr{}, refuse("GROUP_CONCAT … LIMIT")
	}
	parts := make([]string, len(n.Exprs))
	for i, e := range n.Exprs {
		a, err := x.valExpr(e, sc)
		if err != nil {
			return pexpr{}, err
		}
		parts[i] = x.asText(a).sql
	}
	sep := ","
	if n.Separator != "" {
		s, err := unquoteMySQL(n.Separator)
		if err != nil {
			return pexpr{}, err
		}
		sep = s
	}
	d := ""
	if n.Distinct {
		d = "DISTINCT "
	}
	out := "string_agg(" + d + strings.Join(parts, " || ") + ", " + quotePG(sep)
	if len(n.OrderBy) > 0 {
		o, err := x.orderBy(n.OrderBy, sc)
		if err != nil {
			return pexpr{}, err
		}
		out += " ORDER BY " + o
	}
	x.note("GROUP_CONCAT truncates at group_concat_max_len on MySQL; string_agg does not")
	return pe(out+")", cText), nil
}

// unquoteMySQL reads a MySQL string literal as the parser prints it.
func unquoteMySQL(s string) (string, error) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", refuse("string %s", s)
	}
	q := s[0]
	body := s[1 : len(s)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == '\\' && i+1 < len(body):
			i++
			switch body[i] {
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case '0':
				b.WriteByte(0)
			default:
				b.WriteByte(body[i])
			}
		case c == q && i+1 < len(body) && body[i+1] == q:
			b.WriteByte(q)
			i++
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

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
	want := func(n int) error {
		if len(args) != n {
			return refuse("%s with %d arguments", name, len(args))
		}
		return nil
	}
	switch name {
	case "ifnull", "coalesce":
		if name == "ifnull" && len(args) != 2 || len(args) == 0 {
			return pexpr{}, refuse("%s with %d arguments", name, len(args))
		}
		vals, cls := x.unify(args)
		return pe("coalesce("+sqls(vals)+")", cls), nil
	case "nullif":
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		return pe("nullif("+sqls(args)+")", args[0].cls), nil
	case "if":
		if err := want(3); err != nil {
			return pexpr{}, err
		}
		c, err := x.boolExpr(es[0], sc)
		if err != nil {
			return pexpr{}, err
		}
		vals, cls := x.unify(args[1:])
		return pe("(CASE WHEN "+c.sql+" THEN "+vals[0].sql+" ELSE "+vals[1].sql+" END)", cls), nil
	case "concat":
		// || yields NULL when any argument is NULL, as MySQL's CONCAT;
		// PostgreSQL's concat() would skip NULLs.
		if len(args) == 0 {
			return pexpr{}, refuse("concat()")
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = x.asText(a).sql
		}
		return pe("("+strings.Join(parts, " || ")+")", cText), nil
	case "concat_ws":
		// Both skip NULL arguments after the separator and yield NULL for a
		// NULL separator.
		if len(args) < 2 {
			return pexpr{}, refuse("concat_ws with %d arguments", len(args))
		}
		parts := make([]string, len(args))
		for i, a := range args {
			parts[i] = x.asText(a).sql
		}
		return pe("concat_ws("+strings.Join(parts, ", ")+")", cText), nil
	case "greatest", "least":
		vals, cls := x.unify(args)
		x.note(strings.ToUpper(name) + ": MySQL returns NULL when an argument is NULL, PostgreSQL ignores NULLs")
		return pe(name+"("+sqls(vals)+")", cls), nil
	case "substring", "substr", "mid":
		if len(es) < 2 || len(es) > 3 {
			return pexpr{}, refuse("%s with %d arguments", name, len(es))
		}
		// MySQL counts a negative start from the end, PostgreSQL does not.
		if from, ok := intLiteral(es[1]); !ok || from < 1 {
			return pexpr{}, refuse("%s with a start that is not a positive constant", name)
		}
		out := "substr(" + args[0].sql + ", " + args[1].sql
		if len(args) == 3 {
			out += ", greatest(" + args[2].sql + ", 0)" // MySQL: a negative length gives ''
		}
		return pe(out+")", cText), nil
	case "instr":
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		x.textCompare(args[0])
		return pe("strpos("+args[0].sql+", "+args[1].sql+")", cInt), nil
	case "round":
		if len(args) == 1 {
			return pe("round("+args[0].sql+")", args[0].cls), nil
		}
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		return pe("round(("+args[0].sql+")::numeric, "+args[1].sql+")", cNum), nil
	case "truncate":
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		return pe("trunc(("+args[0].sql+")::numeric, "+args[1].sql+")", cNum), nil
	case "mod":
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		return pe("mod("+args[0].sql+", NULLIF("+args[1].sql+", 0))", args[0].cls), nil
	case "space":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("repeat(' ', "+args[0].sql+")", cText), nil
	case "date":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("("+args[0].sql+")::date", cDate), nil
	case "datediff":
		if err := want(2); err != nil {
			return pexpr{}, err
		}
		return pe("(("+args[0].sql+")::date - ("+args[1].sql+")::date)", cInt), nil
	case "to_days": // MariaDB stores DATEDIFF(a, b) as to_days(a) - to_days(b)
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("(("+args[0].sql+")::date - DATE '0001-01-01' + 366)", cInt), nil
	case "last_day":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("(date_trunc('month', "+args[0].sql+") + interval '1 month - 1 day')::date", cDate), nil
	case "dayname", "monthname":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		f := map[string]string{"dayname": "FMDay", "monthname": "FMMonth"}[name]
		return pe("to_char("+timestampArg(args[0])+", '"+f+"')", cText), nil
	case "dayofweek":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("(EXTRACT(DOW FROM "+args[0].sql+")::integer + 1)", cInt), nil
	case "weekday":
		if err := want(1); err != nil {
			return pexpr{}, err
		}
		return pe("(EXTRACT(ISODOW FROM "+args[0].sql+")::integer - 1)", cInt), nil
	case "curdate", "current_date", "utc_date", "now", "curtime", "sysdate":
		if len(args) > 1 {
			return pexpr{}, refuse("%s with %d arguments", name, len(args))
		}
		fsp := 0
		if len(es) == 1 {
			n, ok := intLiteral(es[0])
			if !ok {
				return pexpr{}, refuse("%s with a non-constant precision", name)
			}
			fsp = n
		}
		return curTime(name, fsp)
	case "uuid":
		x.note("UUID() became gen_random_uuid() (version 4, not MySQL's version 1)")
		return pe("gen_random_uuid()::text", cText), nil
	}
	if x.routines[x.db+"."+name] {
		return pexpr{}, refuse("calls stored function %s.%s, which is not translated", x.db, name)
	}
	return pexpr{}, refuse("function %s() has no known PostgreSQL translation", name)
}

// timestampArg makes text usable where PostgreSQL wants a timestamp.
func timestampArg(a pexpr) string {
	if a.cls == cText {
		return "(" + a.sql + ")::timestamp"
	}
	return a.sql
}

var extractUnits = map[string]string{"year": "YEAR", "month": "MONTH", "day": "DAY", "hour": "HOUR",
	"minute": "MINUTE", "second": "SECOND", "quarter": "QUARTER", "doy": "DOY", "microsecond": "MICROSECONDS"}

func (x *xlate) extract(unit string, e sqlparser.Expr, sc *scope) (pexpr, error) {
	u := extractUnits[unit]
	if u == "" {
		return pexpr{}, refuse("date part %s", unit)
	}
	a, err := x.valExpr(e, sc)
	if err != nil {
		return pexpr{}, err
	}
	arg := timestampArg(a)
	switch u {
	case "SECOND": // PostgreSQL includes the fraction, MySQL does not
		return pe("floor(EXTRACT(SECOND FROM "+arg+"))::integer", cInt), nil
	case "MICROSECONDS":
		return pe("(EXTRACT(MICROSECONDS FROM "+arg+")::integer % 1000000)", cInt), nil
	}
	return pe("EXTRACT("+u+" FROM "+arg+")::integer", cInt), nil
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

func (x *xlate) dateFormat(es []sqlparser.Expr, sc *scope) (pexpr, error) {
	if len(es) != 2 {
		return pexpr{}, refuse("date_format with %d arguments", len(es))
	}
	lit, ok := es[1].(*sqlparser.Literal)
	if !ok || lit.Type != sqlparser.StrVal {
		return pexpr{}, refuse("date_format with a format that is not a constant")
	}
	f, err := toCharFormat(lit.Val)
	if err != nil {
		return pexpr{}, err
	}
	a, err := x.valExpr(es[0], sc)
	if err != nil {
		return pexpr{}, err
	}
	return pe("to_char("+timestampArg(a)+", "+quotePG(f)+")", cText), nil
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

var intervalUnits = map[sqlparser.IntervalType]string{
	sqlparser.IntervalMicrosecond: "microseconds", sqlparser.IntervalSecond: "seconds",
	sqlparser.IntervalMinute: "minutes", sqlparser.IntervalHour: "hours", sqlparser.IntervalDay: "days",
	sqlparser.IntervalWeek: "weeks", sqlparser.IntervalMonth: "months", sqlparser.IntervalQuarter: "quarter",
	sqlparser.IntervalYear: "years",
}

// interval translates DATE_ADD/DATE_SUB and date ± INTERVAL n unit. A DATE
// plus days, weeks, months or years stays a DATE as in MySQL.
func (x *xlate) interval(n *sqlparser.IntervalDateExpr, sc *scope) (pexpr, error) {
	if n.Syntax == sqlparser.IntervalDateExprTimestampadd {
		return pexpr{}, refuse("TIMESTAMPADD")
	}
	unit := n.NormalizedUnit()
	u, ok := intervalUnits[unit]
	if !ok {
		return pexpr{}, refuse("INTERVAL unit %s", unit.ToString())
	}
	d, err := x.valExpr(n.Date, sc)
	if err != nil {
		return pexpr{}, err
	}
	v, err := x.valExpr(n.Interval, sc)
	if err != nil {
		return pexpr{}, err
	}
	if u == "quarter" {
		u, v = "months", pe("(3 * "+v.sql+")", cInt)
	}
	op := " + "
	if n.IsSubtraction() {
		op = " - "
	}
	iv := "(" + v.sql + ") * interval '1 " + u + "'"
	if d.cls == cText {
		d = pe("("+d.sql+")::timestamp", cDateTime)
	}
	out := "(" + d.sql + op + iv + ")"
	cls := cDateTime
	if d.cls == cDate {
		switch unit {
		case sqlparser.IntervalDay, sqlparser.IntervalWeek, sqlparser.IntervalMonth, sqlparser.IntervalQuarter, sqlparser.IntervalYear:
			out, cls = "("+out+")::date", cDate
		}
	}
	if d.col != nil && d.col.tz {
		cls = cOther
	}
	return pe(out, cls), nil
}
