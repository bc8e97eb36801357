package sqlexpr

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// aggregateNode translates COUNT, SUM, MIN, MAX, AVG and GROUP_CONCAT,
// which only a query has.
func (x *Translator) aggregateNode(e sqlparser.Expr, sc Scope) (Expr, error) {
	if x.Purpose != Query {
		return Expr{}, Refuse("cannot translate aggregate %s", sqlparser.String(e))
	}
	if w, ok := e.(interface{ GetOverClause() *sqlparser.OverClause }); ok && w.GetOverClause() != nil {
		return Expr{}, Refuse("cannot translate window function %s", sqlparser.String(e))
	}
	switch n := e.(type) {
	case *sqlparser.CountStar:
		return pe("count(*)", Int), nil
	case *sqlparser.Count:
		if len(n.Args) != 1 {
			return Expr{}, Refuse("COUNT with %d arguments", len(n.Args))
		}
		return x.aggregate("count", n.Distinct, n.Args[0], Int, sc)
	case *sqlparser.Sum:
		return x.aggregate("sum", n.Distinct, n.Arg, Num, sc)
	case *sqlparser.Min:
		return x.aggregate("min", n.Distinct, n.Arg, Unknown, sc)
	case *sqlparser.Max:
		return x.aggregate("max", n.Distinct, n.Arg, Unknown, sc)
	case *sqlparser.Avg:
		return x.avg(n, sc)
	case *sqlparser.GroupConcatExpr:
		return x.groupConcat(n, sc)
	}
	return Expr{}, Refuse("cannot translate %s", sqlparser.String(e))
}

// aggregate translates COUNT, SUM, MIN and MAX, which PostgreSQL spells alike.
func (x *Translator) aggregate(fn string, distinct bool, arg sqlparser.Expr, res Class, sc Scope) (Expr, error) {
	a, err := x.Value(arg, sc)
	if err != nil {
		return Expr{}, err
	}
	if res == Unknown {
		res = a.Class
		if fn == "min" || fn == "max" {
			_ = x.TextCompare(a) // a note: queries only
		}
	}
	if fn == "sum" && a.Class == Int {
		res = Int
	}
	d := ""
	if distinct {
		d = "DISTINCT "
		_ = x.TextCompare(a)
	}
	return Expr{SQL: fn + "(" + d + a.SQL + ")", Class: res}, nil
}

// avg keeps MySQL's scale: an integer's average has 4 decimals, a
// DECIMAL(p,s)'s s+4 (div_precision_increment).
func (x *Translator) avg(n *sqlparser.Avg, sc Scope) (Expr, error) {
	a, err := x.aggregate("avg", n.Distinct, n.Arg, Num, sc)
	if err != nil {
		return Expr{}, err
	}
	arg, _ := x.Value(n.Arg, sc)
	switch {
	case arg.Class == Int:
		return pe("round("+a.SQL+", 4)", Num), nil
	case arg.Col != nil && arg.Col.Scale >= 0:
		return pe("round("+a.SQL+", "+strconv.Itoa(arg.Col.Scale+4)+")", Num), nil
	}
	x.Note("AVG of a FLOAT/DOUBLE or an expression: the result's precision may differ")
	return a, nil
}

// groupConcat becomes string_agg: like GROUP_CONCAT it skips NULLs, and
// several expressions are concatenated with || so a row with a NULL in any
// of them is skipped too.
func (x *Translator) groupConcat(n *sqlparser.GroupConcatExpr, sc Scope) (Expr, error) {
	if n.Limit != nil {
		return Expr{}, Refuse("cannot translate GROUP_CONCAT … LIMIT")
	}
	args, err := x.values(sc, n.Exprs...)
	if err != nil {
		return Expr{}, err
	}
	parts, err := x.texts(args)
	if err != nil {
		return Expr{}, err
	}
	sep := ","
	if n.Separator != "" {
		s, err := unquoteMySQL(n.Separator)
		if err != nil {
			return Expr{}, err
		}
		sep = s
	}
	d := ""
	if n.Distinct {
		d = "DISTINCT "
	}
	out := "string_agg(" + d + strings.Join(parts, " || ") + ", " + QuotePG(sep)
	if len(n.OrderBy) > 0 {
		o, err := x.OrderBy(n.OrderBy, sc)
		if err != nil {
			return Expr{}, err
		}
		out += " ORDER BY " + o
	}
	x.Note("GROUP_CONCAT truncates at group_concat_max_len on MySQL; string_agg does not")
	return pe(out+")", Text), nil
}

// OrderBy translates an ORDER BY list with MySQL's NULL ordering: first
// when ascending, last when descending.
func (x *Translator) OrderBy(ob sqlparser.OrderBy, sc Scope) (string, error) {
	var parts []string
	for _, o := range ob {
		e, err := x.Expr(o.Expr, sc)
		if err != nil {
			return "", err
		}
		if o.Direction == sqlparser.DescOrder {
			parts = append(parts, e.SQL+" DESC NULLS LAST")
		} else {
			parts = append(parts, e.SQL+" NULLS FIRST")
		}
	}
	return strings.Join(parts, ", "), nil
}

// unquoteMySQL reads a MySQL string literal as the parser prints it.
func unquoteMySQL(s string) (string, error) {
	if len(s) < 2 || (s[0] != '\'' && s[0] != '"') || s[len(s)-1] != s[0] {
		return "", Refuse("cannot translate string %s", s)
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
