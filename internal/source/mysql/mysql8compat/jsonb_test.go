package mysql8compat

import (
	"bytes"
	"encoding/binary"
	"math"
	"sort"

	"github.com/go-mysql-org/go-mysql/replication"
)

// A JSONB encoder written from the format description in MySQL's
// sql-common/json_binary.h (mysql/mysql-server), choosing type tags the
// way json_binary.cc's serializer does. It exists so that the tests can
// produce documents no public fixture covers (large format, opaque values,
// 4-byte UTF-8); TestJSONBEncoderMatchesMySQLBytes checks it against bytes
// real MySQL servers wrote.
//
// Values are modelled on MySQL's JSON DOM: nil (null), bool, int (Json_int),
// jUint (Json_uint), float64 (Json_double), string, jArray, jObject and
// jOpaque (DECIMAL, temporal and other MySQL types kept inside JSON).

// jObject is a JSON object; members may be given in any order, the encoder
// sorts them as MySQL does.
type jObject []jMember

type jMember struct {
	key string
	val any
}

type jArray []any

// jUint is a Json_uint: MySQL makes one from a JSON number above INT64_MAX
// or from an unsigned SQL value (CAST(x AS UNSIGNED)).
type jUint uint64

// jOpaque is custom data: a MySQL field type and its binary value.
type jOpaque struct {
	fieldType byte
	data      []byte
}

// jsonb returns the binary JSON document of v: type byte, then value.
func jsonb(v any) []byte {
	typ, data := encodeJSONValue(v)
	return append([]byte{typ}, data...)
}

func encodeJSONValue(v any) (byte, []byte) {
	switch x := v.(type) {
	case nil:
		return replication.JSONB_LITERAL, []byte{replication.JSONB_NULL_LITERAL}
	case bool:
		if x {
			return replication.JSONB_LITERAL, []byte{replication.JSONB_TRUE_LITERAL}
		}
		return replication.JSONB_LITERAL, []byte{replication.JSONB_FALSE_LITERAL}
	case int:
		return encodeJSONInt(int64(x))
	case jUint:
		return encodeJSONUint(uint64(x))
	case float64:
		// float8store: IEEE 754 little-endian.
		return replication.JSONB_DOUBLE, binary.LittleEndian.AppendUint64(nil, math.Float64bits(x))
	case string:
		return replication.JSONB_STRING, append(jsonbVarLength(len(x)), x...)
	case jOpaque:
		b := append([]byte{x.fieldType}, jsonbVarLength(len(x.data))...)
		return replication.JSONB_OPAQUE, append(b, x.data...)
	case jArray:
		return encodeJSONContainer(nil, x)
	case jObject:
		return encodeJSONObject(x)
	}
	panic("jsonb: unsupported value type")
}

// encodeJSONInt picks INT16/INT32/INT64 as Json_int::is_16bit/is_32bit do.
func encodeJSONInt(v int64) (byte, []byte) {
	switch {
	case v >= math.MinInt16 && v <= math.MaxInt16:
		return replication.JSONB_INT16, binary.LittleEndian.AppendUint16(nil, uint16(v))
	case v >= math.MinInt32 && v <= math.MaxInt32:
		return replication.JSONB_INT32, binary.LittleEndian.AppendUint32(nil, uint32(v))
	}
	return replication.JSONB_INT64, binary.LittleEndian.AppendUint64(nil, uint64(v))
}

func encodeJSONUint(v uint64) (byte, []byte) {
	switch {
	case v <= math.MaxUint16:
		return replication.JSONB_UINT16, binary.LittleEndian.AppendUint16(nil, uint16(v))
	case v <= math.MaxUint32:
		return replication.JSONB_UINT32, binary.LittleEndian.AppendUint32(nil, uint32(v))
	}
	return replication.JSONB_UINT64, binary.LittleEndian.AppendUint64(nil, v)
}

