package binlog

import (
	"bytes"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	gomysql "github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
)

func TestValueLength(t *testing.T) {
	long := make([]byte, 2+300)
	binary.LittleEndian.PutUint16(long, 300)
	blob3 := []byte{0x10, 0x27, 0x00} // 10000
	for _, c := range []struct {
		name string
		tp   byte
		meta uint16
		data []byte
		want int
	}{
		{"tinyint", gomysql.MYSQL_TYPE_TINY, 0, nil, 1},
		{"year", gomysql.MYSQL_TYPE_YEAR, 0, nil, 1},
		{"smallint", gomysql.MYSQL_TYPE_SHORT, 0, nil, 2},
		{"mediumint", gomysql.MYSQL_TYPE_INT24, 0, nil, 3},
		{"int", gomysql.MYSQL_TYPE_LONG, 0, nil, 4},
		{"bigint", gomysql.MYSQL_TYPE_LONGLONG, 0, nil, 8},
		{"float", gomysql.MYSQL_TYPE_FLOAT, 4, nil, 4},
		{"double", gomysql.MYSQL_TYPE_DOUBLE, 8, nil, 8},
		{"date", gomysql.MYSQL_TYPE_DATE, 0, nil, 3},
		{"old time", gomysql.MYSQL_TYPE_TIME, 0, nil, 3},
		{"old timestamp", gomysql.MYSQL_TYPE_TIMESTAMP, 0, nil, 4},
		{"old datetime", gomysql.MYSQL_TYPE_DATETIME, 0, nil, 8},
		{"timestamp(0)", gomysql.MYSQL_TYPE_TIMESTAMP2, 0, nil, 4},
		{"timestamp(2)", gomysql.MYSQL_TYPE_TIMESTAMP2, 2, nil, 5},
		{"timestamp(3)", gomysql.MYSQL_TYPE_TIMESTAMP2, 3, nil, 6},
		{"timestamp(6)", gomysql.MYSQL_TYPE_TIMESTAMP2, 6, nil, 7},
		{"datetime(0)", gomysql.MYSQL_TYPE_DATETIME2, 0, nil, 5},
		{"datetime(5)", gomysql.MYSQL_TYPE_DATETIME2, 5, nil, 8},
		{"datetime(6)", gomysql.MYSQL_TYPE_DATETIME2, 6, nil, 8},
		{"time(0)", gomysql.MYSQL_TYPE_TIME2, 0, nil, 3},
		{"time(1)", gomysql.MYSQL_TYPE_TIME2, 1, nil, 4},
		{"time(4)", gomysql.MYSQL_TYPE_TIME2, 4, nil, 5},
		{"decimal(10,0)", gomysql.MYSQL_TYPE_NEWDECIMAL, 10 << 8, nil, 5},
		{"decimal(20,6)", gomysql.MYSQL_TYPE_NEWDECIMAL, 20<<8 | 6, nil, 10},
		{"decimal(65,30)", gomysql.MYSQL_TYPE_NEWDECIMAL, 65<<8 | 30, nil, 30},
		{"decimal(5,5)", gomysql.MYSQL_TYPE_NEWDECIMAL, 5<<8 | 5, nil, 3},
		{"bit(1)", gomysql.MYSQL_TYPE_BIT, 1, nil, 1},
		{"bit(10)", gomysql.MYSQL_TYPE_BIT, 1<<8 | 2, nil, 2},
		{"bit(64)", gomysql.MYSQL_TYPE_BIT, 8 << 8, nil, 8},
		{"enum", gomysql.MYSQL_TYPE_STRING, uint16(gomysql.MYSQL_TYPE_ENUM)<<8 | 1, nil, 1},
		{"enum 2 bytes", gomysql.MYSQL_TYPE_STRING, uint16(gomysql.MYSQL_TYPE_ENUM)<<8 | 2, nil, 2},
		{"set", gomysql.MYSQL_TYPE_STRING, uint16(gomysql.MYSQL_TYPE_SET)<<8 | 3, nil, 3},
		{"char(10)", gomysql.MYSQL_TYPE_STRING, uint16(gomysql.MYSQL_TYPE_STRING)<<8 | 10, []byte{3, 'a', 'b', 'c'}, 4},
		// CHAR(100) utf8mb4: 400 bytes, high bits of the length in the type byte.
		{"char(100) utf8mb4", gomysql.MYSQL_TYPE_STRING, uint16(gomysql.MYSQL_TYPE_STRING^0x10)<<8 | (400 & 0xff), long, 302},
		{"varchar(20)", gomysql.MYSQL_TYPE_VARCHAR, 20, []byte{2, 'h', 'i'}, 3},
		{"varchar(300)", gomysql.MYSQL_TYPE_VARCHAR, 300, long, 302},
		{"varchar(255)", gomysql.MYSQL_TYPE_VARCHAR, 255, []byte{255}, 256},
		{"varchar(256)", gomysql.MYSQL_TYPE_VARCHAR, 256, []byte{1, 0}, 3},
		{"tinyblob", gomysql.MYSQL_TYPE_BLOB, 1, []byte{7}, 8},
		{"blob", gomysql.MYSQL_TYPE_BLOB, 2, []byte{0x2c, 0x01}, 302},
		{"mediumblob", gomysql.MYSQL_TYPE_BLOB, 3, blob3, 10003},
		{"longblob", gomysql.MYSQL_TYPE_BLOB, 4, []byte{1, 0, 0, 1}, 4 + 1<<24 + 1},
		{"geometry", gomysql.MYSQL_TYPE_GEOMETRY, 4, []byte{25, 0, 0, 0}, 29},
		{"json", gomysql.MYSQL_TYPE_JSON, 4, []byte{9, 0, 0, 0}, 13},
		{"vector", gomysql.MYSQL_TYPE_VECTOR, 4, []byte{12, 0, 0, 0}, 16},
	} {
		got, err := valueLength(c.tp, c.meta, c.data)
		if err != nil || got != c.want {
			t.Errorf("%s: %d, %v; want %d", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		tp   byte
		meta uint16
		data []byte
	}{
		{gomysql.MYSQL_TYPE_DECIMAL, 0, nil},
		{gomysql.MYSQL_TYPE_BLOB, 5, []byte{1, 2, 3, 4, 5}},
		{gomysql.MYSQL_TYPE_BLOB, 4, []byte{1}},
		{gomysql.MYSQL_TYPE_VARCHAR, 300, []byte{1}},
	} {
		if n, err := valueLength(c.tp, c.meta, c.data); err == nil {
			t.Errorf("type %d meta %d: %d, want an error", c.tp, c.meta, n)
		}
	}
}

func TestDecimalBinSize(t *testing.T) {
	// MySQL's decimal_bin_size for a few precisions and scales.
	for _, c := range [][3]int{{1, 0, 1}, {9, 0, 4}, {10, 0, 5}, {18, 9, 8}, {19, 9, 9}, {38, 10, 18}, {65, 0, 29}} {
		if got := decimalBinSize(c[0], c[1]); got != c[2] {
			t.Errorf("decimal(%d,%d): %d bytes, want %d", c[0], c[1], got, c[2])
		}
	}
}

// diffBytes builds a Json_diff_vector.
func diffBytes(diffs ...rawDiff) []byte {
	var b []byte
	for _, d := range diffs {
		b = append(b, byte(d.op), byte(len(d.path)))
		b = append(b, d.path...)
		if d.op != replication.JsonDiffOperationRemove {
			if len(d.value) >= 251 {
				b = append(b, 0xfc, byte(len(d.value)), byte(len(d.value)>>8))
			} else {
				b = append(b, byte(len(d.value)))
			}
			b = append(b, d.value...)
		}
	}
	return b
}

func jsonCol(v []byte) []byte {
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(v))), v...)
}

