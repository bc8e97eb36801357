package pgoutput

import (
	"fmt"
	"math/big"
	"strconv"
	"strings"
)

// dateText checks an ISO date (YYYY-MM-DD) for MySQL's range. -infinity is
// what the forward stream made of a zero date in a NOT NULL column
// (--zero-date), so it becomes the zero date again.
func dateText(b []byte, zero string) (any, error) {
	s := string(b)
	switch {
	case s == "-infinity":
		return zero, nil
	case s == "infinity" || strings.HasSuffix(s, " BC"):
		return nil, bad("date %s is outside MySQL's range (0000-01-01..9999-12-31)", s)
	}
	y, _, ok := strings.Cut(s, "-")
	if !ok || len(y) != 4 {
		return nil, bad("date %s is outside MySQL's range (0000-01-01..9999-12-31)", s)
	}
	return s, nil
}

// datetimeText checks a timestamp's ISO text; tz strips the +00 of a
// timestamptz (the session is UTC) and checks TIMESTAMP's range.
func datetimeText(b []byte, frac int, tz bool) (any, error) {
	s := string(b)
	if tz {
		if s == "-infinity" {
			return "0000-00-00 00:00:00", nil
		}
		if !strings.HasSuffix(s, "+00") {
			return nil, bad("timestamp %s is not in UTC (the replication session's TimeZone)", s)
		}
		s = strings.TrimSuffix(s, "+00")
	}
	d, t, ok := strings.Cut(s, " ")
	if !ok {
		if s == "-infinity" {
			return "0000-00-00 00:00:00", nil
		}
		return nil, bad("datetime %s is outside MySQL's range", s)
	}
	if _, err := dateText([]byte(d), ""); err != nil {
		return nil, bad("datetime %s is outside MySQL's range (year 0000..9999)", s)
	}
	if _, f, ok := strings.Cut(t, "."); ok && len(strings.TrimRight(f, "0")) > frac {
		return nil, bad("datetime %s has more fractional digits than the column's %d (MySQL would round it)", s, frac)
	}
	if tz && (s < "1970-01-01 00:00:01" || s > "2038-01-19 03:14:07.999999") {
		return nil, bad("timestamp %s is outside TIMESTAMP's range (1970-01-01 00:00:01..2038-01-19 03:14:07 UTC)", s)
	}
	return s, nil
}

// timeText turns an interval (IntervalStyle postgres: "[N day[s]] [-]HH:MM:SS[.f]")
// into MySQL TIME text, within ±838:59:59.
func timeText(b []byte, frac int) (any, error) {
	s := string(b)
	var micros big.Int
	fields := strings.Fields(s)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if strings.Contains(f, ":") {
			neg := strings.HasPrefix(f, "-")
			f = strings.TrimLeft(f, "+-")
			parts := strings.Split(f, ":")
			if len(parts) != 3 {
				return nil, bad("interval %s is not a TIME value", s)
			}
			h, e1 := strconv.ParseInt(parts[0], 10, 64)
			m, e2 := strconv.ParseInt(parts[1], 10, 64)
			sec, fr, _ := strings.Cut(parts[2], ".")
			sv, e3 := strconv.ParseInt(sec, 10, 64)
			if e1 != nil || e2 != nil || e3 != nil || len(fr) > 6 {
				return nil, bad("interval %s is not a TIME value", s)
			}
			us, _ := strconv.ParseInt((fr + "000000")[:6], 10, 64)
			if len(strings.TrimRight(fr, "0")) > frac {
				return nil, bad("interval %s has more fractional digits than the column's %d", s, frac)
			}
			v := ((h*60+m)*60+sv)*1_000_000 + us
			if neg {
				v = -v
			}
			micros.Add(&micros, big.NewInt(v))
			continue
		}
		if i+1 >= len(fields) {
			return nil, bad("interval %s is not a TIME value", s)
		}
		n, err := strconv.ParseInt(f, 10, 64)
		unit := strings.TrimSuffix(fields[i+1], "s")
		i++
		if err != nil || unit != "day" {
			return nil, bad("interval %s has years or months: not a TIME value", s)
		}
		micros.Add(&micros, big.NewInt(n*86400_000_000))
	}
	const limit = 838*3600_000_000 + 59*60_000_000 + 59*1_000_000
	if !micros.IsInt64() || micros.Int64() > limit || micros.Int64() < -limit {
		return nil, bad("interval %s is outside TIME's range (-838:59:59..838:59:59)", s)
	}
	v := micros.Int64()
	sign := ""
	if v < 0 {
		sign, v = "-", -v
	}
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, v/3600_000_000, v/60_000_000%60, v/1_000_000%60)
	if us := v % 1_000_000; us != 0 || frac > 0 {
		out += "." + fmt.Sprintf("%06d", us)[:max(frac, 1)]
	}
	return out, nil
}
