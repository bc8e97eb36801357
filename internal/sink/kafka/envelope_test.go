package kafka

import (
	"encoding/json"
	"math"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sluice-db/sluice/internal/model"
	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/source/mysql/binlogpos"
	"github.com/sluice-db/sluice/internal/typemap"
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
		got := appendEnvelopeTail(append(append(append([]byte(`{"before":`), c.before...), `,"after":`...), c.after...),
			srcJSON, c.op, 1700000000123, txRaw)
		if string(got) != string(want) {
			t.Errorf("got  %s\nwant %s", got, want)
		}
	}
}

func TestAppendSourceMatchesMarshal(t *testing.T) {
	str := func(s string) *string { return &s }
	thread := int64(-12)
	for _, si := range []sourceInfo{
		{},
		{Version: "sluice-dev", Connector: "mysql", Name: "p", TsMs: 1700000000000, Snapshot: "false", DB: "d",
			Table: str("t"), ServerID: 2, File: "mysql-bin.000001", Pos: 4, Row: 1},
		{Version: "sluice-v1.2.3", Connector: "mysql", Name: "a<b>&\"q\"", TsMs: -5, Snapshot: "last", DB: "é ü 漢字",
			Sequence: str("seq"), Table: str("tab\tle \x00 \xff"), ServerID: math.MaxUint32,
			GTID: str("3e11fa47-71ca-11e1-9e33-c80aa9429562:1-77"), File: "binlog.000123", Pos: math.MaxUint32,
			Row: 17, Thread: &thread, Query: str("INSERT INTO t VALUES ('\u2028')")},
	} {
		want, err := json.Marshal(si)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendSource([]byte("x"), &si); string(got) != "x"+string(want) {
			t.Errorf("got  %s\nwant x%s", got, want)
		}
	}
}

// TestRowRecordsMatchReference: the records of a row change are those the
// reference encoding (row images through object, the envelope through
// json.Marshal) gives, for every op, with and without transaction metadata
// and schemas.
func TestRowRecordsMatchReference(t *testing.T) {
	tbl := &schema.Table{TableID: schema.TableID{Database: "db", Name: "t<1>"}, PrimaryKey: []string{"id", "k"},
		Columns: []schema.Column{
			{Name: "id", Ordinal: 1, DataType: "int", ColumnType: "int(11)"},
			{Name: "k", Ordinal: 2, DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4"},
			{Name: "v", Ordinal: 3, DataType: "varchar", ColumnType: "varchar(20)", CharMaxLength: 20, Charset: "utf8mb4", Nullable: true},
			{Name: "d", Ordinal: 4, DataType: "decimal", ColumnType: "decimal(10,2)", Precision: 10, Scale: 2, Nullable: true},
		}}
	keyless := &schema.Table{TableID: schema.TableID{Database: "db", Name: "nokey"}, Columns: tbl.Columns[:3]}
	row := func(id int32, k string, v any) []any { return []any{id, k, v, "12.50"} }
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pos := binlogpos.Position{File: "binlog.000007", Pos: 1234, GTIDSet: "3e11fa47-71ca-11e1-9e33-c80aa9429562:1-9", Flavor: "mysql"}
	txn := &model.Txn{GTID: "3e11fa47-71ca-11e1-9e33-c80aa9429562:9", End: pos, Timestamp: when}
	changes := []model.RowChange{
		{Table: tbl, Op: model.Insert, After: row(1, "a", "x\"y")},
		{Table: tbl, Op: model.Update, Before: row(1, "a", nil), After: row(1, "a", "é")},
		{Table: tbl, Op: model.Update, Before: row(1, "a", "q"), After: row(2, "a", "q")},
		{Table: tbl, Op: model.Delete, Before: row(2, "a", "<>&")},
		{Table: keyless, Op: model.Insert, After: []any{int32(3), "b", nil}},
		{Table: keyless, Op: model.Delete, Before: []any{int32(3), "b", nil}},
	}
	for _, cfg := range []Config{{Prefix: "p", Version: "dev", ServerID: 7},
		{Prefix: "p", Version: "dev", ServerID: 7, NoTombstones: true, Schemas: true}} {
		for _, meta := range []bool{false, true} {
			s := &Sink{cfg: cfg, mapper: typemap.New(typemap.Options{ZeroDate: typemap.ZeroDateNull, Nul: typemap.NulError}, nil),
				codecs: map[*schema.Table]*tableCodec{}, nowMs: func() int64 { return refNow }}
			o, ref := txnOrigin(txn), txnOrigin(txn)
			if meta {
				o.tx, ref.tx = newTxnMeta(txn), newTxnMeta(txn)
			}
			for i := range changes {
				got, err := s.rowRecords(&changes[i], o, i, false)
				if err != nil {
					t.Fatal(err)
				}
				want, err := s.referenceRecords(&changes[i], ref, i)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(want) {
					t.Fatalf("change %d: %d records, want %d", i, len(got), len(want))
				}
				for j := range got {
					g, w := got[j], want[j]
					if g.Topic != w.Topic || string(g.Key) != string(w.Key) || string(g.Value) != string(w.Value) ||
						(g.Key == nil) != (w.Key == nil) || (g.Value == nil) != (w.Value == nil) {
						t.Errorf("change %d record %d:\ngot  %s %s %s\nwant %s %s %s", i, j, g.Topic, g.Key, g.Value, w.Topic, w.Key, w.Value)
					}
				}
			}
		}
	}
}

const refNow = 1767323045123

// referenceRecords is rowRecords written with encoding/json (the encoding
// before appendEvent; ts_ms of the envelope taken from the record to compare).
func (s *Sink) referenceRecords(rc *model.RowChange, o origin, row int) ([]*kgo.Record, error) {
	tc, err := s.codec(rc.Table)
	if err != nil {
		return nil, err
	}
	src := s.source(o, rc.Table.TableID, row)
	var out []*kgo.Record
	emit := func(op string, before, after []any) error {
		img := after
		if img == nil {
			img = before
		}
		key, err := tc.keyOf(img, false)
		if err != nil {
			return err
		}
		var tx *json.RawMessage
		if o.tx != nil {
			tx = o.tx.next(rc.Table.Database + "." + rc.Table.Name)
		}
		b, err := tc.object(before, nil, false)
		if err != nil {
			return err
		}
		a, err := tc.object(after, nil, false)
		if err != nil {
			return err
		}
		val, err := json.Marshal(envelope{Before: b, After: a, Source: src, Op: op, TsMs: refNow, Transaction: tx})
		if err != nil {
			return err
		}
		out = append(out, &kgo.Record{Topic: s.cfg.TableTopic(rc.Table.TableID), Key: s.wrapKey(tc, key), Value: s.wrapValue(tc, val)})
		if op == "d" && !s.cfg.NoTombstones {
			out = append(out, &kgo.Record{Topic: s.cfg.TableTopic(rc.Table.TableID), Key: s.wrapKey(tc, key)})
		}
		return nil
	}
	switch rc.Op {
	case model.Insert:
		err = emit("c", nil, rc.After)
	case model.Delete:
		err = emit("d", rc.Before, nil)
	default:
		kb, _ := tc.keyOf(rc.Before, false)
		ka, _ := tc.keyOf(rc.After, false)
		if string(kb) != string(ka) {
			if err = emit("d", rc.Before, nil); err == nil {
				err = emit("c", nil, rc.After)
			}
		} else {
			err = emit("u", rc.Before, rc.After)
		}
	}
	return out, err
}
