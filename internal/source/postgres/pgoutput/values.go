package pgoutput

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding/charmap"

	"github.com/sluice-db/sluice/internal/schema"
)

// The MySQL sink writes values as the MySQL binlog source emits them
// (docs/ARCHITECTURE.md, "Values"): integers as int64 (uint64 for BIGINT
// UNSIGNED), FLOAT as float32, DOUBLE as float64, DECIMAL and temporal
// values as MySQL text, text as bytes in the column's charset, binary as
// bytes, ENUM as its index and SET as its bit mask, BIT as the number. A
// conv turns pgoutput's text form of the PostgreSQL value (the walsender
// session runs DateStyle ISO, TimeZone UTC, IntervalStyle postgres,
// bytea_output hex: see Stream.connect) into that, from the MySQL target
// column's own definition, the inverse of internal/typemap. A value the
// MySQL column cannot hold is an error: the sink's session is not strict,
// and MySQL would otherwise clip or truncate it silently.

// conv converts one pgoutput text value of a column. text points into the
// message as received (tuple.go) and is reused once the call returns: a
// conv that returns bytes returns its own copy.
type conv func(text []byte) (any, error)

// valueError is a value the MySQL column cannot hold.
type valueError struct{ msg string }

func (e *valueError) Error() string { return e.msg }

func bad(format string, args ...any) error { return &valueError{fmt.Sprintf(format, args...)} }

// textMax are the byte limits of MySQL's TEXT and BLOB types.
var textMax = map[string]int64{
	"tinytext": 255, "text": 65535, "mediumtext": 1<<24 - 1, "longtext": 1<<32 - 1,
	"tinyblob": 255, "blob": 65535, "mediumblob": 1<<24 - 1, "longblob": 1<<32 - 1,
}

// convOf compiles the converter of a MySQL column; a type the reverse
// stream cannot write back exactly is an error naming it.
func convOf(c schema.Column) (conv, error) {
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
		return intConv(c), nil
	case "year":
		return yearConv(), nil
	case "decimal", "numeric":
		return decimalConv(c), nil
	case "float":
		return floatConv(), nil
	case "double", "real":
		return doubleConv(), nil
	case "bit":
		return bitConv(c), nil
	case "date":
		return func(b []byte) (any, error) { return dateText(b, "0000-00-00") }, nil
	case "datetime":
		return func(b []byte) (any, error) { return datetimeText(b, c.FracDigits, false) }, nil
	case "timestamp":
		return func(b []byte) (any, error) { return datetimeText(b, c.FracDigits, true) }, nil
	case "time":
		return func(b []byte) (any, error) { return timeText(b, c.FracDigits) }, nil
	case "enum":
		return enumConv(c), nil
	case "set":
		return setConv(c), nil
	case "json":
		return func(b []byte) (any, error) { return compactJSON(b) }, nil
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob", "geometry", "point", "linestring",
		"polygon", "multipoint", "multilinestring", "multipolygon", "geometrycollection", "geomcollection":
		return binaryConv(c), nil
	case "uuid":
		return uuidConv(), nil
	case "inet4", "inet6":
		return inetConv(c), nil
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return charConv(c)
	}
	return nil, fmt.Errorf("column %s: the reverse stream cannot write MySQL type %s back yet", c.Name, c.ColumnType)
}

// yearConv reads a YEAR: 0 or 1901..2155.
func yearConv() conv {
	return func(b []byte) (any, error) {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || (n != 0 && (n < 1901 || n > 2155)) {
			return nil, bad("year %s is outside YEAR's range (1901..2155, or 0)", b)
		}
		return n, nil
	}
}

// floatConv reads a FLOAT, refusing NaN and infinities (MySQL has none).
func floatConv() conv {
	return func(b []byte) (any, error) {
		f, err := strconv.ParseFloat(string(b), 32)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("%s is not a FLOAT value MySQL can hold", b)
		}
		return float32(f), nil
	}
}

// doubleConv reads a DOUBLE, refusing NaN and infinities (MySQL has none).
func doubleConv() conv {
	return func(b []byte) (any, error) {
		f, err := strconv.ParseFloat(string(b), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, bad("%s is not a DOUBLE value MySQL can hold", b)
		}
		return f, nil
	}
}

// bitConv reads a bit string that fits the column's BIT(n).
func bitConv(c schema.Column) conv {
	return func(b []byte) (any, error) {
		if len(b) > 64 || (c.Precision > 0 && len(b) > c.Precision) {
			return nil, bad("bit string of %d bits does not fit BIT(%d)", len(b), c.Precision)
		}
		u, err := strconv.ParseUint(string(b), 2, 64)
		if err != nil {
			return nil, bad("%q is not a bit string", b)
		}
		return int64(u), nil
	}
}

