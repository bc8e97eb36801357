package rowpolicy

import (
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// class is an expression's static type: what MySQL would compare it as.
type class uint8

const (
	clNull  class = iota // the NULL literal: compares with anything, always NULL
	clInt                // exact integer (int64)
	clDec                // exact decimal (big.Rat)
	clFloat              // DOUBLE
	clStr                // text, compared under a collation
	clBin                // bytes (binary strings, BLOBs)
	clTime               // DATE or DATETIME, canonical text
)

func (c class) String() string {
	return [...]string{"NULL", "integer", "decimal", "double", "string", "binary string", "date/datetime"}[c]
}

func (c class) numeric() bool { return c == clInt || c == clDec || c == clFloat }

// val is one evaluated value; null marks SQL NULL whatever the class.
type val struct {
	null bool
	k    class
	i    int64
	r    *big.Rat
	f    float64
	s    string // clStr, clBin (bytes as a string), clTime (canonical)
}

var null = val{null: true}

func intVal(i int64) val { return val{k: clInt, i: i} }

func boolVal(b bool) val {
	if b {
		return intVal(1)
	}
	return intVal(0)
}

// rat is an exact numeric value as a rational (clInt or clDec).
func (v val) rat() *big.Rat {
	if v.k == clInt {
		return new(big.Rat).SetInt64(v.i)
	}
	return v.r
}

// float is a numeric value as MySQL's DOUBLE.
func (v val) float() float64 {
	switch v.k {
	case clInt:
		return float64(v.i)
	case clDec:
		f, _ := v.r.Float64()
		return f
	}
	return v.f
}

// tri is SQL's three-valued truth (a value, not a pointer: the evaluator
// allocates nothing per row).
type tri uint8

const (
	unknown tri = iota // NULL
	isFalse
	isTrue
)

func triOf(b bool) tri {
	if b {
		return isTrue
	}
	return isFalse
}

// truth is the value in a boolean context: unknown for NULL.
func (v val) truth() tri {
	if v.null {
		return unknown
	}
	switch v.k {
	case clInt:
		return triOf(v.i != 0)
	case clDec:
		return triOf(v.r.Sign() != 0)
	case clFloat:
		return triOf(v.f != 0)
	}
	return isFalse // refused at compile time: strings are not conditions here
}

// colClass is the class a column's values are compared as, or an error
// naming why the column is outside the supported subset.
func colClass(c *schema.Column) (class, error) {
	switch strings.ToLower(c.DataType) {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year":
		return clInt, nil
	case "decimal", "numeric":
		return clDec, nil
	case "float", "double", "real":
		return clFloat, nil
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext", "enum":
		if c.IsJSON {
			return 0, fmt.Errorf("column %s is JSON: JSON values and paths are not supported in --where", c.Name)
		}
		if c.Charset == "binary" {
			return clBin, nil
		}
		if _, err := collationOf(c.Collation); err != nil {
			return 0, fmt.Errorf("column %s: %w", c.Name, err)
		}
		return clStr, nil
	case "binary", "varbinary", "tinyblob", "blob", "mediumblob", "longblob":
		if c.DataType == "binary" {
			return 0, fmt.Errorf("column %s is BINARY(n): its zero padding is not supported in --where (use VARBINARY or compare another column)", c.Name)
		}
		return clBin, nil
	case "date", "datetime":
		return clTime, nil
	}
	return 0, fmt.Errorf("column %s is %s: not supported in --where (supported: integers, DECIMAL, FLOAT/DOUBLE, CHAR/VARCHAR/TEXT/ENUM, VARBINARY/BLOB, DATE, DATETIME)", c.Name, c.ColumnType)
}

// columnValue converts one row-image value (as the binlog decoder or the
// snapshot reader gives it) into a val of the column's class.
func columnValue(c *schema.Column, k class, v any) (val, error) {
	if v == nil {
		return null, nil
	}
	switch k {
	case clInt:
		return intOf(c, v)
	case clDec:
		s, ok := text(v)
		if !ok {
			return val{}, fmt.Errorf("column %s: DECIMAL value of type %T", c.Name, v)
		}
		r, ok := new(big.Rat).SetString(strings.TrimSpace(s))
		if !ok {
			return val{}, fmt.Errorf("column %s: a value that does not read as a DECIMAL", c.Name)
		}
		return val{k: clDec, r: r}, nil
	case clFloat:
		switch x := v.(type) {
		case float64:
			return val{k: clFloat, f: x}, nil
		case float32:
			return val{k: clFloat, f: float64(x)}, nil
		}
		s, ok := text(v)
		if !ok {
			return val{}, fmt.Errorf("column %s: FLOAT value of type %T", c.Name, v)
		}
		f, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return val{}, fmt.Errorf("column %s: a value that does not read as a FLOAT", c.Name)
		}
		return val{k: clFloat, f: f}, nil
	case clStr:
		return strOf(c, v)
	case clBin:
		s, ok := text(v)
		if !ok {
			return val{}, fmt.Errorf("column %s: binary value of type %T", c.Name, v)
		}
		return val{k: clBin, s: s}, nil
	case clTime:
		s, ok := text(v)
		if !ok {
			return val{}, fmt.Errorf("column %s: temporal value of type %T", c.Name, v)
		}
		t, err := canonicalTime(s)
		if err != nil {
			return val{}, fmt.Errorf("column %s: %w", c.Name, err)
		}
		return val{k: clTime, s: t}, nil
	}
	return val{}, fmt.Errorf("column %s: unsupported class %s", c.Name, k)
}

