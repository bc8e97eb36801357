package kafka

import (
	"encoding/json"
	"math"
	"testing"
)

// The hand-written encoders must write exactly what encoding/json writes.
func TestAppendJSONMatchesMarshal(t *testing.T) {
	type named int64
	for _, v := range []any{nil, int64(0), int64(math.MinInt64), int64(math.MaxInt64), int32(-7), 42, uint64(math.MaxUint64),
		uint32(7), true, false, "", "plain text 123 ~!@#$%^*()_+{}|:?`-=[];',./", "a<b>c&d", `quote " back \`, "é ü 漢字",
		"nul \x00 tab \t newline \n", "\u2028\u2029", "bad \xff utf8", 1.5, float32(0.1), 1e21, named(3), json.Number("12"),
		[]byte("bytes"), map[string]any{"a": 1}} {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendJSON([]byte("x"), v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != "x"+string(want) {
			t.Errorf("%#v: got %s, want x%s", v, got, want)
		}
	}
}

func TestAppendEnvelopeMatchesMarshal(t *testing.T) {
	table := "t"
	src := sourceInfo{Version: "sluice-dev", Connector: "mysql", Name: "p", TsMs: 1700000000000, Snapshot: "false", DB: "d",
		Table: &table, ServerID: 2, File: "mysql-bin.000001", Pos: 4, Row: 1}
	srcJSON, err := json.Marshal(src)
	if err != nil {
		t.Fatal(err)
	}
	tx := json.RawMessage(`{"id":"x:1","total_order":1,"data_collection_order":1}`)
	for _, c := range []struct {
		before, after json.RawMessage
		op            string
		tx            *json.RawMessage
	}{
		{json.RawMessage("null"), json.RawMessage(`{"id":1,"s":"a\u003cb"}`), "c", nil},
		{json.RawMessage(`{"id":1}`), json.RawMessage(`{"id":2}`), "u", &tx},
		{json.RawMessage(`{"id":1}`), json.RawMessage("null"), "d", nil},
	} {
		want, err := json.Marshal(envelope{Before: c.before, After: c.after, Source: src, Op: c.op, TsMs: 1700000000123, Transaction: c.tx})
		if err != nil {
			t.Fatal(err)
		}
		var txRaw json.RawMessage
		if c.tx != nil {
			txRaw = *c.tx
		}
		if got := appendEnvelope(nil, c.before, c.after, srcJSON, c.op, 1700000000123, txRaw); string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}
