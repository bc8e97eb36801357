package ddl

import (
	"regexp"
	"strconv"
	"strings"

	"vitess.io/vitess/go/vt/sqlparser"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// intervalUnits are the single-field MySQL interval units PostgreSQL's
// interval input reads the same way ('3 quarter' is not one: months).
var intervalUnits = map[sqlparser.IntervalType]struct {
	unit string
	mul  int64
}{
	sqlparser.IntervalMicrosecond: {"microseconds", 1}, sqlparser.IntervalSecond: {"seconds", 1},
	sqlparser.IntervalMinute: {"minutes", 1}, sqlparser.IntervalHour: {"hours", 1},
	sqlparser.IntervalDay: {"days", 1}, sqlparser.IntervalWeek: {"days", 7},
	sqlparser.IntervalMonth: {"months", 1}, sqlparser.IntervalQuarter: {"months", 3},
	sqlparser.IntervalYear: {"years", 1},
}

// intervalDefault translates the expiry-style default "now (or today) plus
// or minus a whole number of one unit, or a compound-unit string" — DEFAULT
// (CURRENT_TIMESTAMP + INTERVAL 1 DAY), (now() + INTERVAL '1:30' HOUR_MINUTE), DEFAULT (curdate() + INTERVAL 7 DAY), as MariaDB prints
// them in information_schema and as MySQL prints them in parentheses with
// now(). The current time is the column's own (LOCALTIMESTAMP for DATETIME,
// CURRENT_TIMESTAMP for TIMESTAMP, CURRENT_DATE for DATE), as for a plain
// CURRENT_TIMESTAMP default; month arithmetic clamps to the month's last day
// in both databases. ok is false for any other expression.
func intervalDefault(d string, kind typemap.Kind) (string, bool) {
	e, err := schema.ParseExpr(d)
	if err != nil {
		return "", false
	}
	n, isInterval := e.(*sqlparser.IntervalDateExpr)
	if !isInterval || n.Syntax == sqlparser.IntervalDateExprTimestampadd {
		return "", false
	}
	lit, isLit := n.Interval.(*sqlparser.Literal)
	if !isLit {
		return "", false
	}
	var amount string // PostgreSQL interval input, without sign
	negative := n.IsSubtraction()
	dateOnly := true // only days, months and years: a DATE stays a DATE
	switch lit.Type {
	case sqlparser.IntVal:
		count, err := strconv.ParseInt(lit.Val, 10, 64)
		u, known := intervalUnits[n.NormalizedUnit()]
		if err != nil || !known {
			return "", false
		}
		amount = strconv.FormatInt(count*u.mul, 10) + " " + u.unit
		dateOnly = u.unit == "days" || u.unit == "months" || u.unit == "years"
	case sqlparser.StrVal:
		fields, neg, ok := compoundInterval(lit.Val, n.NormalizedUnit())
		if !ok {
			return "", false
		}
		amount, dateOnly = fields, n.NormalizedUnit() == sqlparser.IntervalYearMonth
		negative = negative != neg
	default:
		return "", false
	}
	var now string
	switch base := n.Date.(type) {
	case *sqlparser.CurTimeFuncExpr:
		switch base.Name.Lowered() {
		case "current_timestamp", "now", "localtime", "localtimestamp":
		default:
			return "", false
		}
		switch kind {
		case typemap.KindDateTime:
			now = "LOCALTIMESTAMP"
		case typemap.KindTimestamp:
			now = "CURRENT_TIMESTAMP"
		default:
			return "", false
		}
	case *sqlparser.FuncExpr:
		switch base.Name.Lowered() {
		case "curdate", "current_date":
		default:
			return "", false
		}
		if kind != typemap.KindDate || len(base.Exprs) != 0 || !dateOnly {
			return "", false
		}
		now = "CURRENT_DATE"
	default:
		return "", false
	}
	op := " + "
	if negative {
		op = " - "
	}
	x := "(" + now + op + "interval '" + amount + "')"
	if now == "CURRENT_DATE" {
		x += "::date" // date + interval is a timestamp
	}
	return x, true
}

// compoundUnits are the fields of MySQL's compound interval units, largest
// first, as PostgreSQL interval input names them.
var compoundUnits = map[sqlparser.IntervalType][]string{
	sqlparser.IntervalYearMonth:         {"years", "months"},
	sqlparser.IntervalDayHour:           {"days", "hours"},
	sqlparser.IntervalDayMinute:         {"days", "hours", "minutes"},
	sqlparser.IntervalDaySecond:         {"days", "hours", "minutes", "seconds"},
	sqlparser.IntervalDayMicrosecond:    {"days", "hours", "minutes", "seconds", "microseconds"},
	sqlparser.IntervalHourMinute:        {"hours", "minutes"},
	sqlparser.IntervalHourSecond:        {"hours", "minutes", "seconds"},
	sqlparser.IntervalHourMicrosecond:   {"hours", "minutes", "seconds", "microseconds"},
	sqlparser.IntervalMinuteSecond:      {"minutes", "seconds"},
	sqlparser.IntervalMinuteMicrosecond: {"minutes", "seconds", "microseconds"},
	sqlparser.IntervalSecondMicrosecond: {"seconds", "microseconds"},
}

// compoundValue is the interval strings compoundInterval reads: an optional
// minus, then up to five groups of digits with the usual separators.
// Anything else (MySQL reads any non-digit as a separator, and MariaDB and
// MySQL differ on microsecond groups over six digits) stays untranslated.
var compoundValue = regexp.MustCompile(`^-?[0-9]{1,9}(?:[-:. ][0-9]{1,9}){0,4}$`)

// compoundInterval reads a compound-unit interval string as MySQL does
// (get_interval_info): groups of digits fill the unit's fields from the
// right when there are fewer of them ('1:30' DAY_SECOND is 1 minute 30
// seconds), a leading minus negates the whole, and a microsecond field is
// the digits as a fraction of a second ('1.5' SECOND_MICROSECOND is 1.5 s,
// '5' alone in it 0.5 s). It returns the PostgreSQL interval input with
// every field positive and whether the interval is negative.
func compoundInterval(v string, unit sqlparser.IntervalType) (string, bool, bool) {
	fields, known := compoundUnits[unit]
	if !known || !compoundValue.MatchString(v) {
		return "", false, false
	}
	neg := strings.HasPrefix(v, "-")
	groups := strings.FieldsFunc(strings.TrimPrefix(v, "-"), func(r rune) bool { return r < '0' || r > '9' })
	if len(groups) > len(fields) {
		return "", false, false
	}
	last := groups[len(groups)-1]
	if fields[len(fields)-1] == "microseconds" {
		if len(last) > 6 {
			return "", false, false
		}
		last += strings.Repeat("0", 6-len(last))
	}
	groups[len(groups)-1] = last
	fields = fields[len(fields)-len(groups):]
	parts := make([]string, len(groups))
	for i, g := range groups {
		n, err := strconv.ParseInt(g, 10, 64)
		if err != nil {
			return "", false, false
		}
		parts[i] = strconv.FormatInt(n, 10) + " " + fields[i]
	}
	return strings.Join(parts, " "), neg, true
}
