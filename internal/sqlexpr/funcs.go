package sqlexpr

import (
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// sameFunc is a MySQL function PostgreSQL has with the same meaning and
// argument order.
type sameFunc struct {
	pg   string
	res  Class  // Unknown: the class of the first argument
	args string // one letter per argument: t text (MySQL converts any value), n number
	// charset: the result depends on the string's bytes in the column's
	// charset in MySQL (UTF-8 in PostgreSQL): not for generated columns,
	// indexes and defaults.
	charset bool
}

var sameFuncs = map[string]sameFunc{
	"lower": {"lower", Text, "t", false}, "lcase": {"lower", Text, "t", false},
	"upper": {"upper", Text, "t", false}, "ucase": {"upper", Text, "t", false},
	"char_length": {"char_length", Int, "t", false}, "character_length": {"char_length", Int, "t", false},
	"reverse": {"reverse", Text, "t", false}, "left": {"left", Text, "tn", false}, "right": {"right", Text, "tn", false},
	"lpad": {"lpad", Text, "tnt", false}, "rpad": {"rpad", Text, "tnt", false}, "repeat": {"repeat", Text, "tn", false},
	"replace": {"replace", Text, "ttt", false}, "ltrim": {"ltrim", Text, "t", false}, "rtrim": {"rtrim", Text, "t", false},
	"md5": {"md5", Text, "t", true}, "ascii": {"ascii", Int, "t", true},
	"length": {"octet_length", Int, "t", true}, "octet_length": {"octet_length", Int, "t", true},
	"abs": {"abs", Unknown, "n", false}, "ceil": {"ceil", Int, "n", false}, "ceiling": {"ceil", Int, "n", false},
	"floor": {"floor", Int, "n", false}, "sign": {"sign", Int, "n", false}, "sqrt": {"sqrt", Num, "n", false},
	"exp": {"exp", Num, "n", false}, "ln": {"ln", Num, "n", false}, "log10": {"log10", Num, "n", false},
	"power": {"power", Num, "nn", false}, "pow": {"power", Num, "nn", false}, "pi": {"pi", Num, "", false},
}

// function translates function calls and the parser's special forms.
func (x *Translator) function(e sqlparser.Expr, sc Scope) (Expr, error) {
	switch n := e.(type) {
	case *sqlparser.FuncExpr:
		if !n.Qualifier.IsEmpty() {
			return Expr{}, Refuse("calls stored function %s.%s, which is not translated", n.Qualifier.String(), n.Name.String())
		}
		return x.namedFunc(n.Name.Lowered(), n.Exprs, sc)
	case *sqlparser.CurTimeFuncExpr:
		return x.curTime(n.Name.Lowered(), n.Fsp)
	case *sqlparser.CountStar, *sqlparser.Count, *sqlparser.Sum, *sqlparser.Min, *sqlparser.Max, *sqlparser.Avg,
		*sqlparser.GroupConcatExpr:
		return x.aggregateNode(e, sc)
	case *sqlparser.SubstrExpr:
		args := []sqlparser.Expr{n.Name, n.From}
		if n.To != nil {
			args = append(args, n.To)
		}
		return x.namedFunc("substring", args, sc)
	case *sqlparser.LocateExpr:
		if n.Pos != nil {
			return Expr{}, Refuse("cannot translate LOCATE with a start position")
		}
		return x.namedFunc("instr", []sqlparser.Expr{n.Str, n.SubStr}, sc)
	case *sqlparser.TrimFuncExpr:
		return x.trim(n, sc)
	case *sqlparser.CastExpr:
		if n.Array {
			return Expr{}, Refuse("cannot translate CAST … ARRAY")
		}
		return x.cast(n.Expr, n.Type, sc)
	case *sqlparser.ConvertExpr:
		return x.cast(n.Expr, n.Type, sc)
	case *sqlparser.ConvertUsingExpr:
		if err := x.differs("cannot translate CONVERT(… USING "+n.Type+")",
			"CONVERT(… USING "+n.Type+") dropped: PostgreSQL text has the database's encoding"); err != nil {
			return Expr{}, err
		}
		return x.Expr(n.Expr, sc)
	case *sqlparser.ExtractFuncExpr:
		return x.extract(strings.ToLower(n.IntervalType.ToString()), n.Expr, sc)
	case *sqlparser.IntervalDateExpr:
		return x.interval(n, sc)
	}
	return Expr{}, Refuse("cannot translate %s (%T is not in the supported subset)", sqlparser.String(e), e)
}

// namedFunc translates a call of the MySQL function name: the few that
// take their arguments untranslated first, then those PostgreSQL has
// under the same name, then the families below.
func (x *Translator) namedFunc(name string, es []sqlparser.Expr, sc Scope) (Expr, error) {
	switch name {
	case "substring_index":
		return x.substringIndex(es, sc)
	case "date_format":
		return x.dateFormat(es, sc)
	case "year", "month", "day", "dayofmonth", "hour", "minute", "second", "quarter", "dayofyear":
		if len(es) != 1 {
			return Expr{}, Refuse("%s with %d arguments", name, len(es))
		}
		unit := map[string]string{"dayofmonth": "day", "dayofyear": "doy"}[name]
		if unit == "" {
			unit = name
		}
		return x.extract(unit, es[0], sc)
	}
	args, err := x.values(sc, es...)
	if err != nil {
		return Expr{}, err
	}
	if f, ok := sameFuncs[name]; ok {
		return x.same(name, f, args)
	}
	// The translators of the functions that differ from PostgreSQL's, by
	// family; each says whether the name is its own.
	families := [...]func(x *Translator, name string, es []sqlparser.Expr, args []Expr, sc Scope) (Expr, bool, error){
		(*Translator).controlFunc, (*Translator).stringFunc, (*Translator).numericFunc, (*Translator).temporalFunc,
	}
	for _, family := range families {
		if p, ok, err := family(x, name, es, args, sc); ok {
			return p, err
		}
	}
	if x.Routines[x.DB+"."+name] {
		return Expr{}, Refuse("calls stored function %s.%s, which is not translated", x.DB, name)
	}
	return Expr{}, Refuse("cannot translate function %s()", name)
}

// same translates a sameFuncs call: text arguments converted to text as
// MySQL does, number arguments checked.
func (x *Translator) same(name string, f sameFunc, args []Expr) (Expr, error) {
	if len(args) != len(f.args) {
		return Expr{}, Refuse("%s with %d arguments", name, len(args))
	}
	if f.charset && x.Purpose != Check && x.Purpose != Query {
		return Expr{}, Refuse("%s outside a CHECK constraint (MySQL counts the bytes of the column's charset)", name)
	}
	for i, a := range args {
		var err error
		if f.args[i] == 't' {
			args[i], err = x.AsText(a)
		} else {
			err = wantNumber(a)
		}
		if err != nil {
			return Expr{}, err
		}
	}
	res := f.res
	if res == Unknown && len(args) > 0 {
		res = args[0].Class
	}
	return pe(f.pg+"("+sqls(args)+")", res), nil
}

// wantNumber refuses a non-number where MySQL would convert it to one.
func wantNumber(a Expr) error {
	switch a.Class {
	case Int, Num, Null, Unknown:
		return nil
	}
	return Refuse("a %s argument where a number is expected", a.Class)
}

func sqls(es []Expr) string {
	s := make([]string, len(es))
	for i, e := range es {
		s[i] = e.SQL
	}
	return strings.Join(s, ", ")
}

// wantArgs refuses a call of name with other than n arguments.
func wantArgs(name string, args []Expr, n int) error {
	if len(args) != n {
		return Refuse("%s with %d arguments", name, len(args))
	}
	return nil
}