func TestWalkPartialRows(t *testing.T) {
	// id INT, j1 JSON, v VARCHAR(10), j2 JSON, j3 JSON, d DATETIME(6)
	tm := &replication.TableMapEvent{
		ColumnCount: 6,
		ColumnType: []byte{gomysql.MYSQL_TYPE_LONG, gomysql.MYSQL_TYPE_JSON, gomysql.MYSQL_TYPE_VARCHAR,
			gomysql.MYSQL_TYPE_JSON, gomysql.MYSQL_TYPE_JSON, gomysql.MYSQL_TYPE_DATETIME2},
		ColumnMeta: []uint16{0, 4, 10, 4, 4, 6},
	}
	all := []byte{0x3f}
	big := bytes.Repeat([]byte{'x'}, 300)
	d1 := diffBytes(
		rawDiff{op: replication.JsonDiffOperationReplace, path: "$.a", value: []byte{replication.JSONB_INT16, 3, 0}},
		rawDiff{op: replication.JsonDiffOperationRemove, path: "$.b[0]"},
		rawDiff{op: replication.JsonDiffOperationInsert, path: `$."k"`, value: append([]byte{replication.JSONB_STRING, 0xac, 0x02}, big...)},
	)
	d3 := diffBytes(rawDiff{op: replication.JsonDiffOperationRemove, path: "$[last]"})
	fullDoc := []byte{replication.JSONB_LITERAL, replication.JSONB_TRUE_LITERAL}
	var data []byte
	// Row 1 before: all present, j3 NULL.
	data = append(data, 0x10)                   // null bitmap: j3
	data = append(data, 1, 0, 0, 0)             // id
	data = append(data, jsonCol(fullDoc)...)    // j1
	data = append(data, 2, 'h', 'i')            // v
	data = append(data, jsonCol(fullDoc)...)    // j2
	data = append(data, 0, 0, 0, 0, 0, 1, 2, 3) // d: 5 + 3 bytes
	// Row 1 after: partial j1, full j2, j3 partial bit set but NULL.
	data = append(data, 1, 0x05, 0x10) // value options, partial bits j1 and j3, null bitmap: j3
	data = append(data, 1, 0, 0, 0)
	data = append(data, jsonCol(d1)...)
	data = append(data, 0)
	data = append(data, jsonCol(fullDoc)...)
	data = append(data, 0, 0, 0, 0, 0, 1, 2, 3)
	// Row 2 before and after: no partial option in the after image.
	data = append(data, 0x3e, 2, 0, 0, 0)
	data = append(data, 0, 0x3e, 2, 0, 0, 0)
	// Row 3: j3 partial (empty diff vector on j1).
	data = append(data, 0x00, 3, 0, 0, 0)
	data = append(data, jsonCol(fullDoc)...)
	data = append(data, 0)
	data = append(data, jsonCol(fullDoc)...)
	data = append(data, jsonCol(fullDoc)...)
	data = append(data, 0, 0, 0, 0, 0, 0, 0, 0)
	data = append(data, 1, 0x05, 0x00, 3, 0, 0, 0)
	data = append(data, jsonCol(nil)...)
	data = append(data, 0)
	data = append(data, jsonCol(fullDoc)...)
	data = append(data, jsonCol(d3)...)
	data = append(data, 0, 0, 0, 0, 0, 0, 0, 0)

	rows, err := walkPartialRows(tm, 6, all, all, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 3 || len(rows[0]) != 1 || len(rows[1]) != 0 || len(rows[2]) != 2 {
		t.Fatalf("rows %v", rows)
	}
	if !bytes.Equal(rows[0][1], d1) || len(rows[2][1]) != 0 || !bytes.Equal(rows[2][4], d3) {
		t.Fatalf("diff bytes %v", rows)
	}
	diffs, err := splitDiffs(rows[0][1])
	if err != nil || len(diffs) != 3 || diffs[0].path != "$.a" || diffs[1].op != replication.JsonDiffOperationRemove ||
		diffs[2].path != `$."k"` || len(diffs[2].value) != 303 {
		t.Fatalf("diffs %+v, %v", diffs, err)
	}
	// Truncated events are errors, not panics.
	for n := 1; n < len(data); n += 7 {
		if _, err := walkPartialRows(tm, 6, all, all, data[:n]); err == nil {
			t.Errorf("truncated at %d: no error", n)
		}
	}
	// Only some columns in the after image (bitmap 2 without v).
	part := []byte{0x00, 9, 0, 0, 0}
	part = append(part, jsonCol(fullDoc)...)
	part = append(part, 0)
	part = append(part, jsonCol(fullDoc)...)
	part = append(part, jsonCol(fullDoc)...)
	part = append(part, 0, 0, 0, 0, 0, 0, 0, 0)
	part = append(part, 1, 0x02, 0x00, 9, 0, 0, 0) // j2 partial; bitmap has id, j1(absent)... see below
	part = append(part, jsonCol(d3)...)
	rows, err = walkPartialRows(tm, 6, all, []byte{0x09}, part) // after: id and j2
	if err != nil || len(rows) != 1 || !bytes.Equal(rows[0][3], d3) {
		t.Fatalf("sparse after image: %v, %v", rows, err)
	}
	if _, err := splitDiffs([]byte{7, 1, '$'}); err == nil {
		t.Error("unknown operation accepted")
	}
}

func TestParseJSONPath(t *testing.T) {
	for path, want := range map[string]string{
		"$":                  "",
		"$.a":                `"a"`,
		"$.a.b[3]":           `"a" "b" [3]`,
		`$."quoted key"[0]`:  `"quoted key" [0]`,
		`$."a.b"."q\"u"`:     `"a.b" "q\"u"`,
		"$[3][last][last-2]": "[3] [last-0] [last-2]",
		"$ . a [ 1 ]":        `"a" [1]`,
		`$."\u00e9"`:         `"é"`,
		"$.é":                `"é"`,
	} {
		legs, err := parseJSONPath(path)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			continue
		}
		var parts []string
		for _, l := range legs {
			parts = append(parts, l.String())
		}
		if got := strings.Join(parts, " "); got != want {
			t.Errorf("%s: %s, want %s", path, got, want)
		}
	}
	for _, bad := range []string{"", "a", "$.*", "$[*]", "$**.a", "$[1 to 3]", "$[-1]", `$."open`, "$.", "$[1"} {
		if legs, err := parseJSONPath(bad); err == nil {
			t.Errorf("%q: %v, want an error", bad, legs)
		}
	}
}

