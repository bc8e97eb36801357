package mysql8compat

import (
	"encoding/binary"
	"testing"

	"github.com/go-mysql-org/go-mysql/replication"
)

// jsonDiff is one entry of a Json_diff_vector (sql/json_diff.cc,
// Json_diff::write_binary): operation, path length (packed integer), path,
// and for REPLACE/INSERT the value length (packed integer) and JSONB value.
type jsonDiff struct {
	op    replication.JsonDiffOperation
	path  string
	value any // JSON value for REPLACE and INSERT
}

// partialJSONValue is a JSON column value in the after image of a
// PARTIAL_UPDATE_ROWS_EVENT: Json_diff_vector::write_binary's 4-byte
// length, then the diffs.
func partialJSONValue(diffs ...jsonDiff) []byte {
	var v []byte
	for _, d := range diffs {
		v = append(v, byte(d.op))
		v = append(v, lenenc(uint64(len(d.path)))...)
		v = append(v, d.path...)
		if d.op != replication.JsonDiffOperationRemove {
			doc := jsonb(d.value)
			v = append(v, lenenc(uint64(len(doc)))...)
			v = append(v, doc...)
		}
	}
	return append(binary.LittleEndian.AppendUint32(nil, uint32(len(v))), v...)
}

// partialAfterImage is an after image of PARTIAL_UPDATE_ROWS_EVENT:
// binlog_row_value_options as a packed integer (1 = PARTIAL_JSON), the
// partial_bits bitmap (one bit per JSON column), then a normal row image.
func partialAfterImage(partial bool, values ...[]byte) []byte {
	bits := byte(0)
	if partial {
		bits = 1
	}
	return append([]byte{1, bits}, rowImage(values...)...)
}

// partialUpdateRows are the row image pairs of the PARTIAL_UPDATE_ROWS_EVENT
// on shop.docs: every before image is the full {"a":1,"b":"x"}.
func partialUpdateRows() []byte {
	before := jsonb(jObject{{"a", 1}, {"b", "x"}})
	var rows []byte
	// 1: JSON_REPLACE(doc, '$.a', 5)
	rows = append(rows, rowImage(int32Value(1), jsonValue(before))...)
	rows = append(rows, partialAfterImage(true, int32Value(1),
		partialJSONValue(jsonDiff{replication.JsonDiffOperationReplace, "$.a", 5}))...)
	// 2: a full after image inside the same partial event (partial bit 0)
	rows = append(rows, rowImage(int32Value(2), jsonValue(before))...)
	rows = append(rows, partialAfterImage(false, int32Value(2), jsonValue(jsonb(jObject{{"a", 2}})))...)
	// 3: two diffs in one column: go-mysql keeps only the first
	rows = append(rows, rowImage(int32Value(3), jsonValue(before))...)
	rows = append(rows, partialAfterImage(true, int32Value(3), partialJSONValue(
		jsonDiff{replication.JsonDiffOperationReplace, "$.a", 7},
		jsonDiff{replication.JsonDiffOperationRemove, "$.b", nil}))...)
	// 4: JSON_INSERT, 5: JSON_REMOVE
	rows = append(rows, rowImage(int32Value(4), jsonValue(before))...)
	rows = append(rows, partialAfterImage(true, int32Value(4),
		partialJSONValue(jsonDiff{replication.JsonDiffOperationInsert, "$.c", "new"}))...)
	rows = append(rows, rowImage(int32Value(5), jsonValue(before))...)
	rows = append(rows, partialAfterImage(true, int32Value(5),
		partialJSONValue(jsonDiff{replication.JsonDiffOperationRemove, "$.b", nil}))...)

	return rows
}

// TestPartialJSONUpdateIsRefused feeds a PARTIAL_UPDATE_ROWS_EVENT
// (binlog_row_value_options=PARTIAL_JSON) on shop.docs (id INT, doc JSON)
// and checks that go-mysql hands over *replication.JsonDiff values and
// that typemap refuses them with an error telling the user what to change.
func TestPartialJSONUpdateIsRefused(t *testing.T) {
	s := newBinlogStream()
	s.add(replication.TABLE_MAP_EVENT, docsTableMap())
	s.add(replication.PARTIAL_UPDATE_ROWS_EVENT, rowsBody(2, true, partialUpdateRows()))
	events := parseStream(t, newParser(parserOptions{}), s)
	if events[1].Header.EventType != replication.PARTIAL_UPDATE_ROWS_EVENT {
		t.Fatalf("event type %s", events[1].Header.EventType)
	}
	re := rowsEventOf(t, events)
	// RowsEvent.Type() does not know this event type: a stream that
	// dispatches on Type() alone would not treat it as an update.
	if re.Type() != replication.EnumRowsEventTypeUnknown {
		t.Errorf("Type() = %s; the stream's handling of PARTIAL_UPDATE_ROWS_EVENT relies on it being unknown", re.Type())
	}
	if len(re.Rows) != 10 {
		t.Fatalf("%d row images, want 10", len(re.Rows))
	}

	wantDiffs := map[int]replication.JsonDiff{
		1: {Op: replication.JsonDiffOperationReplace, Path: "$.a", Value: "5"},
		5: {Op: replication.JsonDiffOperationReplace, Path: "$.a", Value: "7"}, // the REMOVE of $.b is dropped
		7: {Op: replication.JsonDiffOperationInsert, Path: "$.c", Value: `"new"`},
		9: {Op: replication.JsonDiffOperationRemove, Path: "$.b"},
	}
	conv := jsonColumn(t)
	const refusal = "table shop.docs column doc (json): partial JSON update in the binlog (binlog_row_value_options=PARTIAL_JSON, " +
		"globally or in the writing session): sluice needs full JSON values; set binlog_row_value_options='' " +
		"globally and in the application's sessions, then restart replication from a fresh snapshot of this table"
	for i, row := range re.Rows {
		if row[0] != int32(i/2+1) {
			t.Errorf("image %d: id %v", i, row[0])
		}
		want, partial := wantDiffs[i]
		if !partial {
			got, err := conv.FromBinlog(row[1])
			if err != nil {
				t.Errorf("image %d: full JSON %v refused: %v", i, row[1], err)
				continue
			}
			wantDoc := `{"a":1,"b":"x"}`
			if i == 3 {
				wantDoc = `{"a":2}`
			}
			if c := canonical(t, "full image", got.(string)); c != canonical(t, "want", wantDoc) {
				t.Errorf("image %d: %s, want %s", i, c, wantDoc)
			}
			continue
		}
		diff, ok := row[1].(*replication.JsonDiff)
		if !ok {
			t.Errorf("image %d: %T %v, want *replication.JsonDiff", i, row[1], row[1])
			continue
		}
		if *diff != want {
			t.Errorf("image %d: %s, want %s", i, diff, &want)
		}
		if _, err := conv.FromBinlog(diff); err == nil || err.Error() != refusal {
			t.Errorf("image %d: FromBinlog error %v, want %q", i, err, refusal)
		}
	}
}
