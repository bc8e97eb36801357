package typemap

import (
	"strings"
	"testing"

	"github.com/go-mysql-org/go-mysql/replication"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/sluice-db/sluice/internal/schema"
)

// vcase is one logical value: its MySQL text-protocol bytes, the value
// go-mysql's replication package decodes from a row event for it, and the
// converted value both must give ("error:<substring>" for a failure).
type vcase struct {
	text    string
	hasText bool
	binlog  any
	hasBin  bool
	want    string
}

func both(text string, binlog any, want string) vcase {
	return vcase{text: text, hasText: true, binlog: binlog, hasBin: true, want: want}
}
func textOnly(text, want string) vcase { return vcase{text: text, hasText: true, want: want} }
func binOnly(v any, want string) vcase { return vcase{binlog: v, hasBin: true, want: want} }

type typeCase struct {
	name   string
	col    schema.Column
	opts   *Options
	pgType string
	kind   Kind
	values []vcase
}

func runTypeCases(t *testing.T, cases []typeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := DefaultOptions()
			if tc.opts != nil {
				opts = *tc.opts
			}
			m := New(opts, nil)
			cc, err := m.CompileColumn(schema.TableID{Database: "db", Name: "t"}, tc.col)
			if err != nil {
				t.Fatalf("compile: %v", err)
			}
			if cc.PGType != tc.pgType || cc.Kind != tc.kind {
				t.Fatalf("PGType/Kind = %q/%s, want %q/%s", cc.PGType, cc.Kind, tc.pgType, tc.kind)
			}
			for _, v := range tc.values {
				if v.hasText {
					got, err := cc.FromText([]byte(v.text))
					check(t, "FromText("+quoteBytes(v.text)+")", got, err, v.want)
				}
				if v.hasBin {
					got, err := cc.FromBinlog(v.binlog)
					check(t, "FromBinlog("+show(v.binlog)+")", got, err, v.want)
				}
			}
			if got, err := cc.FromText(nil); got != nil || err != nil {
				t.Errorf("FromText(nil) = %v, %v; want NULL", got, err)
			}
			if got, err := cc.FromBinlog(nil); got != nil || err != nil {
				t.Errorf("FromBinlog(nil) = %v, %v; want NULL", got, err)
			}
		})
	}
}

func quoteBytes(s string) string { return show(s)[len("text:"):] }

func check(t *testing.T, what string, got any, err error, want string) {
	t.Helper()
	if strings.HasPrefix(want, "error:") {
		if err == nil {
			t.Errorf("%s = %s, want an error containing %q", what, show(got), want[6:])
		} else if !strings.Contains(err.Error(), want[6:]) {
			t.Errorf("%s error %q, want it to contain %q", what, err, want[6:])
		}
		return
	}
	if err != nil {
		t.Errorf("%s: %v", what, err)
		return
	}
	if s := show(got); s != want {
		t.Errorf("%s = %s, want %s", what, s, want)
	}
}

