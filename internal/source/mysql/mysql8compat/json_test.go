package mysql8compat

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// jsonCase is one JSON document as MySQL 8 stores it (doc, encoded to
// JSONB) and as MySQL prints it (mysql: what SELECT doc or
// CAST(doc AS CHAR) returns). Where go-mysql's text is known to mean
// something else, gomysqlDefault / gomysqlText hold what go-mysql yields
// with RenderJSONAsMySQLText off / on; empty means "same as mysql".
type jsonCase struct {
	name           string
	doc            any
	mysql          string
	gomysqlDefault string
	gomysqlText    string
}

func jsonCorpus() []jsonCase {
	bigString := strings.Repeat("x", 70000)
	var bigArray jArray
	var bigArrayText []string
	for i := 0; i < 5000; i++ {
		bigArray = append(bigArray, true, false, nil, "a")
		bigArrayText = append(bigArrayText, `true, false, null, "a"`)
	}
	return []jsonCase{
		{
			name: "nested arrays and objects, MySQL key order",
			doc: jObject{{"b", 1}, {"a", jArray{1, jArray{2, jArray{3, jObject{{"c", nil}}}}, jObject{{"d", jArray{true}}}}},
				{"aa", jObject{}}, {"", jArray{}}},
			mysql: `{"": [], "a": [1, [2, [3, {"c": null}]], {"d": [true]}], "b": 1, "aa": {}}`,
		},
		{
			name:  "unicode and escapes",
			doc:   jObject{{"emoji", "😀 𝄞"}, {"cjk", "中文"}, {"esc", "quote\" backslash\\ slash/ nl\n tab\t ctl\x01"}, {"ключ", "значение"}},
			mysql: `{"cjk": "中文", "esc": "quote\" backslash\\ slash/ nl\n tab\t ctl\u0001", "emoji": "😀 𝄞", "ключ": "значение"}`,
		},
		{
			name: "int16, int32, int64 and uint edges",
			doc: jArray{0, -1, 32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649,
				9223372036854775807, -9223372036854775808, jUint(7), jUint(4000000000), jUint(18446744073709551615)},
			mysql: `[0, -1, 32767, 32768, -32768, -32769, 2147483647, 2147483648, -2147483648, -2147483649, ` +
				`9223372036854775807, -9223372036854775808, 7, 4000000000, 18446744073709551615]`,
		},
		{
			name: "doubles",
			doc: jArray{1.0, -0.5, 3.14, 1e20, 1.5e-7, 1.7976931348623157e308, 5e-324, 0.1, 123456789012345680000.0,
				1e23, math.Copysign(0, -1)},
			mysql: `[1.0, -0.5, 3.14, 1e20, 1.5e-7, 1.7976931348623157e308, 5e-324, 0.1, 1.2345678901234568e20, 1e23, -0.0]`,
			// go-mysql's RenderJSONAsMySQLText prints whole-number doubles with
			// FormatFloat(f, 'f', 1): the exact binary value, not the shortest
			// decimal MySQL prints (same double, a different jsonb numeric).
			// typemap re-renders them as MySQL does (typemap/jsonnum.go), so
			// sluice writes MySQL's numbers in both modes.
		},
		{
			name:  "literals",
			doc:   jObject{{"t", true}, {"f", false}, {"n", nil}},
			mysql: `{"f": false, "n": null, "t": true}`,
		},
		{
			name: "DECIMAL inside JSON (JSON_OBJECT('price', 9.99))",
			doc: jObject{{"price", jsonDecimal("9.99", 3, 2)}, {"neg", jsonDecimal("-0.001", 4, 3)},
				{"big", jsonDecimal("12345678901234567890.123456789", 29, 9)}},
			mysql: `{"big": 12345678901234567890.123456789, "neg": -0.001, "price": 9.99}`,
			// Default go-mysql decodes the opaque DECIMAL to a Go string and
			// json.Marshal quotes it: the number becomes a JSON string.
			gomysqlDefault: `{"big": "12345678901234567890.123456789", "neg": "-0.001", "price": "9.99"}`,
		},
		{
			name: "DATETIME, DATE, TIME, TIMESTAMP inside JSON",
			doc: jObject{
				{"dt", jsonTemporal(mysql.MYSQL_TYPE_DATETIME, packedDatetime(civilTime{2015, 1, 15, 15, 16, 17, 123456}))},
				{"dt0", jsonTemporal(mysql.MYSQL_TYPE_DATETIME, packedDatetime(civilTime{2024, 2, 29, 23, 59, 59, 0}))},
				{"d", jsonTemporal(mysql.MYSQL_TYPE_DATE, packedDatetime(civilTime{2014, 5, 17, 0, 0, 0, 0}))},
				{"t", jsonTemporal(mysql.MYSQL_TYPE_TIME, packedTime(false, 13, 14, 15, 654321))},
				{"tneg", jsonTemporal(mysql.MYSQL_TYPE_TIME, packedTime(true, 838, 59, 59, 0))},
				{"ts", jsonTemporal(mysql.MYSQL_TYPE_TIMESTAMP, packedDatetime(civilTime{2038, 1, 19, 3, 14, 7, 999999}))},
			},
			mysql: `{"d": "2014-05-17", "t": "13:14:15.654321", "dt": "2015-01-15 15:16:17.123456", ` +
				`"ts": "2038-01-19 03:14:07.999999", "dt0": "2024-02-29 23:59:59.000000", "tneg": "-838:59:59.000000"}`,
			// Default go-mysql prints an opaque DATE like a DATETIME.
			gomysqlDefault: `{"d": "2014-05-17 00:00:00.000000", "t": "13:14:15.654321", "dt": "2015-01-15 15:16:17.123456", ` +
				`"ts": "2038-01-19 03:14:07.999999", "dt0": "2024-02-29 23:59:59.000000", "tneg": "-838:59:59.000000"}`,
		},
		{
			name:  "TIME 00:00:00 inside JSON",
			doc:   jObject{{"t", jsonTemporal(mysql.MYSQL_TYPE_TIME, packedTime(false, 0, 0, 0, 0))}},
			mysql: `{"t": "00:00:00.000000"}`,
			// go-mysql's decodeTime returns "00:00:00" for a packed 0 in both modes.
			gomysqlDefault: `{"t": "00:00:00"}`,
			gomysqlText:    `{"t": "00:00:00"}`,
		},
		{
			name: "binary opaque values (JSON_ARRAY(CAST(x AS BINARY)), a TINYBLOB as in json_binary-t.cc)",
			doc: jArray{jOpaque{mysql.MYSQL_TYPE_TINY_BLOB, []byte{0xbe, 0xba, 0xfe, 0xca}},
				jOpaque{mysql.MYSQL_TYPE_VARCHAR, []byte("abc")}},
			mysql: `["base64:type249:vrr+yg==", "base64:type15:YWJj"]`,
			// Default go-mysql hands the raw bytes to json.Marshal as a string:
			// invalid UTF-8 becomes U+FFFD and the type is lost.
			gomysqlDefault: `["\ufffd\ufffd\ufffd\ufffd", "abc"]`,
		},
		{
			name:  "opaque VAR_STRING (MySQL prints it as a plain string)",
			doc:   jArray{jOpaque{mysql.MYSQL_TYPE_VAR_STRING, []byte("abc")}},
			mysql: `["abc"]`,
			// RenderJSONAsMySQLText lacks wrapper_to_string's VAR_STRING rule.
			gomysqlText: `["base64:type253:YWJj"]`,
		},
		{
			name: "large object (4-byte offsets, inlined int32/uint32)",
			doc: jObject{{"big", bigString}, {"n", 1}, {"i32", 2147483647}, {"u32", jUint(4000000000)},
				{"small", jArray{1, 2}}},
			mysql: fmt.Sprintf(`{"n": 1, "big": %q, "i32": 2147483647, "u32": 4000000000, "small": [1, 2]}`, bigString),
		},
		{
			name:  "large array (20000 elements)",
			doc:   bigArray,
			mysql: "[" + strings.Join(bigArrayText, ", ") + "]",
		},
		{name: "scalar string document", doc: "abc", mysql: `"abc"`},
		{name: "scalar int document", doc: 42, mysql: `42`},
		{name: "scalar double document", doc: -1.5, mysql: `-1.5`},
		{name: "scalar true document", doc: true, mysql: `true`},
		{name: "scalar null document", doc: nil, mysql: `null`},
		{name: "empty object", doc: jObject{}, mysql: `{}`},
		{name: "empty array", doc: jArray{}, mysql: `[]`},
	}
}

