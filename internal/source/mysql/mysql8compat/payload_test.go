package mysql8compat

import (
	"encoding/binary"
	"fmt"
	"strings"
	"testing"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/klauspost/compress/zstd"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// payloadBody builds a TRANSACTION_PAYLOAD_EVENT body as MySQL's
// Transaction_payload::encode (libbinlogevents/src/codecs/binary.cpp)
// writes it: (type, length, value) fields, each a packed integer —
// compression type, uncompressed size (unless NONE), payload size — then
// the end mark 0, then the payload.
func payloadBody(compression uint64, uncompressedSize int, payload []byte) []byte {
	var b []byte
	field := func(typ, v uint64) {
		b = append(b, lenenc(typ)...)
		b = append(b, lenenc(uint64(len(lenenc(v))))...)
		b = append(b, lenenc(v)...)
	}
	field(replication.OTW_PAYLOAD_COMPRESSION_TYPE_FIELD, compression)
	if compression != replication.NONE {
		field(replication.OTW_PAYLOAD_UNCOMPRESSED_SIZE_FIELD, uint64(uncompressedSize))
	}
	field(replication.OTW_PAYLOAD_SIZE_FIELD, uint64(len(payload)))
	b = append(b, replication.OTW_PAYLOAD_HEADER_END_MARK)
	return append(b, payload...)
}

// queryBody is a QUERY_EVENT body with no status variables.
func queryBody(db, query string) []byte {
	b := binary.LittleEndian.AppendUint32(nil, 7) // thread id
	b = binary.LittleEndian.AppendUint32(b, 0)    // execution time
	b = append(b, byte(len(db)))
	b = binary.LittleEndian.AppendUint16(b, 0) // error code
	b = binary.LittleEndian.AppendUint16(b, 0) // status variables length
	b = append(b, db...)
	b = append(b, 0)
	return append(b, query...)
}

func zstdCompress(t *testing.T, raw []byte) []byte {
	t.Helper()
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer enc.Close()
	return enc.EncodeAll(raw, nil)
}

func zstdDecompress(t *testing.T, frame []byte) []byte {
	t.Helper()
	dec, err := zstd.NewReader(nil)
	if err != nil {
		t.Fatal(err)
	}
	defer dec.Close()
	raw, err := dec.DecodeAll(frame, nil)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

func eventTypes(events []*replication.BinlogEvent) string {
	names := make([]string, len(events))
	for i, e := range events {
		names[i] = e.Header.EventType.String()
	}
	return strings.Join(names, " ")
}

// convertRow converts one row image with the converters of cols.
func convertRow(t *testing.T, cols []schema.Column, row []any) []string {
	t.Helper()
	m := typemap.New(typemap.DefaultOptions(), nil)
	out := make([]string, len(cols))
	for i, c := range cols {
		cc, err := m.CompileColumn(schema.TableID{Database: "compression_test", Name: "large_data"}, c)
		if err != nil {
			t.Fatal(err)
		}
		v, err := cc.FromBinlog(row[i])
		if err != nil {
			t.Fatalf("column %s: %v", c.Name, err)
		}
		out[i] = showValue(v)
	}
	return out
}

// showValue renders a converted value with its Go type.
func showValue(v any) string {
	switch x := v.(type) {
	case string:
		if len(x) > 20 {
			return fmt.Sprintf("string(%d):%s…", len(x), x[:20])
		}
		return "string:" + x
	case pgtype.Timestamptz:
		return "timestamptz:" + x.Time.UTC().Format("2006-01-02 15:04:05.999999")
	case pgtype.Timestamp:
		return "timestamp:" + x.Time.Format("2006-01-02 15:04:05.999999")
	case pgtype.Numeric:
		return fmt.Sprintf("numeric:%se%d", x.Int, x.Exp)
	case pgtype.Interval:
		return fmt.Sprintf("interval:%dus", x.Microseconds)
	}
	return fmt.Sprintf("%T:%v", v, v)
}

// TestTransactionPayloadFromMySQL decodes a compressed transaction whose
// inner events MySQL wrote (testdata/payload_large_data_80.hex): the
// TRANSACTION_PAYLOAD_EVENT is framed as MySQL's codec frames it, and go-mysql
// must hand back all eight inner events with their rows.
func TestTransactionPayloadFromMySQL(t *testing.T) {
	frame := loadHex(t, "payload_large_data_80")
	raw := zstdDecompress(t, frame)
	if len(frame) != 355 || len(raw) != 2442 {
		t.Fatalf("fixture: %d compressed, %d raw bytes; want 355, 2442", len(frame), len(raw))
	}
	s := newBinlogStream()
	s.add(replication.TRANSACTION_PAYLOAD_EVENT, payloadBody(replication.ZSTD, len(raw), frame))
	events := parseStream(t, newParser(parserOptions{}), s)
	if len(events) != 1 {
		t.Fatalf("%d events, want 1", len(events))
	}
	payload, ok := events[0].Event.(*replication.TransactionPayloadEvent)
	if !ok {
		t.Fatalf("decoded as %T", events[0].Event)
	}
	if payload.CompressionType != replication.ZSTD || len(payload.Payload) != 355 {
		t.Errorf("compression %d, payload %d bytes", payload.CompressionType, len(payload.Payload))
	}
	// go-mysql reads the size fields as fixed-length integers, but MySQL
	// writes them as packed integers: a value of 251 or more comes back
	// wrong (0xfc 0x63 0x01 for 355 reads as 0x0163fc). Sluice must not use
	// Size/UncompressedSize; the payload itself is found by the end mark.
	if payload.Size != 0x0163fc || payload.UncompressedSize != 0x098afc {
		t.Errorf("Size %d, UncompressedSize %d: go-mysql's misreading changed (fixed upstream?)", payload.Size, payload.UncompressedSize)
	}

	inner := payload.Events
	const wantTypes = "QueryEvent TableMapEvent WriteRowsEventV2 TableMapEvent UpdateRowsEventV2 TableMapEvent DeleteRowsEventV2 XIDEvent"
	if got := eventTypes(inner); got != wantTypes {
		t.Fatalf("inner events %s, want %s", got, wantTypes)
	}
	// Inner events carry log position 0 in the payload; go-mysql stamps the
	// payload's start on all but the last and its end on the XID, so a
	// checkpoint taken mid-transaction replays the whole transaction.
	end := events[0].Header.LogPos
	start := end - events[0].Header.EventSize
	for i, e := range inner {
		want := start
		if i == len(inner)-1 {
			want = end
		}
		if e.Header.LogPos != want {
			t.Errorf("inner event %d (%s) log pos %d, want %d", i, e.Header.EventType, e.Header.LogPos, want)
		}
	}
	if q := inner[0].Event.(*replication.QueryEvent); string(q.Query) != "BEGIN" || string(q.Schema) != "compression_test" {
		t.Errorf("query %q in %q", q.Query, q.Schema)
	}
	tm := inner[1].Event.(*replication.TableMapEvent)
	if string(tm.Schema) != "compression_test" || string(tm.Table) != "large_data" ||
		string(tm.ColumnType) != string([]byte{mysql.MYSQL_TYPE_LONG, mysql.MYSQL_TYPE_BLOB, mysql.MYSQL_TYPE_TIMESTAMP2}) {
		t.Errorf("table map %s.%s %v", tm.Schema, tm.Table, tm.ColumnType)
	}
	if coll := tm.CollationMap(); len(coll) != 1 || coll[1] != 255 {
		t.Errorf("collations %v, want text column utf8mb4_0900_ai_ci (255)", coll)
	}
	if xid := inner[7].Event.(*replication.XIDEvent).XID; xid != 84 {
		t.Errorf("XID %d, want 84", xid)
	}

	checkLargeDataRows(t, inner)
}

// checkLargeDataRows checks the row images of the captured payload and
// their typemap conversions.
func checkLargeDataRows(t *testing.T, inner []*replication.BinlogEvent) {
	t.Helper()
	cols := []schema.Column{
		{Name: "id", DataType: "int"},
		{Name: "data", DataType: "longtext", Charset: "utf8mb4", Nullable: true},
		{Name: "created_at", DataType: "timestamp", Nullable: true},
	}
	hash2 := "9b32e8e9dda3efc1fae091c8870faafdda1f6b96e64d88760bf229e73401fcae"
	hash1 := "48c422ef6da081399cc383f42fb949b75a30c38bbb15366c137d527f0dbaaf5c"
	checks := []struct {
		event int
		image int
		text  string // full value of the text column
		want  []string
	}{
		{2, 0, strings.Repeat(hash2, 10), []string{"int32:2", "string(640):9b32e8e9dda3efc1fae0…", "timestamptz:2025-03-28 09:54:29"}},
		{4, 0, strings.Repeat(hash1, 10), []string{"int32:1", "string(640):48c422ef6da081399cc3…", "timestamptz:2025-03-28 09:53:58"}},
		{4, 1, "updated", []string{"int32:1", "string:updated", "timestamptz:2025-03-28 09:53:58"}},
		{4, 3, "updated", []string{"int32:2", "string:updated", "timestamptz:2025-03-28 09:54:29"}},
		{6, 0, "updated", []string{"int32:1", "string:updated", "timestamptz:2025-03-28 09:53:58"}},
	}
	for _, c := range checks {
		rows := inner[c.event].Event.(*replication.RowsEvent).Rows
		row := rows[c.image]
		if string(row[1].([]byte)) != c.text {
			t.Errorf("%s image %d: text %.40q…", inner[c.event].Header.EventType, c.image, row[1])
		}
		if got := convertRow(t, cols, row); strings.Join(got, " | ") != strings.Join(c.want, " | ") {
			t.Errorf("%s image %d: %v, want %v", inner[c.event].Header.EventType, c.image, got, c.want)
		}
	}
}

// TestTransactionPayloadKeepsParserOptions builds a compressed transaction
// holding a JSON row and checks that rows inside the payload decode with the
// outer parser's options (go-mysql clones them into the inner parser).
func TestTransactionPayloadKeepsParserOptions(t *testing.T) {
	doc := jsonb(jObject{{"price", jsonDecimal("9.99", 3, 2)}, {"at", jsonTemporal(mysql.MYSQL_TYPE_DATETIME,
		packedDatetime(civilTime{2024, 2, 29, 12, 0, 0, 500000}))}})
	var raw []byte
	raw = append(raw, innerEvent(replication.QUERY_EVENT, queryBody("shop", "BEGIN"))...)
	raw = append(raw, innerEvent(replication.TABLE_MAP_EVENT, docsTableMap())...)
	raw = append(raw, innerEvent(replication.WRITE_ROWS_EVENTv2, rowsBody(2, false, rowImage(int32Value(1), jsonValue(doc))))...)
	raw = append(raw, innerEvent(replication.XID_EVENT, binary.LittleEndian.AppendUint64(nil, 77))...)
	frame := zstdCompress(t, raw)

	conv := jsonColumn(t)
	for _, c := range []struct {
		opts parserOptions
		want string
	}{
		{parserOptions{}, `{"at":"2024-02-29 12:00:00.500000","price":"9.99"}`},
		{parserOptions{renderJSONAsMySQLText: true}, `{"at":"2024-02-29 12:00:00.500000","price":9.99}`},
	} {
		s := newBinlogStream()
		s.add(replication.TRANSACTION_PAYLOAD_EVENT, payloadBody(replication.ZSTD, len(raw), frame))
		events := parseStream(t, newParser(c.opts), s)
		inner := events[0].Event.(*replication.TransactionPayloadEvent).Events
		if got := eventTypes(inner); got != "QueryEvent TableMapEvent WriteRowsEventV2 XIDEvent" {
			t.Fatalf("inner events %s", got)
		}
		row := inner[2].Event.(*replication.RowsEvent).Rows[0]
		v, err := conv.FromBinlog(row[1])
		if err != nil {
			t.Fatal(err)
		}
		if got := canonical(t, "payload JSON", v.(string)); got != canonical(t, "want", c.want) {
			t.Errorf("%+v: JSON in payload → %s, want %s", c.opts, got, c.want)
		}
		if xid := inner[3].Event.(*replication.XIDEvent).XID; xid != 77 {
			t.Errorf("XID %d", xid)
		}
	}
}

// TestTransactionPayloadUncompressedIsRefused: go-mysql decodes only zstd
// payloads; any other compression type stops the parse. MySQL writes NONE
// (255) as the packed integer fc ff 00, which go-mysql misreads as 65532,
// so the error names an unknown type rather than NONE.
func TestTransactionPayloadUncompressedIsRefused(t *testing.T) {
	raw := innerEvent(replication.XID_EVENT, binary.LittleEndian.AppendUint64(nil, 1))
	s := newBinlogStream()
	s.add(replication.TRANSACTION_PAYLOAD_EVENT, payloadBody(replication.NONE, len(raw), raw))
	_, err := tryParseStream(newParser(parserOptions{}), s)
	if err == nil || !strings.Contains(err.Error(), "TransactionPayloadEvent has compression type 65532 (Unknown)") {
		t.Errorf("error %v, want go-mysql's compression type error", err)
	}
}
