package typemap

import (
	"bytes"
	"strings"
	"sync/atomic"
	"unicode/utf8"
)

// nulFilter applies Options.Nul to text: PostgreSQL text cannot hold U+0000.
type nulFilter struct {
	policy NulPolicy
	count  *atomic.Int64
}

func newNulFilter(c *column) (*nulFilter, error) {
	f := &nulFilter{policy: c.m.opts.Nul}
	switch f.policy {
	case "":
		f.policy = NulStrip
		f.count = c.counter("NUL stripped")
	case NulStrip:
		f.count = c.counter("NUL stripped")
	case NulReplace:
		f.count = c.counter("NUL replaced by U+FFFD")
	case NulError:
	default:
		return nil, c.errorf("unknown NUL policy %q (want strip, replace or error)", f.policy)
	}
	return f, nil
}

// apply returns b with its NUL bytes handled; b itself is never modified.
func (f *nulFilter) apply(c *column, b []byte) ([]byte, error) {
	if bytes.IndexByte(b, 0) < 0 {
		return b, nil
	}
	if f.policy == NulError {
		return nil, c.errorf("text contains a NUL character (U+0000), which PostgreSQL cannot store (--nul-char=error; use strip or replace)")
	}
	f.count.Add(1)
	out := make([]byte, 0, len(b)+2)
	for _, ch := range b {
		switch {
		case ch != 0:
			out = append(out, ch)
		case f.policy == NulReplace:
			out = append(out, "\uFFFD"...)
		}
	}
	return out, nil
}

// buildText converts CHAR, VARCHAR and the TEXT family. UTF-8 columns are
// read as text; other charsets are selected as their raw bytes (SelectExpr)
// and, like the binlog's raw bytes, decoded here with the same table.
func buildText(c *column, _ target) (convs, error) {
	nul, err := newNulFilter(c)
	if err != nil {
		return convs{}, err
	}
	decode, err := textDecoder(c)
	if err != nil {
		return convs{}, err
	}
	toBytes := func(b []byte) ([]byte, error) {
		b, err := decode(b)
		if err != nil {
			return nil, err
		}
		return nul.apply(c, b)
	}
	conv := func(b []byte) (any, error) {
		b, err := toBytes(b)
		if err != nil {
			return nil, err
		}
		return string(b), nil
	}
	return convs{
		text:      conv,
		textBytes: toBytes,
		binlog:    c.binlogAsText(conv),
	}, nil
}

// textDecoder returns a function giving the UTF-8 bytes of a text value in
// the column's charset. The result may alias its input for UTF-8 columns.
func textDecoder(c *column) (func([]byte) ([]byte, error), error) {
	if isUTF8Charset(c.col.Charset) {
		return func(b []byte) ([]byte, error) {
			if !utf8.Valid(b) {
				return nil, c.errorf("text is not valid UTF-8 at offset %d", invalidUTF8Offset(b))
			}
			return b, nil
		}, nil
	}
	decode, err := charsetDecoder(c.col.Charset, c.m.opts.Charsets)
	if err != nil {
		return nil, c.errorf("%v", err)
	}
	return func(b []byte) ([]byte, error) {
		out, err := decode(make([]byte, 0, len(b)+len(b)/2), b)
		if err != nil {
			return nil, c.errorf("%v", err)
		}
		return out, nil
	}, nil
}

// buildEnum converts ENUM into its label; the binlog gives the 1-based
// index, 0 being MySQL's invalid value ”.
func buildEnum(c *column, _ target) (convs, error) {
	labels := make([]any, len(c.col.Elements)+1)
	labels[0] = ""
	for i, e := range c.col.Elements {
		labels[i+1] = e
	}
	return convs{
		text: func(b []byte) (any, error) {
			if !utf8.Valid(b) {
				return nil, c.errorf("ENUM value is not valid UTF-8")
			}
			return string(b), nil
		},
		binlog: func(v any) (any, error) {
			i, ok := binlogInt(v, true, false)
			if !ok || i < 0 || i >= int64(len(labels)) {
				return nil, c.errorf("ENUM index %v out of range of %d members (schema out of date?)", v, len(c.col.Elements))
			}
			return labels[i], nil
		},
	}, nil
}

// buildSet converts SET into its members comma-separated in definition
// order, as MySQL prints it; the binlog gives the bit mask.
func buildSet(c *column, _ target) (convs, error) {
	members := c.col.Elements
	if len(members) > 64 {
		return convs{}, c.errorf("SET with %d members (MySQL allows 64)", len(members))
	}
	return convs{
		text: func(b []byte) (any, error) {
			if !utf8.Valid(b) {
				return nil, c.errorf("SET value is not valid UTF-8")
			}
			return string(b), nil
		},
		binlog: func(v any) (any, error) {
			var mask uint64
			switch x := v.(type) {
			case int64:
				mask = uint64(x)
			case uint64:
				mask = x
			default:
				return nil, c.unexpected(v)
			}
			if len(members) < 64 && mask>>uint(len(members)) != 0 {
				return nil, c.errorf("SET bit mask %#x has bits beyond its %d members (schema out of date?)", mask, len(members))
			}
			var sb strings.Builder
			first := true
			for i, m := range members {
				if mask&(1<<uint(i)) == 0 {
					continue
				}
				if !first {
					sb.WriteByte(',')
				}
				first = false
				sb.WriteString(m)
			}
			return sb.String(), nil
		},
	}, nil
}