func TestIntegers(t *testing.T) {
	runTypeCases(t, []typeCase{
		{"tinyint", col("tinyint", "tinyint(4)"), nil, "smallint", KindInt, []vcase{
			both("-128", int8(-128), "int16:-128"),
			both("127", int8(127), "int16:127"),
			both("0", int8(0), "int16:0"),
			textOnly("x", "error:invalid integer"),
			binOnly("5", "error:unexpected binlog value"),
		}},
		{"bool stays integer", col("tinyint", "tinyint(1)"), nil, "smallint", KindInt, []vcase{
			both("82", int8(82), "int16:82"),
			both("1", int8(1), "int16:1"),
		}},
		{"tinyint unsigned", col("tinyint", "tinyint(3) unsigned", unsigned), nil, "smallint", KindInt, []vcase{
			both("255", uint8(255), "int16:255"),
			binOnly(int8(-1), "int16:255"), // no signedness metadata
			both("0", uint8(0), "int16:0"),
		}},
		{"smallint", col("smallint", "smallint(6)"), nil, "smallint", KindInt, []vcase{
			both("-32768", int16(-32768), "int16:-32768"),
			both("32767", int16(32767), "int16:32767"),
		}},
		{"smallint unsigned", col("smallint", "smallint(5) unsigned", unsigned), nil, "integer", KindInt, []vcase{
			both("65535", uint16(65535), "int32:65535"),
			binOnly(int16(-1), "int32:65535"),
		}},
		{"mediumint", col("mediumint", "mediumint(9)"), nil, "integer", KindInt, []vcase{
			both("-8388608", int32(-8388608), "int32:-8388608"),
			both("8388607", int32(8388607), "int32:8388607"),
		}},
		{"mediumint unsigned", col("mediumint", "mediumint(8) unsigned", unsigned), nil, "integer", KindInt, []vcase{
			both("16777215", uint32(16777215), "int32:16777215"),
			binOnly(int32(-1), "int32:16777215"), // sign-extended 24-bit value
		}},
		{"int", col("int", "int(11)"), nil, "integer", KindInt, []vcase{
			both("-2147483648", int32(-2147483648), "int32:-2147483648"),
			both("2147483647", int32(2147483647), "int32:2147483647"),
			textOnly("2147483648", "error:out of range"),
		}},
		{"int unsigned", col("int", "int(10) unsigned", unsigned), nil, "bigint", KindInt, []vcase{
			both("4294967295", uint32(4294967295), "int64:4294967295"),
			binOnly(int32(-1), "int64:4294967295"),
		}},
		{"int zerofill", col("int", "int(5) unsigned zerofill", unsigned, func(c *schema.Column) { c.Zerofill = true }), nil, "bigint", KindInt, []vcase{
			both("00042", uint32(42), "int64:42"),
		}},
		{"bigint", col("bigint", "bigint(20)"), nil, "bigint", KindInt, []vcase{
			both("-9223372036854775808", int64(-9223372036854775808), "int64:-9223372036854775808"),
			both("9223372036854775807", int64(9223372036854775807), "int64:9223372036854775807"),
			textOnly("9223372036854775808", "error:invalid integer"),
		}},
		{"bigint unsigned", col("bigint", "bigint(20) unsigned", unsigned), nil, "numeric(20,0)", KindUint64, []vcase{
			both("18446744073709551615", uint64(18446744073709551615), "numeric:18446744073709551615e0"),
			binOnly(int64(-1), "numeric:18446744073709551615e0"),
			both("0", uint64(0), "numeric:0e0"),
			textOnly("18446744073709551616", "error:invalid unsigned"),
		}},
		{"year", col("year", "year(4)"), nil, "smallint", KindYear, []vcase{
			both("0000", 0, "int16:0"),
			both("1901", 1901, "int16:1901"),
			both("2155", 2155, "int16:2155"),
		}},
	})
}