func testKey(k string) (string, error) { return strconv.Quote(k), nil }

func TestApplyDiffs(t *testing.T) {
	const (
		rep = replication.JsonDiffOperationReplace
		ins = replication.JsonDiffOperationInsert
		rem = replication.JsonDiffOperationRemove
	)
	doc := `{"a":1,"b":[1,2,3],"n":{"x":0,"y":"s"},"long key":1.0}`
	for _, c := range []struct {
		name  string
		diffs []jsonDiff
		want  string
	}{
		{"replace several", []jsonDiff{{rep, "$.a", `"x"`}, {rep, "$.b[1]", `20`}, {rep, "$.n.y", `null`}},
			`{"a":"x","b":[1,20,3],"n":{"x":0,"y":null},"long key":1.0}`},
		{"replace with nested", []jsonDiff{{rep, "$.n", `{"k":[true,false]}`}}, `{"a":1,"b":[1,2,3],"n":{"k":[true,false]},"long key":1.0}`},
		{"replace quoted", []jsonDiff{{rep, `$."long key"`, `2.5`}}, `{"a":1,"b":[1,2,3],"n":{"x":0,"y":"s"},"long key":2.5}`},
		{"replace last", []jsonDiff{{rep, "$.b[last]", `9`}, {rep, "$.b[last-2]", `7`}}, `{"a":1,"b":[7,2,9],"n":{"x":0,"y":"s"},"long key":1.0}`},
		{"replace scalar [0]", []jsonDiff{{rep, "$.a[0]", `5`}}, `{"a":5,"b":[1,2,3],"n":{"x":0,"y":"s"},"long key":1.0}`},
		{"replace root", []jsonDiff{{rep, "$", `[1]`}}, `[1]`},
		{"insert keys in order", []jsonDiff{{ins, "$.zz", `1`}, {ins, "$.c", `2`}, {ins, "$.aa", `3`}, {ins, "$.verylongkey", `4`}},
			`{"a":1,"b":[1,2,3],"c":2,"n":{"x":0,"y":"s"},"aa":3,"zz":1,"long key":1.0,"verylongkey":4}`},
		{"insert array", []jsonDiff{{ins, "$.b[1]", `"i"`}, {ins, "$.b[10]", `"end"`}, {ins, "$.b[0]", `0`}},
			`{"a":1,"b":[0,1,"i",2,3,"end"],"n":{"x":0,"y":"s"},"long key":1.0}`},
		{"insert nested", []jsonDiff{{ins, "$.n.w", `{}`}, {ins, "$.n.w.q", `[]`}, {ins, "$.n.w.q[0]", `"d"`}},
			`{"a":1,"b":[1,2,3],"n":{"w":{"q":["d"]},"x":0,"y":"s"},"long key":1.0}`},
		{"remove", []jsonDiff{{rem, "$.b[0]", ""}, {rem, "$.n.x", ""}, {rem, `$."long key"`, ""}, {rem, "$.b[last]", ""}},
			`{"a":1,"b":[2],"n":{"y":"s"}}`},
		{"none", nil, doc},
	} {
		got, err := applyDiffs(doc, c.diffs, testKey)
		if err != nil || got != c.want {
			t.Errorf("%s: %s, %v\nwant %s", c.name, got, err, c.want)
		}
	}
	for _, c := range []struct {
		name string
		d    jsonDiff
	}{
		{"replace missing member", jsonDiff{rep, "$.zz", `1`}},
		{"replace past the end", jsonDiff{rep, "$.b[3]", `1`}},
		{"insert present member", jsonDiff{ins, "$.a", `1`}},
		{"insert into scalar", jsonDiff{ins, "$.a.k", `1`}},
		{"insert member into array", jsonDiff{ins, "$.b.k", `1`}},
		{"remove missing", jsonDiff{rem, "$.q", ``}},
		{"remove past the end", jsonDiff{rem, "$.b[3]", ``}},
		{"remove root", jsonDiff{rem, "$", ``}},
		{"bad value", jsonDiff{rep, "$.a", `{`}},
		{"bad path", jsonDiff{rep, "$.*", `1`}},
	} {
		if got, err := applyDiffs(doc, []jsonDiff{c.d}, testKey); err == nil {
			t.Errorf("%s: %s, want an error", c.name, got)
		}
	}
}

