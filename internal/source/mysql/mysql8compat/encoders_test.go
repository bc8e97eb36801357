package mysql8compat

import (
	"bytes"
	"encoding/hex"
	"testing"

	"github.com/go-mysql-org/go-mysql/replication"
)

// The encoder tests below check the DECIMAL and temporal encoders against
// byte vectors recorded from MySQL servers, published in go-mysql v1.16.0
// replication/row_event_test.go (decimalData, TestDecodeDatetime2,
// TestDecodeTime2).

func TestDecimalEncoderMatchesPublicVectors(t *testing.T) {
	decimals := []struct {
		value            string
		precision, scale int
		want             []byte
	}{
		{"123.4560000000000000", 40, 16, []byte{128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 123, 27, 46, 2, 0, 0, 0, 0, 0}},
		{"0.0000010000000000", 40, 16, []byte{128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 232, 0, 0, 0, 0}},
		{"100000000.0000000200000000", 40, 16, []byte{128, 0, 0, 0, 0, 0, 0, 5, 245, 225, 0, 0, 0, 0, 20, 0, 0, 0, 0}},
		{"123456234234234757655.1234567890123456", 40, 16, []byte{128, 0, 123, 27, 49, 148, 250, 13, 254, 30, 23, 7, 91, 205, 21, 0, 1, 226, 64}},
		{"-123456234234234757655.1234567890123456", 40, 16, []byte{127, 255, 132, 228, 206, 107, 5, 242, 1, 225, 232, 248, 164, 50, 234, 255, 254, 29, 191}},
		{"1000000000000000000000000000000", 60, 0, []byte{128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 232, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"1", 60, 0, []byte{128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}},
		{"0.100000000000000000000000000000", 30, 30, []byte{133, 245, 225, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}},
		{"0.000000000000001000000000000000", 30, 30, []byte{128, 0, 0, 0, 0, 0, 3, 232, 0, 0, 0, 0, 0, 0}},
	}
	for _, d := range decimals {
		if got := decimalBin(d.value, d.precision, d.scale); !bytes.Equal(got, d.want) {
			t.Errorf("decimalBin(%s, %d, %d) = %v, MySQL wrote %v", d.value, d.precision, d.scale, got, d.want)
		}
	}
}

func TestDatetime2EncoderMatchesPublicVectors(t *testing.T) {
	datetimes := []struct {
		v    civilTime
		fsp  int
		want string // hex
	}{
		{civilTime{9999, 12, 31, 23, 59, 59, 0}, 0, "fef3ff7efb"},
		{civilTime{2016, 10, 28, 15, 30, 42, 0}, 0, "999ab8f7aa"},
		{civilTime{2016, 0, 28, 15, 30, 42, 0}, 0, "999838f7aa"},
		{civilTime{2016, 10, 0, 15, 30, 42, 0}, 0, "999a80f7aa"},
		{civilTime{1970, 1, 1, 0, 0, 0, 0}, 0, "9902c20000"},
		{civilTime{0, 0, 0, 0, 0, 0, 0}, 0, "8000000000"},
		{civilTime{0, 0, 1, 15, 4, 5, 0}, 0, "800002f105"},
		{civilTime{1, 1, 1, 0, 0, 0, 120000}, 2, "80038200000c"},
		{civilTime{1, 1, 1, 0, 0, 0, 123500}, 4, "800382000004d3"},
		{civilTime{1, 1, 1, 0, 0, 0, 123456}, 6, "800382000001e240"},
	}
	for _, d := range datetimes {
		if got := hex.EncodeToString(datetime2Bin(packedDatetime(d.v), d.fsp)); got != d.want {
			t.Errorf("datetime2Bin(%+v, fsp %d) = %s, MySQL wrote %s", d.v, d.fsp, got, d.want)
		}
	}
}

func TestTime2EncoderMatchesPublicVectors(t *testing.T) {
	times := []struct {
		neg                         bool
		hour, minute, second, micro int
		fsp                         int
		want                        string // hex
	}{
		{false, 838, 59, 59, 0, 0, "b46efb"},
		{false, 15, 4, 5, 0, 0, "80f105"},
		{false, 0, 0, 0, 0, 0, "800000"},
		{true, 0, 0, 1, 0, 0, "7fffff"},
		{true, 15, 4, 5, 0, 0, "7f0efb"},
		{true, 838, 59, 59, 0, 0, "4b9105"},
		{true, 0, 0, 0, 10000, 2, "7fffffff"},
		{true, 15, 4, 5, 120000, 2, "7f0efaf4"},
		{true, 838, 59, 58, 120000, 2, "4b9105f4"},
		{true, 0, 0, 0, 100, 4, "7fffffffff"},
		{true, 15, 4, 5, 123500, 4, "7f0efafb2d"},
		{true, 838, 59, 58, 123500, 4, "4b9105fb2d"},
		{true, 0, 0, 0, 1, 6, "7fffffffffff"},
		{true, 15, 4, 5, 123456, 6, "7f0efafe1dc0"},
		{true, 838, 59, 58, 123456, 6, "4b9105fe1dc0"},
	}
	for _, d := range times {
		got := hex.EncodeToString(time2Bin(packedTime(d.neg, d.hour, d.minute, d.second, d.micro), d.fsp))
		if got != d.want {
			t.Errorf("time2Bin(%+v) = %s, MySQL wrote %s", d, got, d.want)
		}
	}
}

// TestJSONBEncoderMatchesMySQLBytes checks the JSONB encoder against
// documents a MySQL server wrote into row events (go-mysql v1.16.0
// replication/row_event_test.go, TestParseJson and TestJsonCompatibility;
// the same bytes are testdata/json_t10_write.hex and json_t11_update.hex),
// then parses those real events and checks go-mysql's text.
func TestJSONBEncoderMatchesMySQLBytes(t *testing.T) {
	t10 := loadHex(t, "json_t10_write")
	doc := jsonb(jObject{{"key2", "value2"}, {"key1", "value1"}})
	if !bytes.Contains(t10, jsonValue(doc)) {
		t.Errorf("encoder gives %x for {\"key1\": \"value1\", \"key2\": \"value2\"}; not in the MySQL row %x", doc, t10)
	}
	t11 := loadHex(t, "json_t11_update")
	for _, d := range []struct {
		name string
		doc  []byte
	}{
		{`{"a":1234}`, jsonb(jObject{{"a", 1234}})},
		{`{}`, jsonb(jObject{})},
	} {
		if !bytes.Contains(t11, jsonValue(d.doc)) {
			t.Errorf("encoder gives %x for %s; not in the MySQL row %x", d.doc, d.name, t11)
		}
	}

	s := newBinlogStream()
	s.add(replication.TABLE_MAP_EVENT, loadHex(t, "json_t10_tablemap"))
	s.add(replication.WRITE_ROWS_EVENTv2, t10)
	s.add(replication.TABLE_MAP_EVENT, loadHex(t, "json_t11_tablemap"))
	s.add(replication.UPDATE_ROWS_EVENTv2, t11)
	events := parseStream(t, newParser(parserOptions{}), s)
	if len(events) != 4 {
		t.Fatalf("parsed %d events, want 4", len(events))
	}
	w := events[1].Event.(*replication.RowsEvent)
	if got := w.Rows[0][0]; got != `{"key1":"value1","key2":"value2"}` {
		t.Errorf("t10 JSON = %#v", got)
	}
	if got := w.Rows[0][1]; got != "1" {
		t.Errorf("t10 DECIMAL(10,0) = %#v, want \"1\"", got)
	}
	u := events[3].Event.(*replication.RowsEvent)
	if len(u.Rows) != 2 {
		t.Fatalf("t11 update has %d images, want 2", len(u.Rows))
	}
	if got := u.Rows[0][2]; got != `{"a":1234}` {
		t.Errorf("t11 before-image JSON = %#v", got)
	}
	if got := u.Rows[1][2]; got != `{}` {
		t.Errorf("t11 after-image JSON = %#v", got)
	}
}
