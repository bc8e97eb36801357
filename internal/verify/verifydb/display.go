package verifydb

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/typemap"
)

// ShowLen is how many characters of a value a report shows.
const ShowLen = 64

// prefixLen is how much of a large normalised value the row diff fetches
// for display (it compares an MD5 of the whole value).
const prefixLen = 2 * ShowLen

// Display turns a normalised text back into something a person reads:
// strings without their length prefix, binary as 0x..., floats and TIME in
// their usual notation. Long values are cut to showLen characters.
func Display(kind typemap.Kind, norm []byte, null bool) string {
	if null {
		return "NULL"
	}
	s := string(norm)
	switch kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		n, rest, ok := strings.Cut(s, ":")
		if !ok {
			return Truncate(s)
		}
		total, _ := strconv.Atoi(n)
		if !utf8.ValidString(rest) {
			rest = strings.ToValidUTF8(rest, "")
		}
		if total > len(rest) || utf8.RuneCountInString(rest) > ShowLen {
			return strconv.Quote(cut(rest, ShowLen)) + fmt.Sprintf("…(%d bytes)", total)
		}
		return strconv.Quote(rest)
	case typemap.KindBinary, typemap.KindGeometry:
		if len(s) >= prefixLen {
			return "0x" + s[:ShowLen] + "…"
		}
		return "0x" + s
	case typemap.KindFloat32, typemap.KindFloat64:
		if f, err := strconv.ParseFloat(s, 64); err == nil {
			return strconv.FormatFloat(f, 'g', -1, 64)
		}
	case typemap.KindTime:
		if us, err := strconv.ParseInt(s, 10, 64); err == nil {
			return formatMicros(us)
		}
	}
	return Truncate(s)
}

// formatMicros prints signed microseconds as [-]H:MM:SS[.ffffff].
func formatMicros(us int64) string {
	sign := ""
	if us < 0 {
		sign, us = "-", -us
	}
	sec := us / 1_000_000
	frac := us % 1_000_000
	out := fmt.Sprintf("%s%02d:%02d:%02d", sign, sec/3600, sec/60%60, sec%60)
	if frac != 0 {
		out += strings.TrimRight(fmt.Sprintf(".%06d", frac), "0")
	}
	return out
}

func Truncate(s string) string {
	if utf8.RuneCountInString(s) <= ShowLen {
		return s
	}
	return cut(s, ShowLen) + "…"
}

// cut returns the first n characters of s.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}