func TestJSONTextRoundTrip(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, `null`, `"s"`, `1.0`, `-1.5e+300`, `{"a":[1,{"b":[]},"\"q\"\\\u0001"],"\u00e9":"é"}`,
		`[[[[]]],{"":{}}]`, "\"bytes \xff\xfe\"",
	} {
		n, err := parseJSONText(s)
		if err != nil {
			t.Errorf("%s: %v", s, err)
			continue
		}
		var b strings.Builder
		n.render(&b)
		if b.String() != s {
			t.Errorf("%s rendered as %s", s, b.String())
		}
	}
	if n, err := parseJSONText(`{"\u00e9\ud83d\ude00":1}`); err != nil || n.keys[0].name != "é😀" {
		t.Errorf("escaped key: %+v, %v", n, err)
	}
	for _, bad := range []string{``, `{`, `[1,`, `{"a" 1}`, `{"a":1]`, `"open`, `[1]x`, `{1:2}`} {
		if _, err := parseJSONText(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestResolvePartialJSON: the after images of a partial event get every
// diff of their partial columns; an event that cannot be walked makes every
// JSON value of its after images an error, never a guess.
func TestResolvePartialJSON(t *testing.T) {
	tm := &replication.TableMapEvent{ColumnCount: 3,
		ColumnType: []byte{gomysql.MYSQL_TYPE_LONG, gomysql.MYSQL_TYPE_JSON, gomysql.MYSQL_TYPE_JSON},
		ColumnMeta: []uint16{0, 4, 4}}
	d := diffBytes(rawDiff{op: replication.JsonDiffOperationRemove, path: "$.a"},
		rawDiff{op: replication.JsonDiffOperationRemove, path: `$."b c"[1]`})
	full := []byte{replication.JSONB_LITERAL, replication.JSONB_NULL_LITERAL}
	data := []byte{0x00, 1, 0, 0, 0}
	data = append(data, jsonCol(full)...)
	data = append(data, jsonCol(full)...)
	data = append(data, 1, 0x01, 0x00, 1, 0, 0, 0)
	data = append(data, jsonCol(d)...)
	data = append(data, jsonCol(full)...)
	newEvent := func() *replication.RowsEvent {
		return &replication.RowsEvent{Table: tm, ColumnCount: 3, ColumnBitmap1: []byte{7}, ColumnBitmap2: []byte{7},
			Rows: [][]any{{int32(1), `{"a":1,"b c":[1,2,3]}`, "null"}, {int32(1), &replication.JsonDiff{}, "null"}}}
	}
	e := newEvent()
	resolvePartialJSON(e, append([]byte{0xee}, data...), 1)
	p, ok := e.Rows[1][1].(*partialJSON)
	if !ok || p.err != nil || len(p.diffs) != 2 || p.diffs[1].path != `$."b c"[1]` {
		t.Fatalf("after image %#v", e.Rows[1][1])
	}
	if e.Rows[1][2] != "null" {
		t.Errorf("full column replaced: %#v", e.Rows[1][2])
	}
	doc, err := applyPartial(e.Rows[0][1], p, testKey)
	if err != nil || doc != `{"b c":[1,3]}` {
		t.Errorf("applied: %s, %v", doc, err)
	}
	for _, before := range []any{nil, []byte{}, int64(1)} {
		if _, err := applyPartial(before, p, testKey); err == nil {
			t.Errorf("before %#v: no error", before)
		}
	}

	e = newEvent()
	resolvePartialJSON(e, data[:len(data)-1], 0)
	for i := 1; i < 3; i++ {
		if p, ok := e.Rows[1][i].(*partialJSON); !ok || p.err == nil {
			t.Errorf("truncated event, column %d: %#v", i, e.Rows[1][i])
		}
	}
	if e.Rows[0][1] != `{"a":1,"b c":[1,2,3]}` {
		t.Errorf("before image changed: %#v", e.Rows[0][1])
	}
}
