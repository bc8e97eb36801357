package kafka

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math/big"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// newField compiles the column's conversion and picks its Debezium schema
// and encoder by the family of its kind.
func newField(m *typemap.Mapper, id schema.TableID, c schema.Column) (*field, error) {
	conv, err := m.CompileColumn(id, c)
	if err != nil {
		return nil, err
	}
	name, _ := json.Marshal(c.Name)
	f := &field{col: c, conv: conv, name: name}
	if !numericField(f, c, conv.Kind) && !temporalField(f, c, conv.Kind) && !stringField(f, c, conv.Kind) {
		return nil, fmt.Errorf("table %s column %s: no Kafka encoding for %s", id, c.Name, c.ColumnType)
	}
	return f, nil
}

// primSchema is the Connect schema of a primitive type.
func primSchema(t string) map[string]any { return map[string]any{"type": t} }

// namedSchema is the Connect schema of a logical type: a primitive with a
// name, a version and parameters.
func namedSchema(t, name string, params map[string]string) map[string]any {
	s := map[string]any{"type": t, "name": name, "version": 1}
	if params != nil {
		s["parameters"] = params
	}
	return s
}

// unexpectedValue is an encoder's error for a value of the wrong type.
func unexpectedValue(v any) (any, error) { return nil, fmt.Errorf("unexpected value %T", v) }

// numericField sets the Connect schema and encoder of an integer, decimal,
// floating-point or bit column; false for a kind of another family.
func numericField(f *field, c schema.Column, kind typemap.Kind) bool {
	switch kind {
	case typemap.KindInt, typemap.KindYear:
		f.schema = primSchema(intType(c))
		if kind == typemap.KindYear {
			f.schema = namedSchema("int32", "io.debezium.time.Year", nil)
		}
		f.encode = func(v any) (any, error) {
			switch x := v.(type) {
			case int16, int32, int64:
				return x, nil
			}
			return unexpectedValue(v)
		}
	case typemap.KindUint64:
		// bigint.unsigned.handling.mode=long (Debezium's default): the
		// 64 bits as a signed long; values above 2^63-1 read negative.
		f.schema = primSchema("int64")
		f.encode = func(v any) (any, error) {
			n, ok := v.(pgtype.Numeric)
			if !ok || n.Int == nil {
				return unexpectedValue(v)
			}
			return int64(n.Int.Uint64()), nil
		}
	case typemap.KindDecimal:
		// decimal.handling.mode=precise: Connect Decimal, the unscaled
		// value's two's-complement big-endian bytes (base64 in JSON).
		scale := c.Scale
		f.schema = namedSchema("bytes", "org.apache.kafka.connect.data.Decimal",
			map[string]string{"scale": strconv.Itoa(scale), "connect.decimal.precision": strconv.Itoa(c.Precision)})
		f.encode = func(v any) (any, error) {
			n, ok := v.(pgtype.Numeric)
			if !ok || n.Int == nil || n.NaN || n.InfinityModifier != pgtype.Finite {
				return unexpectedValue(v)
			}
			return decimalBytes(n.Int, int(n.Exp), scale)
		}
	case typemap.KindFloat32:
		f.schema = primSchema("float")
		f.encode = func(v any) (any, error) {
			x, ok := v.(float32)
			if !ok {
				return unexpectedValue(v)
			}
			return json.Number(strconv.FormatFloat(float64(x), 'g', -1, 32)), nil
		}
	case typemap.KindFloat64:
		f.schema = primSchema("double")
		f.encode = func(v any) (any, error) {
			x, ok := v.(float64)
			if !ok {
				return unexpectedValue(v)
			}
			return x, nil
		}
	case typemap.KindBit:
		width := c.Precision
		if width <= 1 {
			f.schema = primSchema("boolean")
		} else {
			f.schema = namedSchema("bytes", "io.debezium.data.Bits", map[string]string{"length": strconv.Itoa(width)})
		}
		f.encode = func(v any) (any, error) {
			b, ok := v.(pgtype.Bits)
			if !ok {
				return unexpectedValue(v)
			}
			var u uint64
			for i := 0; i < int(b.Len); i++ {
				u = u<<1 | uint64(b.Bytes[i/8]>>(7-i%8)&1)
			}
			if width <= 1 {
				return u == 1, nil
			}
			// little-endian, (n+7)/8 bytes
			out := make([]byte, 8)
			binary.LittleEndian.PutUint64(out, u)
			return out[:(width+7)/8], nil
		}
	default:
		return false
	}
	return true
}