// jsonColumn compiles the converter of a MySQL 8 JSON column.
func jsonColumn(t *testing.T) *typemap.ColumnConv {
	t.Helper()
	cc, err := typemap.New(typemap.DefaultOptions(), nil).CompileColumn(
		schema.TableID{Database: "shop", Name: "docs"},
		schema.Column{Name: "doc", Ordinal: 2, DataType: "json", ColumnType: "json", IsJSON: true, Nullable: true})
	if err != nil {
		t.Fatalf("compile JSON column: %v", err)
	}
	if cc.PGType != "jsonb" {
		t.Fatalf("JSON column maps to %s, want jsonb", cc.PGType)
	}
	return cc
}

// docsTableMap is the table map of shop.docs (id INT, doc JSON).
func docsTableMap() []byte {
	return tableMapBody("shop", "docs", []column{
		{typ: mysql.MYSQL_TYPE_LONG},
		{typ: mysql.MYSQL_TYPE_JSON, meta: []byte{4}},
	}, nil)
}

// decodeJSONDocs writes each document as one WRITE_ROWS event on shop.docs,
// parses the stream and returns the value go-mysql decoded per document.
func decodeJSONDocs(t *testing.T, o parserOptions, docs [][]byte) []any {
	t.Helper()
	s := newBinlogStream()
	for i, doc := range docs {
		s.add(replication.TABLE_MAP_EVENT, docsTableMap())
		s.add(replication.WRITE_ROWS_EVENTv2, rowsBody(2, false, rowImage(int32Value(int32(i)), jsonValue(doc))))
	}
	var got []any
	for _, e := range parseStream(t, newParser(o), s) {
		re, ok := e.Event.(*replication.RowsEvent)
		if !ok {
			continue
		}
		if len(re.Rows) != 1 || re.Rows[0][0] != int32(len(got)) {
			t.Fatalf("rows event %d: rows %v", len(got), re.Rows)
		}
		got = append(got, re.Rows[0][1])
	}
	if len(got) != len(docs) {
		t.Fatalf("decoded %d documents, wrote %d", len(got), len(docs))
	}
	return got
}