// enumConv maps an ENUM member to its index (1-based; the empty string is 0).
func enumConv(c schema.Column) conv {
	idx := map[string]int64{"": 0}
	for i, e := range c.Elements {
		idx[e] = int64(i + 1)
	}
	return func(b []byte) (any, error) {
		n, ok := idx[string(b)]
		if !ok {
			return nil, bad("%q is not a member of %s", b, c.ColumnType)
		}
		return n, nil
	}
}

// setConv maps a SET's comma-separated members to its bit mask.
func setConv(c schema.Column) conv {
	bit := map[string]int64{}
	for i, e := range c.Elements {
		bit[e] = 1 << i
	}
	return func(b []byte) (any, error) {
		var m int64
		if len(b) == 0 {
			return m, nil
		}
		for _, e := range strings.Split(string(b), ",") {
			v, ok := bit[e]
			if !ok {
				return nil, bad("%q is not a member of %s", e, c.ColumnType)
			}
			m |= v
		}
		return m, nil
	}
}

// binaryConv reads bytea text into the bytes of a binary, BLOB or
// geometry column, refusing more than the column holds.
func binaryConv(c schema.Column) conv {
	limit := textMax[c.DataType]
	if c.DataType == "binary" || c.DataType == "varbinary" {
		limit = c.CharMaxLength
	}
	return func(b []byte) (any, error) {
		v, err := byteaText(b)
		if err != nil {
			return nil, err
		}
		if limit > 0 && int64(len(v)) > limit {
			return nil, bad("%d bytes do not fit %s", len(v), c.ColumnType)
		}
		return v, nil
	}
}

// uuidConv reads a UUID into its 16 bytes.
func uuidConv() conv {
	return func(b []byte) (any, error) {
		u, err := hex.DecodeString(strings.ReplaceAll(string(b), "-", ""))
		if err != nil || len(u) != 16 {
			return nil, bad("%q is not a UUID", b)
		}
		return u, nil // the 16 bytes in canonical order, as MariaDB's binlog has them
	}
}

