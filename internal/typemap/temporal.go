package typemap

import (
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
)

// civil is a MySQL DATE/DATETIME/TIMESTAMP value as written, before any
// check: MySQL allows zero and partial-zero parts PostgreSQL cannot hold.
type civil struct {
	year, month, day     int
	hour, minute, second int
	micro                int
}

// dateProblem classifies a civil value PostgreSQL cannot hold.
type dateProblem int

const (
	dateOK      dateProblem = iota
	dateZero                // zero or partial-zero: a month or day of 0
	dateInvalid             // a day past the end of its month (ALLOW_INVALID_DATES)
)

func (v civil) problem() dateProblem {
	if v.month == 0 || v.day == 0 {
		return dateZero
	}
	if v.month > 12 || v.day > daysIn(v.year, v.month) || v.hour > 23 || v.minute > 59 || v.second > 59 {
		return dateInvalid
	}
	return dateOK
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func (v civil) time() time.Time {
	return time.Date(v.year, time.Month(v.month), v.day, v.hour, v.minute, v.second, v.micro*1000, time.UTC)
}

// digits parses exactly len(b) decimal digits.
func digits(b []byte) (int, bool) {
	n := 0
	for _, ch := range b {
		d := int(ch - '0')
		if d < 0 || d > 9 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, len(b) > 0
}

// parseCivil parses "YYYY-MM-DD" optionally followed by " HH:MM:SS[.f{1,6}]"
// (or 'T' as the separator), as MySQL prints and go-mysql formats them.
func parseCivil(b []byte) (civil, bool) {
	var v civil
	if len(b) < 10 || b[4] != '-' || b[7] != '-' {
		return v, false
	}
	var ok1, ok2, ok3 bool
	v.year, ok1 = digits(b[0:4])
	v.month, ok2 = digits(b[5:7])
	v.day, ok3 = digits(b[8:10])
	if !ok1 || !ok2 || !ok3 {
		return v, false
	}
	if len(b) == 10 {
		return v, true
	}
	if len(b) < 19 || (b[10] != ' ' && b[10] != 'T') || b[13] != ':' || b[16] != ':' {
		return v, false
	}
	v.hour, ok1 = digits(b[11:13])
	v.minute, ok2 = digits(b[14:16])
	v.second, ok3 = digits(b[17:19])
	if !ok1 || !ok2 || !ok3 {
		return v, false
	}
	micro, ok := parseFraction(b[19:])
	v.micro = micro
	return v, ok
}

// parseFraction parses "" or ".f{1,6}" into microseconds.
func parseFraction(b []byte) (int, bool) {
	if len(b) == 0 {
		return 0, true
	}
	if b[0] != '.' || len(b) < 2 || len(b) > 7 {
		return 0, false
	}
	n, ok := digits(b[1:])
	for i := len(b) - 1; i < 6; i++ {
		n *= 10
	}
	return n, ok
}

// zeroDate applies Options.ZeroDate to one column; its counters are
// looked up once at compile time.
type zeroDate struct {
	fail     bool
	value    any // nil (NULL) or -infinity in the column's pgx type
	zeroN    *atomic.Int64
	invalidN *atomic.Int64
}

func newZeroDate(c *column, negInf any) (*zeroDate, error) {
	z := &zeroDate{}
	outcome := "NULL"
	switch c.m.opts.ZeroDate {
	case ZeroDateError:
		z.fail = true
		return z, nil
	case ZeroDateInfinity:
		z.value, outcome = negInf, "-infinity"
	case ZeroDateNull, "":
		if !c.col.Nullable {
			z.value, outcome = negInf, "-infinity"
		}
	default:
		return nil, c.errorf("unknown zero-date policy %q (want null, -infinity or error)", c.m.opts.ZeroDate)
	}
	z.zeroN = c.counter("zero-date→" + outcome)
	z.invalidN = c.counter("invalid-date→" + outcome)
	return z, nil
}

func (z *zeroDate) apply(c *column, p dateProblem, raw []byte) (any, error) {
	if z.fail {
		what := "zero date"
		if p == dateInvalid {
			what = "invalid date"
		}
		return nil, c.errorf("%s %q cannot be stored in PostgreSQL (--zero-date=error; use null or -infinity to convert it)", what, raw)
	}
	if p == dateInvalid {
		z.invalidN.Add(1)
	} else {
		z.zeroN.Add(1)
	}
	return z.value, nil
}

// buildDateLike converts DATE, DATETIME and TIMESTAMP. Both paths hand over
// the same text form: MySQL text is in the session time zone (+00:00), and
// go-mysql formats TIMESTAMP in TimestampStringLocation (UTC).
func buildDateLike(c *column, t target) (convs, error) {
	var wrap func(time.Time) any
	var negInf any
	switch t.kind {
	case KindDate:
		wrap = func(x time.Time) any { return pgtype.Date{Time: x, Valid: true} }
		negInf = pgtype.Date{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	case KindDateTime:
		wrap = func(x time.Time) any { return pgtype.Timestamp{Time: x, Valid: true} }
		negInf = pgtype.Timestamp{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	default:
		wrap = func(x time.Time) any { return pgtype.Timestamptz{Time: x, Valid: true} }
		negInf = pgtype.Timestamptz{InfinityModifier: pgtype.NegativeInfinity, Valid: true}
	}
	z, err := newZeroDate(c, negInf)
	if err != nil {
		return convs{}, err
	}
	dateOnly := t.kind == KindDate
	conv := func(b []byte) (any, error) {
		v, ok := parseCivil(b)
		if !ok || (dateOnly && len(b) != 10) {
			return nil, c.errorf("invalid %s value %q", t.kind, b)
		}
		if p := v.problem(); p != dateOK {
			return z.apply(c, p, b)
		}
		return wrap(v.time()), nil
	}
	return convs{
		text: conv,
		binlog: func(v any) (any, error) {
			if b, ok := bytesOf(v); ok {
				return conv(b)
			}
			switch x := v.(type) {
			case time.Time: // a syncer with ParseTime=true
				if t.kind == KindTimestamp {
					return wrap(x.UTC()), nil
				}
				y, mo, d := x.Date()
				return wrap(time.Date(y, mo, d, x.Hour(), x.Minute(), x.Second(), x.Nanosecond(), time.UTC)), nil
			}
			return nil, c.unexpected(v)
		},
	}, nil
}

// maxTimeMicros is TIME's range, ±838:59:59.999999 (MySQL stops at .000000).
const maxTimeMicros = (838*3600+59*60+59)*1_000_000 + 999_999

// buildTime converts TIME, a signed duration, into interval microseconds.
func buildTime(c *column, _ target) (convs, error) {
	conv := func(b []byte) (any, error) {
		us, ok := parseDuration(b)
		if !ok || us > maxTimeMicros || us < -maxTimeMicros {
			return nil, c.errorf("invalid TIME value %q", b)
		}
		return pgtype.Interval{Microseconds: us, Valid: true}, nil
	}
	return convs{
		text:   conv,
		binlog: c.binlogAsText(conv),
	}, nil
}

// parseDuration parses "[-]H+:MM:SS[.f{1,6}]" into microseconds.
func parseDuration(b []byte) (int64, bool) {
	neg := len(b) > 0 && b[0] == '-'
	if neg {
		b = b[1:]
	}
	colon := -1
	for i, ch := range b {
		if ch == ':' {
			colon = i
			break
		}
	}
	if colon < 1 || len(b) < colon+6 || b[colon+3] != ':' {
		return 0, false
	}
	h, ok1 := digits(b[:colon])
	m, ok2 := digits(b[colon+1 : colon+3])
	s, ok3 := digits(b[colon+4 : colon+6])
	micro, ok4 := parseFraction(b[colon+6:])
	if !ok1 || !ok2 || !ok3 || !ok4 || m > 59 || s > 59 {
		return 0, false
	}
	us := (int64(h)*3600+int64(m)*60+int64(s))*1_000_000 + int64(micro)
	if neg {
		us = -us
	}
	return us, true
}
