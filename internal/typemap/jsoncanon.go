package typemap

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// CanonicalJSON prints a JSON document in one canonical form so that the
// text MariaDB stores and the text jsonb prints compare equal exactly when
// they hold the same document:
//
//   - object keys sorted by their UTF-8 bytes; a duplicated key keeps its
//     last value (what jsonb keeps);
//   - no insignificant whitespace; strings re-escaped one way (\u00e9 and é
//     are the same string);
//   - numbers by exact decimal value (1, 1.0, 1.00 and 1e0 are equal; no
//     float rounding: 0.1 and 0.10000000000000001 differ);
//   - on the source side, the snapshot's policies: an empty document is the
//     JSON null literal, and U+0000 in strings is stripped or replaced per
//     --nul-char, as typemap wrote them.
func CanonicalJSON(text []byte, source bool, nul NulPolicy) (string, error) {
	if source && len(bytes.TrimSpace(text)) == 0 {
		return "null", nil
	}
	dec := json.NewDecoder(bytes.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return "", fmt.Errorf("invalid JSON: %w", err)
	}
	if _, err := dec.Token(); err == nil {
		return "", fmt.Errorf("invalid JSON: data after the document")
	}
	var b bytes.Buffer
	w := jsonWriter{b: &b}
	if source {
		w.nul = nul
	}
	if err := w.write(v); err != nil {
		return "", err
	}
	return b.String(), nil
}

type jsonWriter struct {
	b   *bytes.Buffer
	nul NulPolicy // "" on the target side: strings as they are
}

func (w jsonWriter) write(v any) error {
	switch x := v.(type) {
	case map[string]any:
		keys := make([]string, 0, len(x))
		values := make(map[string]any, len(x))
		for k, e := range x {
			k2 := w.fixNul(k)
			keys = append(keys, k2)
			values[k2] = e
		}
		sort.Strings(keys)
		w.b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				w.b.WriteByte(',')
			}
			w.writeString(k)
			w.b.WriteByte(':')
			if err := w.write(values[k]); err != nil {
				return err
			}
		}
		w.b.WriteByte('}')
	case []any:
		w.b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.b.WriteByte(',')
			}
			if err := w.write(e); err != nil {
				return err
			}
		}
		w.b.WriteByte(']')
	case json.Number:
		d, err := canonicalDecimal(string(x))
		if err != nil {
			return err
		}
		w.b.WriteString(d)
	case string:
		w.writeString(w.fixNul(x))
	case bool:
		if x {
			w.b.WriteString("true")
		} else {
			w.b.WriteString("false")
		}
	case nil:
		w.b.WriteString("null")
	default:
		return fmt.Errorf("unexpected JSON value %T", v)
	}
	return nil
}

func (w jsonWriter) fixNul(s string) string {
	if !strings.Contains(s, "\x00") {
		return s
	}
	switch w.nul {
	case NulStrip:
		return strings.ReplaceAll(s, "\x00", "")
	case NulReplace:
		return strings.ReplaceAll(s, "\x00", "\uFFFD")
	}
	return s
}

func (w jsonWriter) writeString(s string) {
	enc := json.NewEncoder(w.b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	w.b.Truncate(w.b.Len() - 1)
}

// canonicalDecimal prints a JSON number by exact value as
// "[-]0.<digits>e<exponent>" (digits without leading or trailing zeros),
// the same layout floatCanon gives in SQL; zero is "0".
func canonicalDecimal(s string) (string, error) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, 0
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant = s[:i]
		e, err := strconv.Atoi(s[i+1:])
		if err != nil {
			return "", fmt.Errorf("JSON number %q", s)
		}
		exp = e
	}
	intLen := len(mant)
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intLen = i
		mant = mant[:i] + mant[i+1:]
	}
	trimmed := strings.TrimLeft(mant, "0")
	lz := len(mant) - len(trimmed)
	digits := strings.TrimRight(trimmed, "0")
	if digits == "" {
		return "0", nil
	}
	for _, ch := range digits {
		if ch < '0' || ch > '9' {
			return "", fmt.Errorf("JSON number %q", s)
		}
	}
	sign := ""
	if neg {
		sign = "-"
	}
	return fmt.Sprintf("%s0.%se%d", sign, digits, intLen-lz+exp), nil
}