// inetConv reads one address into the bytes of an INET4 or INET6.
func inetConv(c schema.Column) conv {
	v4 := c.DataType == "inet4"
	return func(b []byte) (any, error) {
		p, err := netip.ParsePrefix(string(b))
		if err != nil {
			a, aerr := netip.ParseAddr(string(b))
			if aerr != nil {
				return nil, bad("%q is not an address", b)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		a := p.Addr()
		if p.Bits() != a.BitLen() {
			return nil, bad("%s is a network, %s holds one address", b, c.ColumnType)
		}
		if v4 {
			if !a.Is4() {
				return nil, bad("%s is not an IPv4 address (INET4)", b)
			}
			x := a.As4()
			return x[:], nil
		}
		if a.Is4() {
			// MariaDB's INET6 refuses '1.2.3.4' (it holds ::ffff:1.2.3.4).
			return nil, bad("%s is an IPv4 address; INET6 holds it only IPv4-mapped (::ffff:%s)", b, a)
		}
		x := a.As16()
		return x[:], nil
	}
}

// charConv reads a string column: MariaDB JSON (text) as it is, other
// text through textConv.
func charConv(c schema.Column) (conv, error) {
	if c.IsJSON {
		// MariaDB's JSON is text: jsonb's output is spaced as MySQL
		// prints JSON (", ", ": "); its key order is jsonb's (docs/reverse.md).
		return func(b []byte) (any, error) { return bytes.Clone(b), nil }, nil
	}
	return textConv(c)
}

func intConv(c schema.Column) conv {
	bits := map[string]uint{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}[c.DataType]
	if c.Unsigned {
		hi := uint64(math.MaxUint64)
		if bits < 64 {
			hi = 1<<bits - 1
		}
		return func(b []byte) (any, error) {
			u, err := strconv.ParseUint(string(b), 10, 64)
			if err != nil || u > hi {
				return nil, bad("%s is outside %s's range (0..%d)", b, c.ColumnType, hi)
			}
			if bits == 64 {
				return u, nil
			}
			return int64(u), nil
		}
	}
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	if bits < 64 {
		lo, hi = -1<<(bits-1), 1<<(bits-1)-1
	}
	return func(b []byte) (any, error) {
		n, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil || n < lo || n > hi {
			return nil, bad("%s is outside %s's range (%d..%d)", b, c.ColumnType, lo, hi)
		}
		return n, nil
	}
}

func decimalConv(c schema.Column) conv {
	return func(b []byte) (any, error) {
		s := string(b)
		if _, ok := new(big.Rat).SetString(s); !ok || strings.ContainsAny(s, "eEnN") {
			return nil, bad("%s is not a DECIMAL value", s)
		}
		digits := strings.TrimPrefix(s, "-")
		if c.Unsigned && strings.HasPrefix(s, "-") && strings.Trim(digits, "0.") != "" {
			return nil, bad("%s is negative, %s is unsigned", s, c.ColumnType)
		}
		ip, fp, _ := strings.Cut(digits, ".")
		ip = strings.TrimLeft(ip, "0")
		if len(ip) > c.Precision-c.Scale {
			return nil, bad("%s has %d integer digits, %s holds %d", s, len(ip), c.ColumnType, c.Precision-c.Scale)
		}
		if len(strings.TrimRight(fp, "0")) > c.Scale {
			return nil, bad("%s has more than %d decimals (%s would round it)", s, c.Scale, c.ColumnType)
		}
		return s, nil
	}
}

// textConv checks a text value against the column's length and charset and
// returns it in that charset.
func textConv(c schema.Column) (conv, error) {
	limit, bytesLimit := c.CharMaxLength, false
	if m, ok := textMax[c.DataType]; ok {
		limit, bytesLimit = m, true
	}
	// encode returns the value in the column's charset, in a new slice.
	var encode func(s []byte) ([]byte, error)
	switch strings.ToLower(c.Charset) {
	case "utf8mb4", "":
		encode = func(s []byte) ([]byte, error) { return bytes.Clone(s), nil }
	case "utf8mb3", "utf8":
		encode = func(s []byte) ([]byte, error) {
			for i := 0; i < len(s); {
				r, n := utf8.DecodeRune(s[i:])
				if n == 4 {
					return nil, bad("character %q (4 bytes in UTF-8) does not fit the utf8mb3 column", string(r))
				}
				i += n
			}
			return bytes.Clone(s), nil
		}
	case "ascii":
		encode = func(s []byte) ([]byte, error) {
			for _, ch := range s {
				if ch >= 0x80 {
					return nil, bad("a non-ASCII character does not fit the ascii column")
				}
			}
			return bytes.Clone(s), nil
		}
	case "latin1":
		enc := charmap.Windows1252.NewEncoder() // MySQL's latin1 is cp1252
		encode = func(s []byte) ([]byte, error) {
			out, err := enc.Bytes(s)
			if err != nil {
				return nil, bad("a character does not fit the latin1 column: %v", err)
			}
			return out, nil
		}
	case "binary":
		encode = func(s []byte) ([]byte, error) { return bytes.Clone(s), nil }
	default:
		return nil, fmt.Errorf("column %s: the reverse stream cannot write charset %s back yet (utf8mb4, utf8mb3, latin1, ascii)", c.Name, c.Charset)
	}
	return func(b []byte) (any, error) {
		if !utf8.Valid(b) {
			return nil, bad("the value is not valid UTF-8")
		}
		out, err := encode(b)
		if err != nil {
			return nil, err
		}
		n := int64(len(out))
		if !bytesLimit {
			n = int64(utf8.RuneCount(b))
		}
		if limit > 0 && n > limit {
			unit := "characters"
			if bytesLimit {
				unit = "bytes"
			}
			return nil, bad("%d %s do not fit %s", n, unit, c.ColumnType)
		}
		return out, nil
	}, nil
}

// byteaText decodes bytea's hex output (\x0102…).
func byteaText(b []byte) ([]byte, error) {
	if len(b) < 2 || b[0] != '\\' || b[1] != 'x' {
		return nil, bad("bytea value not in hex format")
	}
	out := make([]byte, hex.DecodedLen(len(b)-2))
	if _, err := hex.Decode(out, b[2:]); err != nil {
		return nil, bad("bytea value: %v", err)
	}
	return out, nil
}

// compactJSON removes the whitespace jsonb's output puts between tokens: a
// MariaDB target's sink spaces the document as MySQL prints JSON, and a
// MySQL target parses it into its own binary form anyway.
func compactJSON(b []byte) ([]byte, error) {
	var out bytes.Buffer
	out.Grow(len(b))
	if err := json.Compact(&out, b); err != nil {
		return nil, fmt.Errorf("jsonb text %q: %w", shorten(string(b)), err)
	}
	return out.Bytes(), nil
}