// temporalField sets the Debezium time schema and encoder of a date, time
// or timestamp column; false for a kind of another family.
func temporalField(f *field, c schema.Column, kind typemap.Kind) bool {
	switch kind {
	case typemap.KindDate:
		f.schema = namedSchema("int32", "io.debezium.time.Date", nil)
		f.encode = func(v any) (any, error) {
			d, ok := v.(pgtype.Date)
			if !ok {
				return unexpectedValue(v)
			}
			if d.InfinityModifier != pgtype.Finite {
				return int32(0), nil // a zero date in a NOT NULL column: the epoch day, as Debezium
			}
			return int32(floorDiv(d.Time.Unix(), 86400)), nil
		}
	case typemap.KindDateTime:
		fsp := c.FracDigits
		if fsp <= 3 {
			f.schema = namedSchema("int64", "io.debezium.time.Timestamp", nil)
		} else {
			f.schema = namedSchema("int64", "io.debezium.time.MicroTimestamp", nil)
		}
		f.encode = func(v any) (any, error) {
			ts, ok := v.(pgtype.Timestamp)
			if !ok {
				return unexpectedValue(v)
			}
			if ts.InfinityModifier != pgtype.Finite {
				return int64(0), nil
			}
			if fsp <= 3 {
				return ts.Time.UnixMilli(), nil
			}
			return ts.Time.UnixMicro(), nil
		}
	case typemap.KindTimestamp:
		fsp := c.FracDigits
		f.schema = namedSchema("string", "io.debezium.time.ZonedTimestamp", nil)
		f.encode = func(v any) (any, error) {
			ts, ok := v.(pgtype.Timestamptz)
			if !ok {
				return unexpectedValue(v)
			}
			if ts.InfinityModifier != pgtype.Finite {
				return zonedTimestamp(time.Unix(0, 0), fsp), nil
			}
			return zonedTimestamp(ts.Time, fsp), nil
		}
	case typemap.KindTime:
		f.schema = namedSchema("int64", "io.debezium.time.MicroTime", nil)
		f.encode = func(v any) (any, error) {
			iv, ok := v.(pgtype.Interval)
			if !ok {
				return unexpectedValue(v)
			}
			return iv.Microseconds + int64(iv.Days)*86400e6, nil
		}
	default:
		return false
	}
	return true
}

