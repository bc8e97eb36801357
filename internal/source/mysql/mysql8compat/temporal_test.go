package mysql8compat

import (
	"fmt"
	"testing"
	"time"

	"github.com/go-mysql-org/go-mysql/mysql"
	"github.com/go-mysql-org/go-mysql/replication"

	"github.com/sluice-db/sluice/internal/schema"
	"github.com/sluice-db/sluice/internal/typemap"
)

// truncMicro keeps the first fsp fractional digits of us, as a column of
// that precision holds it.
func truncMicro(us, fsp int) int {
	unit := 1
	for i := fsp; i < 6; i++ {
		unit *= 10
	}
	return us - us%unit
}

// fracText is the fractional part as MySQL prints a value of precision fsp.
func fracText(us, fsp int) string {
	if fsp == 0 {
		return ""
	}
	return fmt.Sprintf(".%06d", us)[:fsp+1]
}

// temporalCase is one value of a DATETIME(fsp), TIME(fsp) or
// TIMESTAMP(fsp) column: its binlog bytes, the text MySQL prints for it,
// the text go-mysql decodes it to, and the value typemap must make of it.
type temporalCase struct {
	column  int // 0 DATETIME2, 1 TIME2, 2 TIMESTAMP2
	bin     []byte
	mysql   string
	gomysql string
	want    string // showValue of typemap's result; "NULL" for nil
}

func datetimeCase(v civilTime, fsp int) temporalCase {
	v.micro = truncMicro(v.micro, fsp)
	text := fmt.Sprintf("%04d-%02d-%02d %02d:%02d:%02d", v.year, v.month, v.day, v.hour, v.minute, v.second) + fracText(v.micro, fsp)
	want := "NULL" // zero dates in a nullable column, --zero-date=null
	if v.month != 0 {
		want = "timestamp:" + time.Date(v.year, time.Month(v.month), v.day, v.hour, v.minute, v.second, v.micro*1000, time.UTC).
			Format("2006-01-02 15:04:05.999999")
	}
	return temporalCase{column: 0, bin: datetime2Bin(packedDatetime(v), fsp), mysql: text, gomysql: text, want: want}
}

func timeCase(neg bool, hour, minute, second, micro, fsp int) temporalCase {
	micro = truncMicro(micro, fsp)
	total := int64((hour*3600+minute*60+second)*1_000_000 + micro)
	sign := ""
	if neg && total != 0 {
		sign, total = "-", -total
	}
	hms := fmt.Sprintf("%s%02d:%02d:%02d", sign, hour, minute, second)
	gomysql := hms + fracText(micro, fsp)
	if micro == 0 {
		gomysql = hms // go-mysql drops an all-zero fraction; the duration is the same
	}
	return temporalCase{column: 1, bin: time2Bin(packedTime(neg, hour, minute, second, micro), fsp),
		mysql: hms + fracText(micro, fsp), gomysql: gomysql, want: fmt.Sprintf("interval:%dus", total)}
}

func timestampCase(sec int64, micro, fsp int) temporalCase {
	micro = truncMicro(micro, fsp)
	at := time.Unix(sec, int64(micro)*1000).UTC()
	text := at.Format("2006-01-02 15:04:05") + fracText(micro, fsp)
	want := "timestamptz:" + at.Format("2006-01-02 15:04:05.999999")
	if sec == 0 {
		want = "NULL" // '0000-00-00 00:00:00', MySQL's zero TIMESTAMP
		text = "0000-00-00 00:00:00" + fracText(micro, fsp)
	}
	return temporalCase{column: 2, bin: timestamp2Bin(sec, micro, fsp), mysql: text, gomysql: text, want: want}
}

