package ddl

import (
	"strconv"

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
// or minus a whole number of one unit" — DEFAULT (CURRENT_TIMESTAMP +
// INTERVAL 1 DAY), DEFAULT (curdate() + INTERVAL 7 DAY), as MariaDB prints
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
	if !isLit || lit.Type != sqlparser.IntVal {
		return "", false
	}
	count, err := strconv.ParseInt(lit.Val, 10, 64)
	u, known := intervalUnits[n.NormalizedUnit()]
	if err != nil || !known {
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
		if kind != typemap.KindDate || len(base.Exprs) != 0 || (u.unit != "days" && u.unit != "months" && u.unit != "years") {
			return "", false
		}
		now = "CURRENT_DATE"
	default:
		return "", false
	}
	op := " + "
	if n.IsSubtraction() {
		op = " - "
	}
	x := "(" + now + op + "interval '" + strconv.FormatInt(count*u.mul, 10) + " " + u.unit + "')"
	if now == "CURRENT_DATE" {
		x += "::date" // date + interval is a timestamp
	}
	return x, true
}