func canonical(t *testing.T, what, text string) string {
	t.Helper()
	c, err := typemap.CanonicalJSON([]byte(text), false, "")
	if err != nil {
		t.Fatalf("%s is not JSON: %v\n%.300s", what, err, text)
	}
	return c
}

// TestBinaryJSONThroughGoMySQLAndTypemap decodes every corpus document
// from a WRITE_ROWS_EVENT v2, converts it with typemap's JSON converter and
// compares it, by value, with what MySQL prints for it — under both of
// go-mysql's JSON renderings. Known deviations are asserted exactly, so a
// go-mysql upgrade that changes them fails here.
func TestBinaryJSONThroughGoMySQLAndTypemap(t *testing.T) {
	corpus := jsonCorpus()
	docs := make([][]byte, len(corpus))
	for i, c := range corpus {
		docs[i] = jsonb(c.doc)
	}
	conv := jsonColumn(t)
	for _, mode := range []struct {
		name string
		opts parserOptions
	}{
		{"default", parserOptions{}},
		{"RenderJSONAsMySQLText", parserOptions{renderJSONAsMySQLText: true}},
	} {
		t.Run(mode.name, func(t *testing.T) {
			values := decodeJSONDocs(t, mode.opts, docs)
			for i, c := range corpus {
				want := c.mysql
				if dev := c.gomysqlDefault; dev != "" && !mode.opts.renderJSONAsMySQLText {
					want = dev
				}
				if dev := c.gomysqlText; dev != "" && mode.opts.renderJSONAsMySQLText {
					want = dev
				}
				if _, ok := values[i].(string); !ok {
					t.Errorf("%s: go-mysql value is %T, want string", c.name, values[i])
					continue
				}
				out, err := conv.FromBinlog(values[i])
				if err != nil {
					t.Errorf("%s: FromBinlog: %v", c.name, err)
					continue
				}
				text, ok := out.(string)
				if !ok {
					t.Errorf("%s: FromBinlog gave %T, want string (JSON text for jsonb)", c.name, out)
					continue
				}
				got, exp := canonical(t, c.name+" (sluice)", text), canonical(t, c.name+" (expected)", want)
				if got != exp {
					t.Errorf("%s: sluice writes\n%.400s\nwant (canonical)\n%.400s", c.name, got, exp)
				}
			}
		})
	}
}