func TestDecimalsAndFloats(t *testing.T) {
	max65 := "99999999999999999999999999999999999.999999999999999999999999999999"
	runTypeCases(t, []typeCase{
		{"decimal(65,30)", col("decimal", "decimal(65,30)", precision(65, 30)), nil, "numeric(65,30)", KindDecimal, []vcase{
			both(max65, max65, "numeric:99999999999999999999999999999999999999999999999999999999999999999e-30"),
			both("-"+max65, "-"+max65, "numeric:-99999999999999999999999999999999999999999999999999999999999999999e-30"),
			both("0.000000000000000000000000000001", "0.000000000000000000000000000001", "numeric:1e-30"),
			both("0.000000000000000000000000000000", "0.000000000000000000000000000000", "numeric:0e-30"),
		}},
		{"decimal(5,2)", col("decimal", "decimal(5,2)", precision(5, 2)), nil, "numeric(5,2)", KindDecimal, []vcase{
			both("-999.99", "-999.99", "numeric:-99999e-2"),
			both("1.50", "1.50", "numeric:150e-2"),
			textOnly("1e5", "error:invalid decimal"),
			textOnly("", "error:invalid decimal"),
		}},
		{"decimal(10,0)", col("decimal", "decimal(10,0)", precision(10, 0)), nil, "numeric(10,0)", KindDecimal, []vcase{
			both("-1234567890", "-1234567890", "numeric:-1234567890e0"),
		}},
		{"float", col("float", "float"), nil, "real", KindFloat32, []vcase{
			// text from SelectExpr: CAST(col AS DOUBLE), as MariaDB prints it
			both("0.10000000149011612", float32(0.1), "float32:0.1/3dcccccd"),
			both("123456792", float32(123456789), "float32:1.2345679e+08/4ceb79a3"),
			both("3.4028234663852886e38", float32(3.4028234663852886e38), "float32:3.4028235e+38/7f7fffff"),
			both("1.1754943508222875e-38", float32(1.1754943508222875e-38), "float32:1.1754944e-38/00800000"),
			both("-1.401298464324817e-45", float32(-1.401298464324817e-45), "float32:-1e-45/80000001"),
			both("0", float32(0), "float32:0/00000000"),
		}},
		{"double", col("double", "double"), nil, "double precision", KindFloat64, []vcase{
			both("0.30000000000000004", 0.30000000000000004, "float64:0.30000000000000004/3fd3333333333334"),
			both("5e-324", 5e-324, "float64:5e-324/0000000000000001"),
			both("1.7976931348623157e308", 1.7976931348623157e308, "float64:1.7976931348623157e+308/7fefffffffffffff"),
			both("1.2345678901234568e17", 1.2345678901234568e17, "float64:1.2345678901234568e+17/437b69b4ba630f35"),
			both("-0.3333333333333333", -1.0/3, "float64:-0.3333333333333333/bfd5555555555555"),
		}},
		{"bit(1)", col("bit", "bit(1)", precision(1, 0)), nil, "bit(1)", KindBit, []vcase{
			both("\x01", int64(1), "bits:1:80"),
			both("\x00", int64(0), "bits:1:00"),
		}},
		{"bit(3)", col("bit", "bit(3)", precision(3, 0)), nil, "bit(3)", KindBit, []vcase{
			both("\x05", int64(5), "bits:3:a0"),
			textOnly("\x08", "error:wider than"),
		}},
		{"bit(64)", col("bit", "bit(64)", precision(64, 0)), nil, "bit(64)", KindBit, []vcase{
			both("\xff\xff\xff\xff\xff\xff\xff\xff", int64(-1), "bits:64:ffffffffffffffff"),
			both("\x00\x00\x00\x00\x00\x00\x00\x01", int64(1), "bits:64:0000000000000001"),
			both("\x80\x00\x00\x00\x00\x00\x00\x00", int64(-9223372036854775808), "bits:64:8000000000000000"),
		}},
		{"bit(10)", col("bit", "bit(10)", precision(10, 0)), nil, "bit(10)", KindBit, []vcase{
			both("\x03\xff", int64(1023), "bits:10:ffc0"),
			both("\x02\x01", int64(513), "bits:10:8040"),
		}},
	})
}

