package verify

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/typemap"
)

// showLen is how many characters of a value a report shows.
const showLen = 64

// prefixLen is how much of a large normalised value the row diff fetches
// for display (it compares an MD5 of the whole value).
const prefixLen = 2 * showLen

// display turns a normalised text back into something a person reads:
// strings without their length prefix, binary as 0x..., floats and TIME in
// their usual notation. Long values are cut to showLen characters.
func display(kind typemap.Kind, norm []byte, null bool) string {
	if null {
		return "NULL"
	}
	s := string(norm)
	switch kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		n, rest, ok := strings.Cut(s, ":")
		if !ok {
			return truncate(s)
		}
		total, _ := strconv.Atoi(n)
		if !utf8.ValidString(rest) {
			rest = strings.ToValidUTF8(rest, "")
		}
		if total > len(rest) || utf8.RuneCountInString(rest) > showLen {
			return strconv.Quote(cut(rest, showLen)) + fmt.Sprintf("…(%d bytes)", total)
		}
		return strconv.Quote(rest)
	case typemap.KindBinary, typemap.KindGeometry:
		if len(s) >= prefixLen {
			return "0x" + s[:showLen] + "…"
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
	return truncate(s)
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

func truncate(s string) string {
	if utf8.RuneCountInString(s) <= showLen {
		return s
	}
	return cut(s, showLen) + "…"
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