// encodeJSONObject sorts members the way Json_object's key comparator does
// (shorter keys first, equal lengths by bytes); a repeated key keeps its
// last value, as MySQL 8.0.3+ does.
func encodeJSONObject(o jObject) (byte, []byte) {
	last := map[string]any{}
	for _, m := range o {
		last[m.key] = m.val
	}
	keys := make([]string, 0, len(last))
	for k := range last {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) < len(keys[j])
		}
		return keys[i] < keys[j]
	})
	vals := make([]any, len(keys))
	for i, k := range keys {
		vals[i] = last[k]
	}
	return encodeJSONContainer(keys, vals)
}

// encodeJSONContainer lays out an array (keys == nil) or object: the small
// format (2-byte counts and offsets) when everything fits in 64 KiB, else the
// large format (4-byte), as serialize_json_array/object retry on VALUE_TOO_BIG.
func encodeJSONContainer(keys []string, vals []any) (byte, []byte) {
	isObject := keys != nil
	if b, ok := layoutJSONContainer(keys, vals, false); ok {
		if isObject {
			return replication.JSONB_SMALL_OBJECT, b
		}
		return replication.JSONB_SMALL_ARRAY, b
	}
	b, _ := layoutJSONContainer(keys, vals, true)
	if isObject {
		return replication.JSONB_LARGE_OBJECT, b
	}
	return replication.JSONB_LARGE_ARRAY, b
}

// layoutJSONContainer writes
//
//	element-count size key-entry* value-entry* key* value*
//
// and reports false when the small format cannot address it.
func layoutJSONContainer(keys []string, vals []any, large bool) ([]byte, bool) {
	offSize := 2
	if large {
		offSize = 4
	}
	putOff := func(b []byte, v int) {
		if large {
			binary.LittleEndian.PutUint32(b, uint32(v))
		} else {
			binary.LittleEndian.PutUint16(b, uint16(v))
		}
	}
	fits := func(v int) bool { return large || v <= math.MaxUint16 }

	n := len(vals)
	keyEntry, valueEntry := offSize+2, 1+offSize
	header := 2*offSize + n*valueEntry + len(keys)*keyEntry
	out := make([]byte, header)
	putOff(out, n)
	for i, k := range keys {
		e := 2*offSize + i*keyEntry
		if !fits(len(out)) {
			return nil, false
		}
		putOff(out[e:], len(out))
		binary.LittleEndian.PutUint16(out[e+offSize:], uint16(len(k)))
		out = append(out, k...)
	}
	for i, v := range vals {
		e := 2*offSize + len(keys)*keyEntry + i*valueEntry
		typ, data := encodeJSONValue(v)
		out[e] = typ
		if jsonbInlined(typ, large) {
			copy(out[e+1:e+valueEntry], data)
			continue
		}
		if !fits(len(out)) {
			return nil, false
		}
		putOff(out[e+1:], len(out))
		out = append(out, data...)
	}
	if !fits(len(out)) {
		return nil, false
	}
	putOff(out[offSize:], len(out))
	return out, true
}

// jsonbInlined mirrors json_binary::inlined_type: literals and 16-bit
// integers always live in the value entry, 32-bit ones only in the large
// format.
func jsonbInlined(typ byte, large bool) bool {
	switch typ {
	case replication.JSONB_LITERAL, replication.JSONB_INT16, replication.JSONB_UINT16:
		return true
	case replication.JSONB_INT32, replication.JSONB_UINT32:
		return large
	}
	return false
}

// jsonbVarLength is the data-length of strings and opaque values: 7 bits per
// byte, least significant group first, high bit set on all but the last.
func jsonbVarLength(n int) []byte {
	var b bytes.Buffer
	for {
		c := byte(n & 0x7f)
		n >>= 7
		if n == 0 {
			b.WriteByte(c)
			return b.Bytes()
		}
		b.WriteByte(c | 0x80)
	}
}
