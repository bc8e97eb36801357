package kafka

import (
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// field is one column's encoder into Debezium's default JSON representation
// (docs/kafka.md has the table). Values first go through typemap, the one
// place that reads MySQL values (binlog images and snapshot text alike), so
// the snapshot's "r" events and the binlog's "c/u/d" events cannot disagree;
// the encoder then turns typemap's value into what Debezium emits.
type field struct {
	col      schema.Column
	name     []byte // the column name as a JSON string
	conv     *typemap.ColumnConv
	utf8Text bool // a text column in a UTF-8 charset: its bytes pass unchanged (NULs too)
	// rawJSON: a JSON document typemap refuses (a \u0000 escape, which
	// PostgreSQL's jsonb cannot hold) is passed as its text: a Kafka string can.
	rawJSON bool
	schema  map[string]any
	encode  func(v any) (any, error)
}

// tableCodec encodes the rows of one table version.
type tableCodec struct {
	table  *schema.Table
	fields []*field
	key    []int  // positions of the key columns (nil: keyless table, null key)
	topic  string // Config.TableTopic of the table, built once
	// keyExtra ends every key object with the shard (LayoutKey: layout.go).
	keyExtra []byte
	// keySchema and valueSchema are the JsonConverter schema blocks.
	keySchema, rowSchema map[string]any
}

func newTableCodec(m *typemap.Mapper, t *schema.Table, cfg Config) (*tableCodec, error) {
	tc := &tableCodec{table: t, topic: cfg.TableTopic(t.TableID), keyExtra: cfg.keyExtra(t.TableID)}
	for _, c := range t.Columns {
		f, err := newField(m, t.TableID, c)
		if err != nil {
			return nil, err
		}
		tc.fields = append(tc.fields, f)
	}
	// Debezium's key is the primary key; a table without one has a null key
	// (message.key.columns is not offered).
	for _, name := range t.PrimaryKey {
		i := t.ColumnIndex(name)
		if i < 0 {
			return nil, fmt.Errorf("table %s: primary key column %s not in the table", t.TableID, name)
		}
		tc.key = append(tc.key, i)
	}
	base := tc.topic
	tc.rowSchema = structSchema(base+".Value", tc.fields, nil, true)
	if tc.key != nil {
		tc.keySchema = structSchema(base+".Key", tc.fields, tc.key, false)
		if tc.keyExtra != nil {
			// As Debezium's router adds it to the key schema.
			tc.keySchema["fields"] = append(tc.keySchema["fields"].([]any),
				map[string]any{"type": "string", "optional": false, "field": PhysicalIDField})
		}
	}
	return tc, nil
}

func structSchema(name string, fields []*field, only []int, optional bool) map[string]any {
	var fs []any
	add := func(f *field) {
		s := map[string]any{}
		for k, v := range f.schema {
			s[k] = v
		}
		s["field"] = f.col.Name
		s["optional"] = f.col.Nullable
		fs = append(fs, s)
	}
	if only != nil {
		for _, i := range only {
			add(fields[i])
		}
	} else {
		for _, f := range fields {
			add(f)
		}
	}
	return map[string]any{"type": "struct", "fields": fs, "optional": optional, "name": name}
}

// row encodes a row image (source values from the binlog) as an ordered JSON object.
func (tc *tableCodec) row(vals []any, fromText bool) (json.RawMessage, error) {
	return tc.object(vals, nil, fromText)
}

// keyOf encodes the key columns of a row image; nil for a keyless table.
func (tc *tableCodec) keyOf(vals []any, fromText bool) (json.RawMessage, error) {
	if tc.key == nil {
		return nil, nil
	}
	return tc.appendKey(make([]byte, 0, 64), vals, fromText)
}

// appendKey appends the key object of a row image: its key columns, and
// with LayoutKey the shard.
func (tc *tableCodec) appendKey(dst []byte, vals []any, fromText bool) ([]byte, error) {
	dst, err := tc.appendObject(dst, vals, tc.key, fromText)
	if err != nil || tc.keyExtra == nil || vals == nil {
		return dst, err
	}
	return append(append(dst[:len(dst)-1], tc.keyExtra...), '}'), nil
}

func (tc *tableCodec) object(vals []any, only []int, fromText bool) (json.RawMessage, error) {
	if vals == nil {
		return json.RawMessage("null"), nil
	}
	return tc.appendObject(make([]byte, 0, 64+16*len(tc.fields)), vals, only, fromText)
}

// appendObject appends what object returns to dst: the caller's buffer
// takes the row image directly (one allocation per event, not one per part).
func (tc *tableCodec) appendObject(dst []byte, vals []any, only []int, fromText bool) ([]byte, error) {
	if vals == nil {
		return append(dst, "null"...), nil
	}
	dst = append(dst, '{')
	n := len(tc.fields)
	if only != nil {
		n = len(only)
	}
	for k := 0; k < n; k++ {
		i := k
		if only != nil {
			i = only[k]
		}
		if i >= len(vals) {
			return dst, fmt.Errorf("table %s: row image has %d values, column %s is number %d", tc.table.TableID, len(vals), tc.fields[i].col.Name, i+1)
		}
		f := tc.fields[i]
		v, err := f.value(vals[i], fromText)
		if err != nil {
			return dst, err
		}
		if k > 0 {
			dst = append(dst, ',')
		}
		dst = append(append(dst, f.name...), ':')
		if dst, err = appendJSON(dst, v); err != nil {
			return dst, fmt.Errorf("table %s column %s: %w", tc.table.TableID, f.col.Name, err)
		}
	}
	return append(dst, '}'), nil
}

// appendJSON appends json.Marshal(v) to b: integers and plain ASCII strings
// (the bulk of most rows) directly, every other value through
// encoding/json, so the bytes are always those json.Marshal would write.
func appendJSON(b []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), nil
	case int64:
		return strconv.AppendInt(b, x, 10), nil
	case int32:
		return strconv.AppendInt(b, int64(x), 10), nil
	case int:
		return strconv.AppendInt(b, int64(x), 10), nil
	case uint64:
		return strconv.AppendUint(b, x, 10), nil
	case uint32:
		return strconv.AppendUint(b, uint64(x), 10), nil
	case bool:
		return strconv.AppendBool(b, x), nil
	case string:
		return appendJSONString(b, x), nil
	}
	enc, err := json.Marshal(v)
	if err != nil {
		return b, err
	}
	return append(b, enc...), nil
}

