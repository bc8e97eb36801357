package sqlexpr

import (
	"strconv"

	"vitess.io/vitess/go/vt/sqlparser"
)

// curTime translates the current date and time functions to zone-less
// PostgreSQL values, as MySQL returns them in the session's time zone.
// They are not deterministic: only a reviewed query takes them (an
// expression default of one keeps ddl's own rules for CURRENT_TIMESTAMP).
func (x *Translator) curTime(name string, fsp int) (Expr, error) {
	if x.Purpose != Query {
		return Expr{}, Refuse("cannot translate function %s()", name)
	}
	p := "(" + strconv.Itoa(fsp) + ")"
	switch name {
	case "now", "current_timestamp", "localtime", "localtimestamp", "sysdate":
		return pe("LOCALTIMESTAMP"+p, DateTime), nil
	case "utc_timestamp":
		return pe("(now() AT TIME ZONE 'UTC')::timestamp"+p, DateTime), nil
	case "curtime", "current_time":
		return pe("LOCALTIME"+p, Time), nil
	case "utc_time":
		return pe("(now() AT TIME ZONE 'UTC')::time"+p, Time), nil
	case "curdate", "current_date":
		return pe("CURRENT_DATE", Date), nil
	case "utc_date":
		return pe("(now() AT TIME ZONE 'UTC')::date", Date), nil
	}
	return Expr{}, Refuse("cannot translate function %s()", name)
}

// zoneless checks the argument of a date function: a DATE or DATETIME.
// A TIMESTAMP depends on the session time zone in both databases (and is
// not IMMUTABLE in PostgreSQL), text is read by PostgreSQL's DateStyle:
// only a reviewed query takes them, with a note for a TIMESTAMP.
func (x *Translator) zoneless(a Expr) error {
	switch {
	case a.Class == Date || a.Class == DateTime && (a.Col == nil || !a.Col.TZ):
		return nil
	case x.Purpose == Query:
		if a.Col != nil && a.Col.TZ {
			x.Note("a TIMESTAMP column is timestamptz on the target: its parts are taken in the PostgreSQL session's time zone")
		}
		return nil
	case a.Col != nil && a.Col.TZ:
		return Refuse("date function of a timestamp column (its value depends on the session time zone)")
	}
	return Refuse("date function of a %s value (only DATE and DATETIME values)", a.Class)
}

// timestampArg is a checked date function argument where PostgreSQL wants
// a timestamp: text is cast (a reviewed query only, see zoneless).
func (x *Translator) timestampArg(a Expr) (string, error) {
	if err := x.zoneless(a); err != nil {
		return "", err
	}
	if a.Class == Text {
		return "(" + a.SQL + ")::timestamp", nil
	}
	return a.SQL, nil
}

var extractUnits = map[string]string{"year": "YEAR", "month": "MONTH", "day": "DAY", "hour": "HOUR",
	"minute": "MINUTE", "second": "SECOND", "quarter": "QUARTER", "doy": "DOY", "microsecond": "MICROSECONDS"}

func (x *Translator) extract(unit string, e sqlparser.Expr, sc Scope) (Expr, error) {
	u := extractUnits[unit]
	if u == "" {
		return Expr{}, Refuse("cannot translate date part %s", unit)
	}
	a, err := x.Value(e, sc)
	if err != nil {
		return Expr{}, err
	}
	arg, err := x.timestampArg(a)
	if err != nil {
		return Expr{}, err
	}
	switch u {
	case "HOUR", "MINUTE", "SECOND", "MICROSECONDS":
		if a.Class == Date { // PostgreSQL has no time units for a date, MySQL's are 0
			arg = "(" + arg + ")::timestamp"
		}
	}
	switch u {
	case "SECOND": // PostgreSQL includes the fraction, MySQL does not
		return pe("floor(EXTRACT(SECOND FROM "+arg+"))::integer", Int), nil
	case "MICROSECONDS":
		return pe("(EXTRACT(MICROSECONDS FROM "+arg+")::integer % 1000000)", Int), nil
	}
	return pe("EXTRACT("+u+" FROM "+arg+")::integer", Int), nil
}

// toChar is to_char(d, format): STABLE in PostgreSQL, so not for a
// generated column or an index.
func (x *Translator) toChar(a Expr, format string) (Expr, error) {
	if x.immutable() {
		return Expr{}, Refuse("names and formatted dates in a generated column or index (to_char is not IMMUTABLE in PostgreSQL)")
	}
	arg, err := x.timestampArg(a)
	if err != nil {
		return Expr{}, err
	}
	return pe("to_char("+arg+", "+QuotePG(format)+")", Text), nil
}

func (x *Translator) dateFormat(es []sqlparser.Expr, sc Scope) (Expr, error) {
	if len(es) != 2 {
		return Expr{}, Refuse("date_format with %d arguments", len(es))
	}
	lit, ok := es[1].(*sqlparser.Literal)
	if !ok || lit.Type != sqlparser.StrVal {
		return Expr{}, Refuse("date_format with a format that is not a constant")
	}
	f, err := ToCharFormat(lit.Val)
	if err != nil {
		return Expr{}, err
	}
	a, err := x.Value(es[0], sc)
	if err != nil {
		return Expr{}, err
	}
	return x.toChar(a, f)
}

var intervalUnits = map[sqlparser.IntervalType]string{
	sqlparser.IntervalMicrosecond: "microseconds", sqlparser.IntervalSecond: "seconds",
	sqlparser.IntervalMinute: "minutes", sqlparser.IntervalHour: "hours", sqlparser.IntervalDay: "days",
	sqlparser.IntervalWeek: "weeks", sqlparser.IntervalMonth: "months", sqlparser.IntervalQuarter: "quarter",
	sqlparser.IntervalYear: "years",
}

// interval translates DATE_ADD/DATE_SUB and date ± INTERVAL n unit. A DATE
// plus days, weeks, months or years stays a DATE as in MySQL.
func (x *Translator) interval(n *sqlparser.IntervalDateExpr, sc Scope) (Expr, error) {
	if n.Syntax == sqlparser.IntervalDateExprTimestampadd {
		return Expr{}, Refuse("cannot translate TIMESTAMPADD")
	}
	unit := n.NormalizedUnit()
	u, ok := intervalUnits[unit]
	if !ok {
		return Expr{}, Refuse("cannot translate INTERVAL unit %s", unit.ToString())
	}
	vs, err := x.values(sc, n.Date, n.Interval)
	if err != nil {
		return Expr{}, err
	}
	d, v := vs[0], vs[1]
	if err := x.zoneless(d); err != nil {
		return Expr{}, err
	}
	if err := wantNumber(v); err != nil {
		return Expr{}, err
	}
	if u == "quarter" {
		u, v = "months", pe("(3 * "+v.SQL+")", Int)
	}
	op := " + "
	if n.IsSubtraction() {
		op = " - "
	}
	if d.Class == Text {
		d = pe("("+d.SQL+")::timestamp", DateTime)
	}
	out := "(" + d.SQL + op + "(" + v.SQL + ") * interval '1 " + u + "')"
	cls := DateTime
	if d.Class == Date {
		switch unit {
		case sqlparser.IntervalDay, sqlparser.IntervalWeek, sqlparser.IntervalMonth, sqlparser.IntervalQuarter, sqlparser.IntervalYear:
			out, cls = "("+out+")::date", Date
		}
	}
	if d.Col != nil && d.Col.TZ {
		cls = Other
	}
	return pe(out, cls), nil
}
