package typemap

import (
	"math"
	"math/big"
	"strconv"

	"github.com/jackc/pgx/v5/pgtype"
)

// buildInt converts the integer types and YEAR into int16, int32 or int64,
// the Go type of the PostgreSQL column's width.
func buildInt(c *column, t target) (convs, error) {
	lo, hi := int64(math.MinInt64), int64(math.MaxInt64)
	switch t.bits {
	case 16:
		lo, hi = math.MinInt16, math.MaxInt16
	case 32:
		lo, hi = math.MinInt32, math.MaxInt32
	}
	box := func(n int64) (any, error) {
		if n < lo || n > hi {
			return nil, c.errorf("value %d out of range of %s", n, t.pgType)
		}
		switch t.bits {
		case 16:
			return int16(n), nil
		case 32:
			return int32(n), nil
		}
		return n, nil
	}
	unsigned := c.col.Unsigned
	medium := dataType(c.col) == "mediumint"
	textInt := func(b []byte) (int64, error) {
		n, ok := parseInt(b)
		if !ok {
			return 0, c.errorf("invalid integer %q", b)
		}
		if n < lo || n > hi {
			return 0, c.errorf("value %d out of range of %s", n, t.pgType)
		}
		return n, nil
	}
	return convs{
		textInt: textInt,
		text: func(b []byte) (any, error) {
			n, ok := parseInt(b)
			if !ok {
				return nil, c.errorf("invalid integer %q", b)
			}
			return box(n)
		},
		binlog: func(v any) (any, error) {
			n, ok := binlogInt(v, unsigned, medium)
			if !ok {
				return nil, c.unexpected(v)
			}
			return box(n)
		},
	}, nil
}

// binlogInt returns the integer go-mysql decoded. Without signedness in the
// table map (binlog_row_metadata=MINIMAL) unsigned columns arrive as signed
// values of their width; they are reinterpreted here.
func binlogInt(v any, unsigned, medium bool) (int64, bool) {
	switch x := v.(type) {
	case int8:
		if unsigned {
			return int64(uint8(x)), true
		}
		return int64(x), true
	case int16:
		if unsigned {
			return int64(uint16(x)), true
		}
		return int64(x), true
	case int32:
		if unsigned && medium {
			return int64(uint32(x) & 0xFFFFFF), true
		}
		if unsigned {
			return int64(uint32(x)), true
		}
		return int64(x), true
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint8:
		return int64(x), true
	case uint16:
		return int64(x), true
	case uint32:
		return int64(x), true
	case uint64:
		if x > math.MaxInt64 {
			return 0, false
		}
		return int64(x), true
	}
	return 0, false
}

// parseInt parses an optionally signed decimal integer (ZEROFILL padding is
// just leading zeros).
func parseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	u, ok := parseUint(b)
	if !ok {
		return 0, false
	}
	if neg {
		if u > 1<<63 {
			return 0, false
		}
		return -int64(u), true
	}
	if u > math.MaxInt64 {
		return 0, false
	}
	return int64(u), true
}

// parseUint parses an unsigned decimal integer that fits in 64 bits.
func parseUint(b []byte) (uint64, bool) {
	if len(b) == 0 {
		return 0, false
	}
	var n uint64
	for _, ch := range b {
		d := uint64(ch - '0')
		if d > 9 {
			return 0, false
		}
		if n > (math.MaxUint64-d)/10 {
			return 0, false
		}
		n = n*10 + d
	}
	return n, true
}

// buildUint64 converts BIGINT UNSIGNED into numeric(20,0).
func buildUint64(c *column, _ target) (convs, error) {
	return convs{
		text: func(b []byte) (any, error) {
			u, ok := parseUint(b)
			if !ok {
				return nil, c.errorf("invalid unsigned integer %q", b)
			}
			return uintNumeric(u), nil
		},
		binlog: func(v any) (any, error) {
			switch x := v.(type) {
			case uint64:
				return uintNumeric(x), nil
			case int64: // no signedness metadata: the bits are the unsigned value
				return uintNumeric(uint64(x)), nil
			}
			return nil, c.unexpected(v)
		},
	}, nil
}

func uintNumeric(u uint64) pgtype.Numeric {
	return pgtype.Numeric{Int: new(big.Int).SetUint64(u), Valid: true}
}

