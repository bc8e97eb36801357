package window

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/sluice-db/sluice/internal/model"
)

// KeyColumn is one column of the key the copy chunks by: its index in the
// row images, whether it is an integer column (the text protocol of a
// chunk's SELECT gives "7" where the binlog gives 7), and whether it is
// UNSIGNED (a binlog decoder without the column's signedness gives a large
// unsigned value as a negative one).
type KeyColumn struct {
	Index    int
	Integer  bool
	Unsigned bool
	// Bits is an integer column's width (24 for MEDIUMINT): go-mysql
	// decodes MEDIUMINT and INT alike as int32, sign-extended, so an
	// UNSIGNED MEDIUMINT over 2^23 can only be read back by its width.
	Bits uint
}

// Key is the exact identity of a row image by its key columns. The same
// stored key must give the same Key whether the image came from the
// chunk's SELECT (database/sql) or from the binlog (go-mysql), which decode
// integers in different widths and text as string or bytes; so integers
// are compared by value and text by its bytes. Two different stored keys
// never give the same Key: this is deliberately not the pipeline's
// conflict hash (internal/pipeline/keys.go), which merges keys on purpose
// (case, trailing spaces) because a merged key only adds ordering there;
// here it would drop a chunk row that no change carries, and lose it.
// Other key types are refused (the copy needs an integer or text key).
// Text is compared as bytes, so the caller must read a text key in the
// bytes the binlog carries: a column in utf8mb4, ascii or binary through
// a utf8mb4 connection; a latin1 key would arrive converted and is refused
// by the caller, not here.
func Key(image []any, cols []KeyColumn) (string, error) {
	var b strings.Builder
	for _, c := range cols {
		if c.Index < 0 || c.Index >= len(image) {
			return "", fmt.Errorf("window: key column %d outside a row of %d columns", c.Index, len(image))
		}
		s, err := keyValue(image[c.Index], c)
		if err != nil {
			return "", fmt.Errorf("window: key column %d: %w", c.Index, err)
		}
		b.WriteString(s)
		b.WriteByte(0)
	}
	return b.String(), nil
}

// keyValue is one key value's canonical spelling: "i" and the integer's
// decimal value, or "s" and the text's bytes.
func keyValue(v any, c KeyColumn) (string, error) {
	if b, ok := v.([]byte); ok {
		v = string(b)
	}
	unsigned := c.Unsigned
	width := func(goBits uint) uint {
		if c.Bits > 0 && c.Bits < goBits {
			return c.Bits
		}
		return goBits
	}
	switch x := v.(type) {
	case string:
		if !c.Integer {
			return "s" + x, nil
		}
		return integerText(x)
	case int8:
		return signed(int64(x), unsigned, width(8)), nil
	case int16:
		return signed(int64(x), unsigned, width(16)), nil
	case int32:
		return signed(int64(x), unsigned, width(32)), nil
	case int64:
		return signed(x, unsigned, 64), nil
	case int:
		return signed(int64(x), unsigned, 64), nil
	case uint8:
		return "i" + strconv.FormatUint(uint64(x), 10), nil
	case uint16:
		return "i" + strconv.FormatUint(uint64(x), 10), nil
	case uint32:
		return "i" + strconv.FormatUint(uint64(x), 10), nil
	case uint64:
		return "i" + strconv.FormatUint(x, 10), nil
	case uint:
		return "i" + strconv.FormatUint(uint64(x), 10), nil
	case nil, model.Unknown:
		return "", fmt.Errorf("no value")
	}
	return "", fmt.Errorf("%T is not a key type the online copy compares (integer or text)", v)
}

// integerText is an integer column's value as the text protocol gives it.
func integerText(s string) (string, error) {
	if i, err := strconv.ParseInt(s, 10, 64); err == nil {
		return "i" + strconv.FormatInt(i, 10), nil
	}
	u, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return "", fmt.Errorf("%q is not an integer", s)
	}
	return "i" + strconv.FormatUint(u, 10), nil
}

// signed spells an integer of a width; a negative value of an UNSIGNED
// column is the two's complement of its unsigned value in that width.
func signed(v int64, unsigned bool, bits uint) string {
	if unsigned && v < 0 {
		u := uint64(v)
		if bits < 64 {
			u &= 1<<bits - 1
		}
		return "i" + strconv.FormatUint(u, 10)
	}
	return "i" + strconv.FormatInt(v, 10)
}

// ChangeKeys are the keys one row change touches: the before image's and
// the after image's (they differ when an update changes the key).
func ChangeKeys(rc model.RowChange, cols []KeyColumn) ([]string, error) {
	var keys []string
	for _, img := range [][]any{rc.Before, rc.After} {
		if img == nil {
			continue
		}
		k, err := Key(img, cols)
		if err != nil {
			return nil, err
		}
		if len(keys) == 0 || keys[0] != k {
			keys = append(keys, k)
		}
	}
	return keys, nil
}
