package objects

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"
)

// curTime translates the current date and time functions to zone-less
// PostgreSQL values, as MySQL returns them in the session's time zone.
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

// timestampArg makes text usable where PostgreSQL wants a timestamp.
func (x *xlate) timestampArg(a pexpr) string {
	if a.col != nil && a.col.tz {
		x.note("a TIMESTAMP column is timestamptz on the target: its parts are taken in the PostgreSQL session's time zone")
	}
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
	arg := x.timestampArg(a)
	switch u {
	case "SECOND": // PostgreSQL includes the fraction, MySQL does not
		return pe("floor(EXTRACT(SECOND FROM "+arg+"))::integer", cInt), nil
	case "MICROSECONDS":
		return pe("(EXTRACT(MICROSECONDS FROM "+arg+")::integer % 1000000)", cInt), nil
	}
	return pe("EXTRACT("+u+" FROM "+arg+")::integer", cInt), nil
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
	return pe("to_char("+x.timestampArg(a)+", "+quotePG(f)+")", cText), nil
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