func temporalCases(fsp int) []temporalCase {
	return []temporalCase{
		datetimeCase(civilTime{2024, 2, 29, 13, 14, 15, 123456}, fsp),
		datetimeCase(civilTime{1000, 1, 1, 0, 0, 0, 0}, fsp),
		datetimeCase(civilTime{9999, 12, 31, 23, 59, 59, 999999}, fsp),
		datetimeCase(civilTime{1969, 12, 31, 23, 59, 59, 500000}, fsp),
		datetimeCase(civilTime{0, 0, 0, 0, 0, 0, 0}, fsp),
		timeCase(false, 13, 14, 15, 654321, fsp),
		timeCase(false, 838, 59, 59, 0, fsp),
		timeCase(true, 838, 59, 59, 0, fsp), // '-838:59:59.000000', TIME's minimum
		timeCase(true, 12, 34, 56, 123456, fsp),
		timeCase(true, 0, 0, 0, 500001, fsp), // a negative fraction of a second
		timeCase(true, 0, 0, 1, 0, fsp),
		timeCase(false, 0, 0, 0, 0, fsp),
		timeCase(false, 100, 0, 0, 10, fsp), // beyond 24 hours
		timestampCase(1, 0, fsp),
		timestampCase(2147483647, 999999, fsp), // 2038-01-19 03:14:07.999999
		timestampCase(1709212455, 123456, fsp), // 2024-02-29 13:14:15
		timestampCase(0, 0, fsp),
	}
}

// TestTemporalFractionalEncodings writes DATETIME(fsp), TIME(fsp) and
// TIMESTAMP(fsp) values for fsp 0..6 in MySQL 5.6.4+/8.0's DATETIME2,
// TIME2 and TIMESTAMP2 encodings, decodes them with go-mysql and converts
// them with typemap.
func TestTemporalFractionalEncodings(t *testing.T) {
	m := typemap.New(typemap.DefaultOptions(), nil)
	for fsp := 0; fsp <= 6; fsp++ {
		t.Run(fmt.Sprintf("fsp%d", fsp), func(t *testing.T) {
			cols := []column{
				{typ: mysql.MYSQL_TYPE_DATETIME2, meta: []byte{byte(fsp)}},
				{typ: mysql.MYSQL_TYPE_TIME2, meta: []byte{byte(fsp)}},
				{typ: mysql.MYSQL_TYPE_TIMESTAMP2, meta: []byte{byte(fsp)}},
			}
			schemaCols := []schema.Column{
				{Name: "dt", DataType: "datetime", FracDigits: fsp, Nullable: true},
				{Name: "t", DataType: "time", FracDigits: fsp, Nullable: true},
				{Name: "ts", DataType: "timestamp", FracDigits: fsp, Nullable: true},
			}
			convs := make([]*typemap.ColumnConv, len(schemaCols))
			for i, c := range schemaCols {
				cc, err := m.CompileColumn(schema.TableID{Database: "shop", Name: "times"}, c)
				if err != nil {
					t.Fatal(err)
				}
				convs[i] = cc
			}
			cases := temporalCases(fsp)
			var rows []byte
			for _, c := range cases {
				values := make([][]byte, 3)
				values[c.column] = c.bin
				rows = append(rows, rowImage(values...)...)
			}
			s := newBinlogStream()
			s.add(replication.TABLE_MAP_EVENT, tableMapBody("shop", "times", cols, nil))
			s.add(replication.WRITE_ROWS_EVENTv2, rowsBody(3, false, rows))
			re := rowsEventOf(t, parseStream(t, newParser(parserOptions{}), s))
			if len(re.Rows) != len(cases) {
				t.Fatalf("%d rows, want %d", len(re.Rows), len(cases))
			}
			for i, c := range cases {
				v := re.Rows[i][c.column]
				if v != c.gomysql {
					t.Errorf("%s (%x): go-mysql %#v, want %q", c.mysql, c.bin, v, c.gomysql)
				}
				got, err := convs[c.column].FromBinlog(v)
				if err != nil {
					t.Errorf("%s: FromBinlog(%v): %v", c.mysql, v, err)
					continue
				}
				shown := "NULL"
				if got != nil {
					shown = showValue(got)
				}
				if shown != c.want {
					t.Errorf("%s: typemap %s, want %s", c.mysql, shown, c.want)
				}
				// The snapshot reads the same value as MySQL's text; both
				// paths must agree.
				fromText, err := convs[c.column].FromText([]byte(c.mysql))
				if err != nil {
					t.Errorf("%s: FromText: %v", c.mysql, err)
					continue
				}
				if textShown := showValueOrNull(fromText); textShown != shown {
					t.Errorf("%s: FromText %s but FromBinlog %s", c.mysql, textShown, shown)
				}
			}
		})
	}
}

func showValueOrNull(v any) string {
	if v == nil {
		return "NULL"
	}
	return showValue(v)
}
