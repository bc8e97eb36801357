package sqlexpr

import "strings"

// dateFormatCodes maps DATE_FORMAT specifiers to to_char patterns (English
// names, as MySQL's default lc_time_names). FM drops the zero padding of
// the next pattern only.
var dateFormatCodes = map[byte]string{
	'a': "Dy", 'b': "Mon", 'c': "FMMM", 'D': "FMDDth", 'd': "DD", 'e': "FMDD", 'f': "US",
	'H': "HH24", 'h': "HH12", 'I': "HH12", 'i': "MI", 'j': "DDD", 'k': "FMHH24", 'l': "FMHH12",
	'M': "FMMonth", 'm': "MM", 'p': "AM", 'r': "HH12:MI:SS AM", 'S': "SS", 's': "SS",
	'T': "HH24:MI:SS", 'v': "IW", 'W': "FMDay", 'x': "IYYY", 'Y': "YYYY", 'y': "YY",
}

// ToCharFormat translates a DATE_FORMAT format to a to_char format. Text
// between specifiers is double-quoted so to_char does not read it as
// patterns. Week numbers other than ISO ones have no to_char pattern.
func ToCharFormat(f string) (string, error) {
	var out, lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			s := strings.ReplaceAll(lit.String(), `\`, `\\`)
			out.WriteString(`"` + strings.ReplaceAll(s, `"`, `\"`) + `"`)
			lit.Reset()
		}
	}
	for i := 0; i < len(f); i++ {
		if f[i] != '%' || i+1 == len(f) {
			lit.WriteByte(f[i])
			continue
		}
		i++
		c := f[i]
		if p, ok := dateFormatCodes[c]; ok {
			flush()
			out.WriteString(p)
			continue
		}
		switch c {
		case 'U', 'u', 'V', 'X', 'w':
			return "", Refuse("DATE_FORMAT %%%c has no to_char pattern", c)
		}
		lit.WriteByte(c) // %% and unknown specifiers print the character
	}
	flush()
	return out.String(), nil
}