func TestTemporal(t *testing.T) {
	inf := &Options{ZeroDate: ZeroDateInfinity, Nul: NulStrip}
	fail := &Options{ZeroDate: ZeroDateError, Nul: NulStrip}
	runTypeCases(t, []typeCase{
		{"date", col("date", "date"), nil, "date", KindDate, []vcase{
			both("2024-02-29", "2024-02-29", "date:2024-02-29"),
			both("1000-01-01", "1000-01-01", "date:1000-01-01"),
			both("9999-12-31", "9999-12-31", "date:9999-12-31"),
			both("0000-00-00", "0000-00-00", "NULL"),
			both("2020-00-15", "2020-00-15", "NULL"),
			both("2020-05-00", "2020-05-00", "NULL"),
			both("2023-02-29", "2023-02-29", "NULL"), // ALLOW_INVALID_DATES
			textOnly("2024-02-29 00:00:00", "error:invalid date"),
			textOnly("24-02-29", "error:invalid date"),
		}},
		{"date not null", col("date", "date", notNull), nil, "date", KindDate, []vcase{
			both("0000-00-00", "0000-00-00", "date:-infinity"),
			both("2020-01-02", "2020-01-02", "date:2020-01-02"),
		}},
		{"date -infinity", col("date", "date"), inf, "date", KindDate, []vcase{
			both("0000-00-00", "0000-00-00", "date:-infinity"),
		}},
		{"date error", col("date", "date"), fail, "date", KindDate, []vcase{
			both("2020-00-15", "2020-00-15", `error:zero date "2020-00-15"`),
			both("2020-02-30", "2020-02-30", `error:invalid date "2020-02-30"`),
		}},
		{"datetime(6)", col("datetime", "datetime(6)", frac(6)), nil, "timestamp(6) without time zone", KindDateTime, []vcase{
			both("2020-01-02 03:04:05.123456", "2020-01-02 03:04:05.123456", "timestamp:2020-01-02 03:04:05.123456 UTC"),
			both("9999-12-31 23:59:59.999999", "9999-12-31 23:59:59.999999", "timestamp:9999-12-31 23:59:59.999999 UTC"),
			both("1000-01-01 00:00:00.000000", "1000-01-01 00:00:00.000000", "timestamp:1000-01-01 00:00:00 UTC"),
			both("0000-00-00 00:00:00.000000", "0000-00-00 00:00:00.000000", "NULL"),
			both("2020-00-15 01:02:03.000000", "2020-00-15 01:02:03.000000", "NULL"),
		}},
		{"datetime(3)", col("datetime", "datetime(3)", frac(3)), nil, "timestamp(3) without time zone", KindDateTime, []vcase{
			both("1000-01-01 00:00:00.500", "1000-01-01 00:00:00.500", "timestamp:1000-01-01 00:00:00.5 UTC"),
		}},
		{"datetime", col("datetime", "datetime"), nil, "timestamp(0) without time zone", KindDateTime, []vcase{
			both("2020-01-02 03:04:05", "2020-01-02 03:04:05", "timestamp:2020-01-02 03:04:05 UTC"),
			both("0000-00-00 00:00:00", "0000-00-00 00:00:00", "NULL"),
			textOnly("2020-01-02 03:04", "error:invalid datetime"),
		}},
		{"datetime not null", col("datetime", "datetime", notNull), nil, "timestamp(0) without time zone", KindDateTime, []vcase{
			both("0000-00-00 00:00:00", "0000-00-00 00:00:00", "timestamp:-infinity"),
		}},
		{"timestamp(6)", col("timestamp", "timestamp(6)", frac(6)), nil, "timestamp(6) with time zone", KindTimestamp, []vcase{
			both("1970-01-01 00:00:01.000001", "1970-01-01 00:00:01.000001", "timestamptz:1970-01-01 00:00:01.000001 UTC"),
			both("2038-01-19 03:14:07.999999", "2038-01-19 03:14:07.999999", "timestamptz:2038-01-19 03:14:07.999999 UTC"),
			both("0000-00-00 00:00:00.000000", "0000-00-00 00:00:00.000000", "NULL"),
		}},
		{"timestamp not null", col("timestamp", "timestamp", notNull), nil, "timestamp(0) with time zone", KindTimestamp, []vcase{
			both("0000-00-00 00:00:00", "0000-00-00 00:00:00", "timestamptz:-infinity"),
		}},
		{"time(6)", col("time", "time(6)", frac(6)), nil, "interval", KindTime, []vcase{
			both("-838:59:59.000000", "-838:59:59", "interval:0m0d-3020399000000us"),
			both("838:59:59.000000", "838:59:59", "interval:0m0d3020399000000us"),
			both("-00:00:00.500000", "-00:00:00.500000", "interval:0m0d-500000us"),
			both("00:00:00.000000", "00:00:00", "interval:0m0d0us"),
			both("-01:00:00.000010", "-01:00:00.00001", "interval:0m0d-3600000010us"),
			both("123:04:05.123456", "123:04:05.123456", "interval:0m0d443045123456us"),
			textOnly("839:00:00.000000", "error:invalid TIME"),
			textOnly("12:60:00", "error:invalid TIME"),
		}},
		{"time(1)", col("time", "time(1)", frac(1)), nil, "interval", KindTime, []vcase{
			both("-00:00:01.1", "-00:00:01.1", "interval:0m0d-1100000us"),
			both("838:59:59.9", "838:59:59.9", "interval:0m0d3020399900000us"),
		}},
		{"time", col("time", "time"), nil, "interval", KindTime, []vcase{
			both("-838:59:59", "-838:59:59", "interval:0m0d-3020399000000us"),
			both("00:00:00", "00:00:00", "interval:0m0d0us"),
		}},
	})
}

