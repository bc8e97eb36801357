package typemap

import (
	"math"
	"strconv"
	"strings"
)

// MySQL's binary JSON stores numbers as DOUBLE, INT64, UINT64 or DECIMAL.
// The snapshot reads documents as MySQL prints them (1.5e300, 100.0, 1e15);
// go-mysql renders a DOUBLE of the binlog differently: a whole number as its
// exact binary expansion ("15000000000000000787571403828066303730567028716622
// ...0.0" for 1.5e300) and other values with Go's 'g' format (1.5e-05).
// jsonb keeps numbers as exact decimals, so the replicated copy of a document
// would hold another number than the snapshot's copy of the same document.
// mysqlJSONDoubles re-renders the doubles of go-mysql's text the way MySQL
// prints them, so snapshot, replication and verify agree.

// mysqlJSONDoubles rewrites every number token of a JSON text that is exactly
// go-mysql's rendering of a DOUBLE into MySQL's rendering of it. Integers
// (no '.' or exponent) and DECIMAL values (their digits, which go-mysql's
// double rendering would not reproduce) are left alone. A DECIMAL inside a
// document that equals the exact binary expansion of a double, digit for digit,
// cannot be told from that double; it is rewritten too (documented in
// docs/mysql8.md). The text is returned unchanged when nothing needs to change.
func mysqlJSONDoubles(b []byte) []byte {
	var out []byte // nil until the first rewrite
	last := 0
	for i := 0; i < len(b); {
		switch c := b[i]; {
		case c == '"':
			i = skipJSONString(b, i)
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && isJSONNumberByte(b[j]) {
				j++
			}
			if r, ok := rerenderDouble(string(b[i:j])); ok {
				out = append(out, b[last:i]...)
				out = append(out, r...)
				last = j
			}
			i = j
		default:
			i++
		}
	}
	if out == nil {
		return b
	}
	return append(out, b[last:]...)
}

func isJSONNumberByte(c byte) bool {
	return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-'
}

// skipJSONString returns the index after the string starting at b[i] == '"'.
func skipJSONString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// rerenderDouble returns MySQL's rendering of tok when tok is go-mysql's
// rendering of a double and the two differ.
func rerenderDouble(tok string) (string, bool) {
	if !strings.ContainsAny(tok, ".eE") {
		return "", false // an integer: INT64/UINT64, printed alike by both
	}
	f, err := strconv.ParseFloat(tok, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) || goMySQLDouble(f) != tok {
		return "", false
	}
	r := mysqlJSONDouble(f)
	return r, r != tok
}

// goMySQLDouble is how go-mysql (RenderJSONAsMySQLText) prints a JSON DOUBLE.
func goMySQLDouble(f float64) string {
	if f == math.Trunc(f) {
		return strconv.FormatFloat(f, 'f', 1, 64)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// mysqlJSONDouble prints a JSON DOUBLE the way MySQL does (SELECT of a JSON
// column): the shortest digits that read back as the same double, in plain
// notation when the decimal point falls within 15 places to the left and 14
// to the right of the digits, else as d.ddde[-]x; ".0" is added when the plain
// form has no decimal point, so the value reads back as a double.
// Checked against MySQL 9.7: 1.5e300, 1e15, 100000000000000.0, 0.0000000000000015,
// 1234567890123456.8, 1.2345678901234568e16, 5e-324, -0.0.
func mysqlJSONDouble(f float64) string {
	// The shortest round-trip digits and the decimal exponent.
	e := strconv.FormatFloat(math.Abs(f), 'e', -1, 64) // d.ddde±xx
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	digits := strings.Replace(mant, ".", "", 1)
	sign := ""
	if math.Signbit(f) {
		sign = "-"
	}
	if f == 0 {
		return sign + "0.0"
	}
	n, decpt := len(digits), exp+1 // the value is 0.<digits> × 10^decpt
	var s string
	if decpt >= -14 && (decpt <= 15 || n > decpt) {
		switch {
		case decpt <= 0:
			s = "0." + strings.Repeat("0", -decpt) + digits
		case decpt < n:
			s = digits[:decpt] + "." + digits[decpt:]
		default:
			s = digits + strings.Repeat("0", decpt-n) + ".0"
		}
		return sign + s
	}
	s = digits[:1]
	if n > 1 {
		s += "." + digits[1:]
	}
	return sign + s + "e" + strconv.Itoa(decpt-1)
}