var intBits = map[string]uint{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// intOf reads an integer; the binlog carries UNSIGNED values with the sign
// bit set as negative numbers (MariaDB logs no signedness), so they wrap
// (a MEDIUMINT by its 24 bits: go-mysql gives it as a sign-extended int32).
// typemap.binlogInt, window.keyValue and alter's keyParam decode the same
// widths, each into its own result (int64 only, a key's text, a query
// parameter); this one also reads text and gives an UNSIGNED BIGINT over
// 2^63 as a decimal. One shared decoder is left for a change that owns
// those packages.
func intOf(c *schema.Column, v any) (val, error) {
	var i int64
	switch x := v.(type) {
	case int8:
		i = int64(x)
	case int16:
		i = int64(x)
	case int32:
		i = int64(x)
	case int64:
		i = x
	case int:
		i = int64(x)
	case uint8:
		i = int64(x)
	case uint16:
		i = int64(x)
	case uint32:
		i = int64(x)
	case uint64:
		if x > math.MaxInt64 {
			return val{k: clDec, r: new(big.Rat).SetInt(new(big.Int).SetUint64(x))}, nil
		}
		i = int64(x)
	default:
		s, ok := text(v)
		if !ok {
			return val{}, fmt.Errorf("column %s: integer value of type %T", c.Name, v)
		}
		if c.Unsigned {
			u, err := strconv.ParseUint(s, 10, 64)
			if err != nil {
				return val{}, fmt.Errorf("column %s: a value that does not read as an integer", c.Name)
			}
			return intOf(c, u)
		}
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return val{}, fmt.Errorf("column %s: a value that does not read as an integer", c.Name)
		}
		return intVal(n), nil
	}
	if c.Unsigned && i < 0 {
		bits := intBits[strings.ToLower(c.DataType)]
		if bits == 64 {
			return intOf(c, uint64(i))
		}
		if bits > 0 {
			i += int64(1) << bits
		}
	}
	return intVal(i), nil
}

// strOf reads a text value: the binlog gives an ENUM as its 1-based index,
// a CHAR without the trailing spaces a SELECT strips too.
func strOf(c *schema.Column, v any) (val, error) {
	if strings.EqualFold(c.DataType, "enum") {
		switch x := v.(type) {
		case int64, int32, int16, int8, int:
			n, _ := intOf(&schema.Column{Name: c.Name, DataType: "bigint"}, x)
			if n.i == 0 {
				return val{k: clStr, s: ""}, nil // the invalid-value member
			}
			if n.i < 1 || int(n.i) > len(c.Elements) {
				return val{}, fmt.Errorf("column %s: ENUM index %d outside its %d members", c.Name, n.i, len(c.Elements))
			}
			return val{k: clStr, s: c.Elements[n.i-1]}, nil
		}
	}
	s, ok := text(v)
	if !ok {
		return val{}, fmt.Errorf("column %s: text value of type %T", c.Name, v)
	}
	if strings.EqualFold(c.DataType, "char") {
		s = strings.TrimRight(s, " ")
	}
	return val{k: clStr, s: s}, nil
}

func text(v any) (string, bool) {
	switch x := v.(type) {
	case string:
		return x, true
	case []byte:
		return string(x), true
	}
	return "", false
}