func TestText(t *testing.T) {
	replace := &Options{ZeroDate: ZeroDateNull, Nul: NulReplace}
	fail := &Options{ZeroDate: ZeroDateNull, Nul: NulError}
	runTypeCases(t, []typeCase{
		{"varchar utf8mb4", col("varchar", "varchar(10)", length(10), charset("utf8mb4")), nil, "varchar(10)", KindText, []vcase{
			both("", "", `text:""`),
			both("ab  ", "ab  ", `text:"ab  "`),
			both("😀é", "😀é", `text:"😀é"`),
			both("a\x00b", "a\x00b", `text:"ab"`),
			both("\xff", "\xff", "error:not valid UTF-8"),
		}},
		// Non-UTF-8 columns are selected as raw bytes (SelectExpr), so both
		// paths hand over the same bytes in the column's charset.
		{"char latin1", col("char", "char(5)", length(5), charset("latin1")), nil, "varchar(5)", KindText, []vcase{
			// MySQL strips CHAR's trailing spaces on read and in the binlog.
			both("ab", "ab", `text:"ab"`),
			both("\xe9\x80\x81", "\xe9\x80\x81", `text:"é€\u0081"`),
			both("\xff", []byte{0xff}, `text:"ÿ"`),
		}},
		{"text utf16", col("text", "text", charset("utf16")), nil, "text", KindText, []vcase{
			both("\x00a\xd8\x3d\xde\x00", []byte{0, 'a', 0xd8, 0x3d, 0xde, 0x00}, `text:"a😀"`),
			binOnly([]byte{0xd8, 0x3d}, "error:invalid in charset utf16"),
		}},
		{"text utf16le", col("text", "text", charset("utf16le")), nil, "text", KindText, []vcase{
			both("a\x00\x3d\xd8\x00\xde", []byte{'a', 0, 0x3d, 0xd8, 0x00, 0xde}, `text:"a😀"`),
		}},
		{"text ucs2", col("text", "text", charset("ucs2")), nil, "text", KindText, []vcase{
			both("\x00a\x00\xe9", []byte{0, 'a', 0, 0xe9}, `text:"aé"`),
			binOnly([]byte{0xd8, 0x3d, 0xde, 0x00}, "error:invalid in charset ucs2"),
		}},
		{"text utf32", col("text", "text", charset("utf32")), nil, "text", KindText, []vcase{
			both("\x00\x00\x00a\x00\x01\xf6\x00", []byte{0, 0, 0, 'a', 0, 1, 0xf6, 0}, `text:"a😀"`),
		}},
		{"text cp1251", col("text", "text", charset("cp1251")), nil, "text", KindText, []vcase{
			both("\xc6\xe6", []byte{0xc6, 0xe6}, `text:"Жж"`),
		}},
		{"text gbk", col("text", "text", charset("gbk")), nil, "text", KindText, []vcase{
			both("\xd6\xd0\xce\xc4", []byte{0xd6, 0xd0, 0xce, 0xc4}, `text:"中文"`),
			binOnly([]byte{0xd6}, "error:invalid in charset gbk"),
		}},
		{"text ascii", col("text", "text", charset("ascii")), nil, "text", KindText, []vcase{
			both("abc", []byte("abc"), `text:"abc"`),
			binOnly([]byte{0x80}, "error:invalid in charset ascii"),
		}},
		{"nul replace", col("text", "text", charset("utf8mb4")), replace, "text", KindText, []vcase{
			both("a\x00b\x00", []byte("a\x00b\x00"), `text:"a�b�"`),
		}},
		{"nul error", col("text", "text", charset("utf8mb4")), fail, "text", KindText, []vcase{
			both("a\x00b", []byte("a\x00b"), "error:NUL character"),
			both("ab", []byte("ab"), `text:"ab"`),
		}},
		{"enum", col("enum", "enum('a','b','ü')", elements("a", "b", "ü"), charset("utf8mb4")), nil, "text", KindEnum, []vcase{
			both("", int64(0), `text:""`),
			both("a", int64(1), `text:"a"`),
			both("ü", int64(3), `text:"ü"`),
			binOnly(int64(4), "error:out of range"),
		}},
		{"set", col("set", "set('x','y','z')", elements("x", "y", "z"), charset("utf8mb4")), nil, "text", KindSet, []vcase{
			both("", int64(0), `text:""`),
			both("x,z", int64(5), `text:"x,z"`),
			both("x,y,z", int64(7), `text:"x,y,z"`),
			binOnly(int64(8), "error:beyond its 3 members"),
		}},
	})
}

