package verifydb

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// myValue is the expression that turns parameter ? (bytes, sent on a
// binary-charset session) into the value of compared column i: text as
// the charset its bytes are in, so the server converts it to the column's
// charset if the target's differs (a no-op when it is the same).
func (p *Plan) myValue(i int) string {
	c := p.Cols[i]
	switch c.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		cs := p.Convs[i].Column.Charset
		if p.rawSelected(i) && cs != "" {
			return "CONVERT(? USING " + cs + ")"
		}
		return "CONVERT(? USING utf8mb4)"
	case typemap.KindJSON, typemap.KindUUID, typemap.KindInet:
		// MySQL's JSON refuses a binary string; UUID and INET columns would
		// take a binary string of their size as the packed value.
		return "CONVERT(? USING utf8mb4)"
	case typemap.KindYear:
		// A YEAR read with a parameter comes back over the binary protocol
		// as a number ("0"), and the string '0' is the year 2000: the number
		// 0 is 0000.
		return "CAST(? AS UNSIGNED)"
	}
	return "?"
}

// MyKeyCond is "column = value" for key column k, a raw key value as
// myKeySel prints it: numbers compared as numbers, text in the column's
// collation (so the key index is used).
func (p *Plan) MyKeyCond(k int, raw []byte) (string, any, error) {
	i := p.Key[k]
	c := p.Cols[i]
	col := p.Convs[i].Column
	name := schema.QuoteMySQL(c.Name)
	switch c.Kind {
	case typemap.KindText, typemap.KindEnum, typemap.KindSet:
		x := p.myValue(i)
		if !p.rawSelected(i) && col.Charset != "" && !strings.EqualFold(col.Charset, "utf8mb4") {
			x = "CONVERT(" + x + " USING " + col.Charset + ")"
		}
		if col.Collation != "" {
			x += " COLLATE " + col.Collation
		}
		return name + " = " + x, bytes.Clone(raw), nil
	case typemap.KindBit:
		if len(raw) > 8 {
			return "", nil, fmt.Errorf("key %s: BIT value of %d bytes", c.Name, len(raw))
		}
		var b [8]byte
		copy(b[8-len(raw):], raw)
		return name + " = ?", binary.BigEndian.Uint64(b[:]), nil
	case typemap.KindUUID, typemap.KindInet, typemap.KindJSON:
		return name + " = " + p.myValue(i), bytes.Clone(raw), nil
	}
	v, err := p.MyArg(k, raw)
	if err != nil {
		return "", nil, err
	}
	if b, ok := v.([]byte); ok {
		v = bytes.Clone(b)
	}
	return name + " = " + p.MyPlaceholder(k), v, nil
}

func (p *Plan) MyInsert() string {
	cols := make([]string, len(p.Cols))
	vals := make([]string, len(p.Cols))
	for i, c := range p.Cols {
		cols[i] = schema.QuoteMySQL(c.Name)
		vals[i] = p.myValue(i)
	}
	return "INSERT INTO " + p.TgtMy + " (" + strings.Join(cols, ", ") + ") VALUES (" + strings.Join(vals, ", ") + ")"
}
