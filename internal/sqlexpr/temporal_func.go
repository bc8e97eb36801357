package sqlexpr

import (
	"vitess.io/vitess/go/vt/sqlparser"
)

// temporalFunc translates the date and time functions; ok is false for
// a name of another family.
func (x *Translator) temporalFunc(name string, es []sqlparser.Expr, args []Expr, _ Scope) (Expr, bool, error) {
	switch name {
	case "curdate", "current_date", "utc_date", "now", "curtime", "sysdate":
		if len(args) > 1 {
			return Expr{}, true, Refuse("%s with %d arguments", name, len(args))
		}
		fsp := 0
		if len(es) == 1 {
			n, ok := intLiteral(es[0])
			if !ok {
				return Expr{}, true, Refuse("%s with a non-constant precision", name)
			}
			fsp = n
		}
		p, err := x.curTime(name, fsp)
		return p, true, err
	case "date", "datediff", "to_days", "last_day", "dayname", "monthname", "dayofweek", "weekday":
	default:
		return Expr{}, false, nil
	}
	n := map[string]int{"datediff": 2}[name]
	if n == 0 {
		n = 1
	}
	if err := wantArgs(name, args, n); err != nil {
		return Expr{}, true, err
	}
	for _, a := range args {
		if err := x.zoneless(a); err != nil {
			return Expr{}, true, err
		}
	}
	p, err := x.dateFunc(name, args)
	return p, true, err
}

// dateFunc translates the date functions of checked arguments.
func (x *Translator) dateFunc(name string, args []Expr) (Expr, error) {
	a := args[0].SQL
	switch name {
	case "date":
		return pe("("+a+")::date", Date), nil
	case "datediff":
		return pe("(("+a+")::date - ("+args[1].SQL+")::date)", Int), nil
	case "to_days": // MariaDB stores DATEDIFF(a, b) as to_days(a) - to_days(b)
		return pe("(("+a+")::date - DATE '0001-01-01' + 366)", Int), nil
	case "last_day":
		if x.immutable() {
			return Expr{}, Refuse("last_day in a generated column or index (date_trunc of a date is not IMMUTABLE in PostgreSQL)")
		}
		return pe("(date_trunc('month', "+a+") + interval '1 month - 1 day')::date", Date), nil
	case "dayname":
		return x.toChar(args[0], "FMDay")
	case "monthname":
		return x.toChar(args[0], "FMMonth")
	}
	ts, err := x.timestampArg(args[0])
	if err != nil {
		return Expr{}, err
	}
	if name == "dayofweek" {
		return pe("(EXTRACT(DOW FROM "+ts+")::integer + 1)", Int), nil
	}
	return pe("(EXTRACT(ISODOW FROM "+ts+")::integer - 1)", Int), nil // weekday
}
