package mysql

import (
	"fmt"
	"math"
	"strconv"

	"github.com/sluice-db/sluice/internal/schema"
)

// Values are written as SQL literals in the statement text, on sessions
// whose connection charset is binary (conn.go): a quoted literal is then a
// binary string, which the server copies into a column of any charset
// without converting it, so the target stores exactly the bytes the source
// logged. Numbers are written as numbers: integers by their (unsigned) value,
// DECIMAL as an exact-value literal, FLOAT/DOUBLE as approximate-value
// literals that round-trip. ENUM and SET arrive as their index and bit mask,
// which MySQL stores as they are.

// encoder appends the literal of one value of a column.
type encoder func(buf []byte, v any) ([]byte, error)

var intBits = map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// ColumnLiteral returns the function that appends the literal of a value of
// column c, for a session prepared with SessionSetup (sluice alter writes
// binlog row images with it too).
func ColumnLiteral(c schema.Column, mysqlJSON bool) func(buf []byte, v any) ([]byte, error) {
	return encoderOf(c, mysqlJSON)
}

// encoderOf returns the encoder of a column. mysqlJSON is true for a MySQL
// (not MariaDB) target, whose JSON type refuses binary strings.
func encoderOf(c schema.Column, mysqlJSON bool) encoder {
	switch c.DataType {
	case "decimal", "numeric":
		return encodeDecimal
	case "float":
		return encodeFloat
	case "double", "real":
		return encodeFloat
	case "json":
		if mysqlJSON {
			return func(buf []byte, v any) ([]byte, error) {
				if v == nil {
					return append(buf, "NULL"...), nil
				}
				buf = append(buf, "CONVERT("...)
				buf, err := encodeAny(buf, v, 0)
				return append(buf, " USING utf8mb4)"...), err
			}
		}
		// MariaDB stores JSON as text: a MySQL source's document (decoded
		// from its binary form without spaces) is spaced as MySQL prints it.
		return func(buf []byte, v any) ([]byte, error) {
			switch x := v.(type) {
			case string:
				return Quote(buf, mysqlJSONText([]byte(x))), nil
			case []byte:
				return Quote(buf, mysqlJSONText(x)), nil
			}
			return encodeAny(buf, v, 0)
		}
	case "bit":
		// BIT values are unsigned: BIT(64) with the top bit set arrives negative.
		return func(buf []byte, v any) ([]byte, error) { return encodeAny(buf, v, 64) }
	case "binary", "inet6", "inet4", "uuid":
		// BINARY(n) is stored padded with 0x00 to n bytes, and the binlog
		// carries it without the padding: padded here, the literal equals
		// the stored value (keys, keyless comparisons). MariaDB's INET6,
		// INET4 and UUID are fixed binary strings too (16, 4, 16 bytes): a
		// shorter value would not be one at all.
		n := map[string]int{"binary": int(c.CharMaxLength), "inet6": 16, "inet4": 4, "uuid": 16}[c.DataType]
		return func(buf []byte, v any) ([]byte, error) {
			var b []byte
			switch x := v.(type) {
			case string:
				b = []byte(x)
			case []byte:
				b = x
			default:
				return encodeAny(buf, v, 0)
			}
			if len(b) < n {
				b = append(append(make([]byte, 0, n), b...), make([]byte, n-len(b))...)
			}
			return Quote(buf, b), nil
		}
	}
	bits := 0
	if c.Unsigned {
		bits = intBits[c.DataType]
	}
	return func(buf []byte, v any) ([]byte, error) { return encodeAny(buf, v, bits) }
}