// buildDecimal converts DECIMAL into numeric(p,s) from its decimal string,
// never through a float.
func buildDecimal(c *column, _ target) (convs, error) {
	conv := func(b []byte) (any, error) {
		n, ok := parseDecimal(b)
		if !ok {
			return nil, c.errorf("invalid decimal %q", b)
		}
		return n, nil
	}
	return convs{
		text:   conv,
		binlog: c.binlogAsText(conv),
	}, nil
}

// parseDecimal parses [-]digits[.digits] exactly into a pgtype.Numeric whose
// exponent keeps the scale (so 1.50 stays 1.50).
func parseDecimal(b []byte) (pgtype.Numeric, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var small int64
	var buf [80]byte
	digits := buf[:0]
	frac, dot, seen := 0, false, false
	for _, ch := range b {
		switch {
		case ch == '.' && !dot:
			dot = true
		case ch >= '0' && ch <= '9':
			seen = true
			digits = append(digits, ch)
			if dot {
				frac++
			}
			if len(digits) <= 18 {
				small = small*10 + int64(ch-'0')
			}
		default:
			return pgtype.Numeric{}, false
		}
	}
	if !seen {
		return pgtype.Numeric{}, false
	}
	var n *big.Int
	if len(digits) <= 18 {
		n = big.NewInt(small)
	} else {
		var ok bool
		if n, ok = new(big.Int).SetString(string(digits), 10); !ok {
			return pgtype.Numeric{}, false
		}
	}
	if neg {
		n.Neg(n)
	}
	return pgtype.Numeric{Int: n, Exp: int32(-frac), Valid: true}, true
}

// buildFloat32 converts FLOAT into real. The binlog carries the IEEE bytes;
// text must come from SelectExpr (CAST AS DOUBLE), whose shortest double
// representation rounds back to the same float32.
func buildFloat32(c *column, _ target) (convs, error) {
	return convs{
		text: func(b []byte) (any, error) {
			f, err := strconv.ParseFloat(string(b), 32)
			if err != nil {
				return nil, c.errorf("invalid float %q", b)
			}
			return float32(f), nil
		},
		binlog: func(v any) (any, error) {
			switch x := v.(type) {
			case float32:
				return x, nil
			case float64:
				return float32(x), nil
			}
			return nil, c.unexpected(v)
		},
	}, nil
}

// buildFloat64 converts DOUBLE into double precision; MariaDB prints the
// shortest representation that reads back as the same double.
func buildFloat64(c *column, _ target) (convs, error) {
	return convs{
		text: func(b []byte) (any, error) {
			f, err := strconv.ParseFloat(string(b), 64)
			if err != nil {
				return nil, c.errorf("invalid double %q", b)
			}
			return f, nil
		},
		binlog: func(v any) (any, error) {
			switch x := v.(type) {
			case float64:
				return x, nil
			case float32:
				return float64(x), nil
			}
			return nil, c.unexpected(v)
		},
	}, nil
}

// buildBit converts BIT(n) into bit(n). Text gives the value as big-endian
// bytes, the binlog as an int64 holding the bits.
func buildBit(c *column, _ target) (convs, error) {
	width := bitWidth(c.col)
	if width > 64 {
		return convs{}, c.errorf("BIT wider than 64 bits")
	}
	bits := func(u uint64) (any, error) {
		if width < 64 && u>>uint(width) != 0 {
			return nil, c.errorf("value %#x wider than BIT(%d)", u, width)
		}
		return bitValue(u, width), nil
	}
	return convs{
		text: func(b []byte) (any, error) {
			if len(b) > 8 {
				return nil, c.errorf("BIT value of %d bytes", len(b))
			}
			var u uint64
			for _, x := range b {
				u = u<<8 | uint64(x)
			}
			return bits(u)
		},
		binlog: func(v any) (any, error) {
			switch x := v.(type) {
			case int64:
				return bits(uint64(x))
			case uint64:
				return bits(x)
			}
			return nil, c.unexpected(v)
		},
	}, nil
}

// bitValue lays the low width bits of u out as PostgreSQL does: the first
// bit of the string is the most significant bit of the first byte.
func bitValue(u uint64, width int) pgtype.Bits {
	n := (width + 7) / 8
	u <<= uint(64 - width)
	out := make([]byte, n)
	for i := range out {
		out[i] = byte(u >> (56 - 8*uint(i)))
	}
	return pgtype.Bits{Bytes: out, Len: int32(width), Valid: true}
}