// appendJSONString appends json.Marshal(s).
func appendJSONString(b []byte, s string) []byte {
	if plainASCII(s) {
		return append(append(append(b, '"'), s...), '"')
	}
	enc, _ := json.Marshal(s) // a string always marshals
	return append(b, enc...)
}

// plainASCII reports whether json.Marshal writes s unchanged between quotes:
// printable ASCII without the characters it escapes (quote, backslash, and
// the HTML-sensitive <, >, &).
func plainASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return false
		}
	}
	return true
}

// value converts one source value (a binlog value, or the text protocol's
// bytes when fromText) into its Debezium JSON value.
func (f *field) value(v any, fromText bool) (any, error) {
	if v == nil {
		return nil, nil
	}
	if f.utf8Text {
		switch x := v.(type) {
		case string:
			return x, nil
		case []byte:
			return string(x), nil
		}
	}
	var err error
	raw := v
	if fromText {
		b, ok := v.([]byte)
		if !ok {
			return nil, fmt.Errorf("column %s: snapshot value of type %T", f.col.Name, v)
		}
		v, err = f.conv.FromText(b)
	} else {
		v, err = f.conv.FromBinlog(v)
	}
	if err != nil {
		if f.rawJSON {
			switch x := raw.(type) {
			case string:
				return x, nil
			case []byte:
				return string(x), nil
			}
		}
		return nil, err
	}
	if v == nil {
		return nil, nil
	}
	out, err := f.encode(v)
	if err != nil {
		return nil, fmt.Errorf("column %s (%s): %w", f.col.Name, f.col.ColumnType, err)
	}
	return out, nil
}