// stringField sets the schema and encoder of a text-like, binary or
// geometry column; false for a kind of another family.
func stringField(f *field, c schema.Column, kind typemap.Kind) bool {
	switch kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet, typemap.KindJSON, typemap.KindUUID, typemap.KindInet:
		f.schema = primSchema("string")
		switch kind {
		case typemap.KindEnum:
			f.schema = namedSchema("string", "io.debezium.data.Enum", map[string]string{"allowed": strings.Join(c.Elements, ",")})
		case typemap.KindSet:
			f.schema = namedSchema("string", "io.debezium.data.EnumSet", map[string]string{"allowed": strings.Join(c.Elements, ",")})
		case typemap.KindJSON:
			f.schema = namedSchema("string", "io.debezium.data.Json", nil)
			f.rawJSON = utf8Charset(c.Charset) || c.Charset == "" || strings.EqualFold(c.Charset, "binary")
		case typemap.KindText:
			f.utf8Text = utf8Charset(c.Charset)
		}
		f.encode = func(v any) (any, error) {
			switch x := v.(type) {
			case string:
				return x, nil
			case []byte:
				return string(x), nil
			case netip.Prefix:
				return x.Addr().String(), nil
			case fmt.Stringer:
				return x.String(), nil
			case [16]byte:
				return uuidString(x), nil
			}
			return unexpectedValue(v)
		}
	case typemap.KindBinary:
		f.schema = primSchema("bytes") // binary.handling.mode=bytes: base64 in JSON
		f.encode = func(v any) (any, error) {
			b, ok := v.([]byte)
			if !ok {
				return unexpectedValue(v)
			}
			return b, nil
		}
	case typemap.KindGeometry:
		f.schema = map[string]any{"type": "struct", "name": "io.debezium.data.geometry.Geometry", "version": 1,
			"fields": []any{map[string]any{"field": "wkb", "type": "bytes", "optional": false},
				map[string]any{"field": "srid", "type": "int32", "optional": true}}}
		f.encode = func(v any) (any, error) {
			b, ok := v.([]byte)
			if !ok || len(b) < 4 {
				return unexpectedValue(v)
			}
			return map[string]any{"wkb": b[4:], "srid": int32(binary.LittleEndian.Uint32(b[:4]))}, nil
		}
	default:
		return false
	}
	return true
}

// intType is Debezium's Connect type of a MySQL integer column.
func intType(c schema.Column) string {
	switch strings.ToLower(c.DataType) {
	case "tinyint":
		return "int16"
	case "smallint":
		if c.Unsigned {
			return "int32"
		}
		return "int16"
	case "mediumint":
		return "int32"
	case "int", "integer":
		if c.Unsigned {
			return "int64"
		}
		return "int32"
	}
	return "int64"
}

func utf8Charset(cs string) bool {
	switch strings.ToLower(cs) {
	case "utf8mb4", "utf8mb3", "utf8", "ascii":
		return true
	}
	return false
}

// decimalBytes is the unscaled value of i·10^exp at the given scale as
// Java's BigInteger.toByteArray (two's complement, big-endian, minimal).
func decimalBytes(i *big.Int, exp, scale int) ([]byte, error) {
	u := new(big.Int).Set(i)
	shift := exp + scale
	switch {
	case shift > 0:
		u.Mul(u, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(shift)), nil))
	case shift < 0:
		d := new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(-shift)), nil)
		q, r := new(big.Int).QuoRem(u, d, new(big.Int))
		if r.Sign() != 0 {
			return nil, fmt.Errorf("decimal %se%d has more than %d fractional digits", i, exp, scale)
		}
		u = q
	}
	return twosComplement(u), nil
}

func twosComplement(u *big.Int) []byte {
	if u.Sign() >= 0 {
		b := u.Bytes()
		if len(b) == 0 || b[0]&0x80 != 0 {
			b = append([]byte{0}, b...)
		}
		return b
	}
	// -u - 1 in bits, inverted
	n := new(big.Int).Neg(u)
	n.Sub(n, big.NewInt(1))
	b := n.Bytes()
	for i := range b {
		b[i] = ^b[i]
	}
	if len(b) == 0 || b[0]&0x80 == 0 {
		b = append([]byte{0xff}, b...)
	}
	return b
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

// zonedTimestamp is io.debezium.time.ZonedTimestamp: ISO-8601 in UTC with
// the column's fractional digits.
func zonedTimestamp(t time.Time, fsp int) string {
	layout := "2006-01-02T15:04:05"
	if fsp > 0 {
		layout += "." + strings.Repeat("0", fsp)
	}
	return t.UTC().Format(layout) + "Z"
}

func uuidString(u [16]byte) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i, x := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b.WriteByte('-')
		}
		b.WriteByte(hex[x>>4])
		b.WriteByte(hex[x&15])
	}
	return b.String()
}
