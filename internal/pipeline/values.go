package pipeline

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
)

// The scheduler sees row images in the source's own types (for MySQL, what
// go-mysql decodes: int8…int64 or uint8…uint64 by signedness metadata,
// float32/float64, strings and byte slices for text, binary, decimals,
// temporal values and JSON, nil for NULL). ValueEqual and the key writer are
// its one equality and one hash over them; sinks convert values only when
// they write them.

// valueNorm says how a key column's values are normalised before hashing.
type valueNorm struct {
	fold     bool // a text column: lower-case, trim trailing spaces, prefix in characters
	decimal  bool // a DECIMAL column: trailing fractional zeros dropped
	unsigned int  // bits of an UNSIGNED integer column (negative values wrap), 0 otherwise
}

var intBits = map[string]int{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

func normOf(c schema.Column) valueNorm {
	n := valueNorm{decimal: c.DataType == "decimal" || c.DataType == "numeric"}
	if c.Unsigned {
		n.unsigned = intBits[c.DataType]
	}
	n.fold = c.Charset != "" && c.Charset != "binary" && !c.IsJSON
	return n
}

// ValueEqual reports whether two source values are the same value of the
// same type. It may say false for equal values (merely skipping a fold or a
// multi-row statement), but never true for different ones.
func ValueEqual(a, b any) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	switch x := a.(type) {
	case model.Unknown:
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case []byte:
		y, ok := b.([]byte)
		return ok && bytes.Equal(x, y)
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case int32:
		y, ok := b.(int32)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case float32:
		y, ok := b.(float32)
		return ok && math.Float32bits(x) == math.Float32bits(y)
	}
	return reflect.TypeOf(a) == reflect.TypeOf(b) && reflect.DeepEqual(a, b)
}

// writeValue writes a normalised form of one key value. Equal values must
// write equal bytes; unequal values may (rarely) write equal bytes.
func (k *keyHasher) writeValue(v any, p keyPart) {
	switch x := v.(type) {
	case int64:
		k.writeInt(x, p.norm)
	case int32:
		k.writeInt(int64(x), p.norm)
	case int16:
		k.writeInt(int64(x), p.norm)
	case int8:
		k.writeInt(int64(x), p.norm)
	case int:
		k.writeInt(int64(x), p.norm)
	case uint64:
		k.h.WriteByte('i')
		k.writeUint(x)
	case uint32:
		k.h.WriteByte('i')
		k.writeUint(uint64(x))
	case uint16:
		k.h.WriteByte('i')
		k.writeUint(uint64(x))
	case uint8:
		k.h.WriteByte('i')
		k.writeUint(uint64(x))
	case string:
		k.writeText(x, p)
	case []byte:
		if p.norm.fold || p.norm.decimal {
			k.writeText(string(x), p)
			return
		}
		k.h.WriteByte('s')
		if p.prefix > 0 && len(x) > p.prefix {
			x = x[:p.prefix]
		}
		k.h.Write(x)
	case float64:
		k.h.WriteByte('f')
		k.writeUint(math.Float64bits(x))
	case float32:
		k.h.WriteByte('f')
		k.writeUint(math.Float64bits(float64(x)))
	default:
		// Rare key types: their printed form is deterministic for equal values.
		fmt.Fprintf(&k.h, "%T:%v", v, v)
	}
}

// writeInt hashes an integer by its value; a negative value of an UNSIGNED
// column (decoded without signedness metadata) by the unsigned value it is.
func (k *keyHasher) writeInt(n int64, norm valueNorm) {
	k.h.WriteByte('i')
	if n < 0 && norm.unsigned > 0 && norm.unsigned < 64 {
		k.writeUint(uint64(n) & (1<<norm.unsigned - 1))
		return
	}
	k.writeUint(uint64(n))
}

// writeText hashes text: folded for text columns, decimals by value, raw
// (prefix in bytes) for binary strings and temporal values. Strings and byte
// slices of one column hash alike, whichever go-mysql gives.
func (k *keyHasher) writeText(s string, p keyPart) {
	k.h.WriteByte('s')
	switch {
	case p.norm.decimal:
		k.h.WriteString(normDecimal(s))
	case p.norm.fold:
		k.h.WriteString(foldKeyText(s, p.prefix))
	default:
		if p.prefix > 0 && len(s) > p.prefix {
			s = s[:p.prefix]
		}
		k.h.WriteString(s)
	}
}

func (k *keyHasher) writeUint(u uint64) {
	binary.LittleEndian.PutUint64(k.buf[:], u)
	k.h.Write(k.buf[:])
}

// normDecimal drops trailing fractional zeros (and a bare point) and the
// sign of zero, so 1.50 and 1.5, -0.00 and 0 hash alike.
func normDecimal(s string) string {
	if strings.IndexByte(s, '.') >= 0 {
		s = strings.TrimRight(s, "0")
		s = strings.TrimSuffix(s, ".")
	}
	if s == "-0" || s == "" {
		return "0"
	}
	return s
}

// foldKeyText lower-cases and trims trailing spaces (MySQL's PAD SPACE
// collations ignore them) and cuts a prefix index part to its length in
// characters.
func foldKeyText(s string, prefix int) string {
	if prefix > 0 && utf8.RuneCountInString(s) > prefix {
		n := 0
		for i := range s {
			if n == prefix {
				s = s[:i]
				break
			}
			n++
		}
	}
	return strings.ToLower(strings.TrimRight(s, " "))
}

// UniqueUnchanged reports whether an update leaves the given columns (a
// table's unique-key columns, schema.Table.UniqueKeyColumns) as they were:
// such updates of distinct rows cannot collide on a unique index in
// whatever order the target runs them. ValueEqual may say no for equal
// values: the update then merely goes alone.
func UniqueUnchanged(cols []int, rc *model.RowChange) bool {
	for _, c := range cols {
		if c >= len(rc.Before) || c >= len(rc.After) || !ValueEqual(rc.Before[c], rc.After[c]) {
			return false
		}
	}
	return true
}
