package objects

import (
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"
)

// aggregate translates COUNT, SUM, MIN and MAX, which PostgreSQL spells alike.
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