func TestBinaryAndOthers(t *testing.T) {
	gis := &Options{ZeroDate: ZeroDateNull, Nul: NulStrip, PostGIS: true}
	point := "\xe6\x10\x00\x00\x01\x01\x00\x00\x00\x00\x00\x00\x00\x00\x00\xf0\x3f\x00\x00\x00\x00\x00\x00\x00\x40"
	runTypeCases(t, []typeCase{
		{"binary(4)", col("binary", "binary(4)", length(4)), nil, "bytea", KindBinary, []vcase{
			both("a\x00\x00\x00", "a", "bytes:61000000"),
			both("\x00\x00\x00\x00", "", "bytes:00000000"),
			both("\x00\xff\x00\x01", "\x00\xff\x00\x01", "bytes:00ff0001"),
		}},
		{"varbinary", col("varbinary", "varbinary(10)", length(10)), nil, "bytea", KindBinary, []vcase{
			both("\x00\xff\x00", "\x00\xff\x00", "bytes:00ff00"),
			both("", "", "bytes:"),
		}},
		{"longblob", col("longblob", "longblob", length(4294967295)), nil, "bytea", KindBinary, []vcase{
			both("a\x00", []byte("a\x00"), "bytes:6100"),
		}},
		{"json mariadb", col("longtext", "longtext", isJSON, charset("utf8mb4")), nil, "jsonb", KindJSON, []vcase{
			both(`{"b":1, "a":["ü😀"]}`, []byte(`{"b":1, "a":["ü😀"]}`), `text:"{\"b\":1, \"a\":[\"ü😀\"]}"`),
			both(`["a\u0000b", "\\u0000"]`, []byte(`["a\u0000b", "\\u0000"]`), `text:"[\"ab\", \"\\\\u0000\"]"`),
			both("", []byte{}, `text:"null"`),
		}},
		{"geometry bytea", col("geometry", "geometry"), nil, "bytea", KindGeometry, []vcase{
			both(point, []byte(point), "bytes:e61000000101000000000000000000f03f0000000000000040"),
		}},
		{"geometry postgis", col("point", "point"), gis, "geometry", KindGeometry, []vcase{
			both(point, []byte(point), "ewkb:0101000020e6100000000000000000f03f0000000000000040"),
		}},
		{"uuid", col("uuid", "uuid"), nil, "uuid", KindUUID, []vcase{
			both("123e4567-e89b-12d3-a456-426655440000", "\x12\x3e\x45\x67\xe8\x9b\x12\xd3\xa4\x56\x42\x66\x55\x44", "uuid:123e4567e89b12d3a456426655440000"),
			both("00000000-0000-0000-0000-000000000000", "", "uuid:00000000000000000000000000000000"),
			textOnly("123e4567e89b12d3a456426655440000", "error:invalid UUID"),
		}},
		{"inet6", col("inet6", "inet6"), nil, "inet", KindInet, []vcase{
			both("::ffff:1.2.3.4", "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xff\xff\x01\x02\x03\x04", "inet:::ffff:1.2.3.4/128"),
			both("2001:db8::", "\x20\x01\x0d\xb8", "inet:2001:db8::/128"),
			both("::", "", "inet:::/128"),
		}},
		{"inet4", col("inet4", "inet4"), nil, "inet", KindInet, []vcase{
			both("1.2.0.0", "\x01\x02", "inet:1.2.0.0/32"),
			both("255.255.255.255", "\xff\xff\xff\xff", "inet:255.255.255.255/32"),
		}},
	})
}