// encodeAny writes integers by value (a negative value of an UNSIGNED column
// of unsignedBits bits, decoded without signedness metadata, by the unsigned
// value it is) and strings and bytes as quoted binary strings.
func encodeAny(buf []byte, v any, unsignedBits int) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(buf, "NULL"...), nil
	case string:
		return Quote(buf, x), nil
	case []byte:
		return Quote(buf, x), nil
	case int8:
		return appendInt(buf, int64(x), unsignedBits), nil
	case int16:
		return appendInt(buf, int64(x), unsignedBits), nil
	case int32:
		return appendInt(buf, int64(x), unsignedBits), nil
	case int64:
		return appendInt(buf, x, unsignedBits), nil
	case int:
		return appendInt(buf, int64(x), unsignedBits), nil
	case uint8:
		return strconv.AppendUint(buf, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(buf, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(buf, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(buf, x, 10), nil
	case float32:
		return appendFloat(buf, float64(x))
	case float64:
		return appendFloat(buf, x)
	}
	return buf, fmt.Errorf("unexpected value %v (%T)", v, v)
}

func appendInt(buf []byte, n int64, unsignedBits int) []byte {
	if u, ok := asUnsigned(n, unsignedBits); ok {
		return strconv.AppendUint(buf, u, 10)
	}
	return strconv.AppendInt(buf, n, 10)
}

// asUnsigned is the value a negative integer, decoded without signedness
// metadata, stands for in an UNSIGNED column of unsignedBits bits; ok is
// false when n is to be taken as it is (not negative, or a signed column).
func asUnsigned(n int64, unsignedBits int) (uint64, bool) {
	if n >= 0 || unsignedBits == 0 {
		return 0, false
	}
	u := uint64(n)
	if unsignedBits < 64 {
		u &= 1<<unsignedBits - 1
	}
	return u, true
}

// encodeFloat writes FLOAT and DOUBLE values. A float32 is written as the
// double it is exactly, in exponent form (an approximate-value literal):
// stored into a FLOAT column it rounds back to the same float32, and
// compared with one (keyless tables) it is equal.
func encodeFloat(buf []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case float32:
		return appendFloat(buf, float64(x))
	case float64:
		return appendFloat(buf, x)
	}
	return encodeAny(buf, v, 0)
}

func appendFloat(buf []byte, f float64) ([]byte, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return buf, fmt.Errorf("float value %v has no MySQL literal", f)
	}
	return strconv.AppendFloat(buf, f, 'e', -1, 64), nil
}

// encodeDecimal writes a DECIMAL's text as an exact-value literal (quoted
// text would be compared as a double).
func encodeDecimal(buf []byte, v any) ([]byte, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return append(buf, "NULL"...), nil
	case string:
		s = x
	case []byte:
		s = string(x)
	default:
		return encodeAny(buf, v, 0)
	}
	if s == "" {
		return buf, fmt.Errorf("empty decimal value")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c == '.' || (i == 0 && (c == '-' || c == '+'))) {
			return buf, fmt.Errorf("invalid decimal value %q", s)
		}
	}
	return append(buf, s...), nil
}

// Quote appends s as a quoted string literal with MySQL's backslash escapes
// (the session's sql_mode has no NO_BACKSLASH_ESCAPES). Every byte is
// escaped or copied as it is: the binary connection charset makes the
// server read the literal byte by byte. The snapshot into a MySQL target
// writes its literals with it too.
func Quote[S string | []byte](buf []byte, s S) []byte {
	buf = append(buf, '\'')
	// Runs of bytes that need no escape are copied at once: most text has
	// none, and a byte-by-byte append was a twelfth of the reverse stream's
	// CPU under sysbench's oltp_insert.
	from := 0
	for i := 0; i < len(s); i++ {
		if e := quoteEscapes[s[i]]; e != 0 {
			buf = append(append(buf, s[from:i]...), '\\', e)
			from = i + 1
		}
	}
	return append(append(buf, s[from:]...), '\'')
}

// quoteEscapes is the letter after the backslash for the bytes Quote
// escapes (0: copied as it is).
var quoteEscapes = [256]byte{0: '0', '\n': 'n', '\r': 'r', '\\': '\\', '\'': '\'', 0x1a: 'Z'}

// mysqlJSONText spaces a compact JSON document as MySQL prints JSON: ", "
// between elements and ": " after keys (outside strings only).
func mysqlJSONText(doc []byte) []byte {
	out := make([]byte, 0, len(doc)+len(doc)/8)
	inString, escaped := false, false
	for _, c := range doc {
		out = append(out, c)
		switch {
		case inString && escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ',' || c == ':'):
			out = append(out, ' ')
		}
	}
	return out
}