// TestJSONLargeFormatIsUsed guards the corpus: the "large" documents must
// really use the 4-byte-offset format, and the others the small one.
func TestJSONLargeFormatIsUsed(t *testing.T) {
	for _, c := range jsonCorpus() {
		typ := jsonb(c.doc)[0]
		large := typ == replication.JSONB_LARGE_OBJECT || typ == replication.JSONB_LARGE_ARRAY
		if want := strings.HasPrefix(c.name, "large"); large != want {
			t.Errorf("%s: type byte %#x, large format %v, want %v", c.name, typ, large, want)
		}
	}
}

// TestJSONEdgeValuesInTypemap covers what typemap adds on top of go-mysql:
// an empty JSON value (INSERT IGNORE / non-strict NULL into NOT NULL) is
// JSON null, and U+0000 inside a string, which jsonb cannot store, follows
// --nul-char (strip by default, error on request).
func TestJSONEdgeValuesInTypemap(t *testing.T) {
	nulDoc := jsonb(jObject{{"s", "a\x00b"}})
	for _, mode := range []parserOptions{{}, {renderJSONAsMySQLText: true}} {
		s := newBinlogStream()
		s.add(replication.TABLE_MAP_EVENT, docsTableMap())
		s.add(replication.WRITE_ROWS_EVENTv2, rowsBody(2, false,
			append(rowImage(int32Value(1), jsonValue(nil)), rowImage(int32Value(2), jsonValue(nulDoc))...)))
		re := rowsEventOf(t, parseStream(t, newParser(mode), s))
		if len(re.Rows) != 2 {
			t.Fatalf("%+v: %d rows, want 2", mode, len(re.Rows))
		}
		conv := jsonColumn(t)
		if got, err := conv.FromBinlog(re.Rows[0][1]); err != nil || got != "null" {
			t.Errorf("%+v: empty JSON value (go-mysql %#v) → %#v, %v; want \"null\"", mode, re.Rows[0][1], got, err)
		}
		got, err := conv.FromBinlog(re.Rows[1][1])
		if err != nil || canonical(t, "nul", fmt.Sprint(got)) != `{"s":"ab"}` {
			t.Errorf("%+v: %q → %#v, %v; want {\"s\":\"ab\"} (NUL stripped)", mode, re.Rows[1][1], got, err)
		}

		opts := typemap.DefaultOptions()
		opts.Nul = typemap.NulError
		strict, err := typemap.New(opts, nil).CompileColumn(schema.TableID{Database: "shop", Name: "docs"},
			schema.Column{Name: "doc", DataType: "json", IsJSON: true, Nullable: true})
		if err != nil {
			t.Fatal(err)
		}
		_, err = strict.FromBinlog(re.Rows[1][1])
		const want = `table shop.docs column doc (json): JSON contains \u0000, which jsonb cannot store (--nul-char=error; use strip or replace)`
		if err == nil || err.Error() != want {
			t.Errorf("%+v: --nul-char=error gives %v, want %q", mode, err, want)
		}
	}
}