// TestEWKBEncodesForPGX checks how pgx sends a PostGIS value, whose type
// OID it does not know: raw EWKB in binary format (COPY), hex in text
// format (query parameters), as geometry_recv and geometry_in read them.
func TestEWKBEncodesForPGX(t *testing.T) {
	m := pgtype.NewMap()
	const unknownOID = 99999
	v := EWKB{0x01, 0x01, 0x00, 0x00, 0x20}
	b, err := m.Encode(unknownOID, pgtype.BinaryFormatCode, v, nil)
	if err != nil || string(b) != string(v) {
		t.Errorf("binary: %x, %v", b, err)
	}
	b, err = m.Encode(unknownOID, pgtype.TextFormatCode, v, nil)
	if err != nil || string(b) != "0101000020" {
		t.Errorf("text: %q, %v", b, err)
	}
}

func TestEWKBBigEndianAndNoSRID(t *testing.T) {
	// SRID 0: plain WKB without the SRID flag.
	e, err := ewkb([]byte{0, 0, 0, 0, 1, 1, 0, 0, 0, 9})
	if err != nil || string(e) != string([]byte{1, 1, 0, 0, 0, 9}) {
		t.Errorf("srid 0: %x %v", e, err)
	}
	// Big-endian WKB keeps its byte order.
	e, err = ewkb([]byte{0x10, 0, 0, 0, 0, 0, 0, 0, 1, 9})
	if err != nil || string(e) != string([]byte{0, 0x20, 0, 0, 1, 0, 0, 0, 0x10, 9}) {
		t.Errorf("big endian: %x %v", e, err)
	}
	if _, err := ewkb([]byte{1, 2, 3}); err == nil {
		t.Error("short value accepted")
	}
}

func TestJSONPartialAndMySQL8(t *testing.T) {
	m := New(DefaultOptions(), nil)
	cc, err := m.CompileColumn(schema.TableID{Database: "db", Name: "t"}, col("json", "json", charset("utf8mb4")))
	if err != nil {
		t.Fatal(err)
	}
	got, err := cc.FromBinlog(`{"a":1}`) // MySQL 8 binary JSON, rendered by go-mysql
	check(t, "FromBinlog", got, err, `text:"{\"a\":1}"`)
	got, err = cc.FromBinlog(&replication.JsonDiff{})
	check(t, "FromBinlog(JsonDiff)", got, err, "error:binlog_row_value_options=''")
}

func TestUnknownTypeAndCharset(t *testing.T) {
	m := New(DefaultOptions(), nil)
	id := schema.TableID{Database: "db", Name: "t"}
	_, err := m.CompileColumn(id, schema.Column{Name: "v", DataType: "vector", ColumnType: "vector(3)"})
	if err == nil || !strings.Contains(err.Error(), "db.t") || !strings.Contains(err.Error(), "column v") || !strings.Contains(err.Error(), `"vector"`) {
		t.Errorf("unknown type error = %v, want it to name table, column and type", err)
	}
	_, err = m.CompileColumn(id, schema.Column{Name: "y", DataType: "year", ColumnType: "year(2)"})
	if err == nil || !strings.Contains(err.Error(), "YEAR(2)") || !strings.Contains(err.Error(), "column y") {
		t.Errorf("YEAR(2) error = %v", err)
	}
	for _, cs := range []string{"sjis", "nosuchcharset"} {
		_, err = m.CompileColumn(id, schema.Column{Name: "s", DataType: "varchar", ColumnType: "varchar(3)", CharMaxLength: 3, Charset: cs})
		if err == nil || !strings.Contains(err.Error(), cs) || !strings.Contains(err.Error(), "column s") || !strings.Contains(err.Error(), "LoadCharsets") {
			t.Errorf("charset %s without a loaded table: error = %v", cs, err)
		}
	}
}
