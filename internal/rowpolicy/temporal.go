package rowpolicy

import (
	"fmt"
	"regexp"
	"strings"
)

// A DATE or DATETIME value compares as its canonical text
// "YYYY-MM-DD HH:MM:SS.ffffff": fixed width, so byte order is time order
// (zero dates included), and a DATE equals the DATETIME at its midnight, as
// MySQL compares a DATE column with a DATETIME literal.
var temporalRE = regexp.MustCompile(`^(\d{4})-(\d{2})-(\d{2})(?:[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,6}))?)?$`)

func canonicalTime(s string) (string, error) {
	m := temporalRE.FindStringSubmatch(strings.TrimSpace(s))
	if m == nil {
		return "", fmt.Errorf("%q is not a date or datetime as YYYY-MM-DD[ HH:MM:SS[.ffffff]]", s)
	}
	h, mi, se := m[4], m[5], m[6]
	if h == "" {
		h, mi, se = "00", "00", "00"
	}
	frac := m[7] + strings.Repeat("0", 6-len(m[7]))
	return fmt.Sprintf("%s-%s-%s %s:%s:%s.%s", m[1], m[2], m[3], h, mi, se, frac), nil
}
