package pgoutput

import (
	"errors"
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

func TestConvValues(t *testing.T) {
	col := func(dataType, columnType string, f func(*schema.Column)) schema.Column {
		c := schema.Column{Name: "c", DataType: dataType, ColumnType: columnType}
		if f != nil {
			f(&c)
		}
		return c
	}
	unsigned := func(c *schema.Column) { c.Unsigned = true }
	cases := []struct {
		c    schema.Column
		in   string
		want any // nil: a value error
	}{
		{col("tinyint", "tinyint(3) unsigned", unsigned), "255", int64(255)},
		{col("tinyint", "tinyint(3) unsigned", unsigned), "300", nil},
		{col("tinyint", "tinyint(1)", nil), "82", int64(82)},
		{col("bigint", "bigint(20) unsigned", unsigned), "18446744073709551615", uint64(18446744073709551615)},
		{col("bigint", "bigint(20) unsigned", unsigned), "-1", nil},
		{col("mediumint", "mediumint(9)", nil), "8388608", nil},
		{col("decimal", "decimal(5,2)", func(c *schema.Column) { c.Precision, c.Scale = 5, 2 }), "-123.45", "-123.45"},
		{col("decimal", "decimal(5,2)", func(c *schema.Column) { c.Precision, c.Scale = 5, 2 }), "1234.5", nil},
		{col("decimal", "decimal(5,2)", func(c *schema.Column) { c.Precision, c.Scale = 5, 2 }), "NaN", nil},
		{col("year", "year(4)", nil), "10000", nil},
		{col("date", "date", nil), "10000-01-01", nil},
		{col("date", "date", nil), "-infinity", "0000-00-00"},
		{col("date", "date", nil), "0044-03-15 BC", nil},
		{col("datetime", "datetime(3)", func(c *schema.Column) { c.FracDigits = 3 }), "2024-02-29 23:59:59.123", "2024-02-29 23:59:59.123"},
		{col("datetime", "datetime", nil), "2024-02-29 23:59:59.5", nil},
		{col("timestamp", "timestamp", nil), "2038-01-19 03:14:08+00", nil},
		{col("timestamp", "timestamp", nil), "1970-01-01 00:00:01+00", "1970-01-01 00:00:01"},
		{col("time", "time", nil), "-838:59:59", "-838:59:59"},
		{col("time", "time", nil), "839:00:00", nil},
		{col("time", "time(2)", func(c *schema.Column) { c.FracDigits = 2 }), "1 day -01:00:00.5", "22:59:59.50"},
		{col("time", "time", nil), "1 mon", nil},
		{col("bit", "bit(3)", func(c *schema.Column) { c.Precision = 3 }), "101", int64(5)},
		{col("bit", "bit(3)", func(c *schema.Column) { c.Precision = 3 }), "1010", nil},
		{col("enum", "enum('a','b')", func(c *schema.Column) { c.Elements = []string{"a", "b"} }), "b", int64(2)},
		{col("enum", "enum('a','b')", func(c *schema.Column) { c.Elements = []string{"a", "b"} }), "z", nil},
		{col("set", "set('x','y','z')", func(c *schema.Column) { c.Elements = []string{"x", "y", "z"} }), "x,z", int64(5)},
		{col("varchar", "varchar(3)", func(c *schema.Column) { c.CharMaxLength, c.Charset = 3, "utf8mb4" }), "héé", []byte("héé")},
		{col("varchar", "varchar(3)", func(c *schema.Column) { c.CharMaxLength, c.Charset = 3, "utf8mb4" }), "abcd", nil},
		{col("varchar", "varchar(9)", func(c *schema.Column) { c.CharMaxLength, c.Charset = 9, "utf8mb3" }), "😀", nil},
		{col("varchar", "varchar(9)", func(c *schema.Column) { c.CharMaxLength, c.Charset = 9, "latin1" }), "café", []byte("caf\xe9")},
		{col("tinytext", "tinytext", func(c *schema.Column) { c.Charset = "utf8mb4" }), string(make([]byte, 256)), nil},
		{col("binary", "binary(2)", func(c *schema.Column) { c.CharMaxLength = 2 }), `\x0102`, []byte{1, 2}},
		{col("binary", "binary(2)", func(c *schema.Column) { c.CharMaxLength = 2 }), `\x010203`, nil},
		{col("float", "float", nil), "Infinity", nil},
		{col("json", "json", nil), `{"a": [1, "b c"]}`, []byte(`{"a":[1,"b c"]}`)},
	}
	for _, tc := range cases {
		cv, err := convOf(tc.c)
		if err != nil {
			t.Fatalf("%s: %v", tc.c.ColumnType, err)
		}
		got, err := cv([]byte(tc.in))
		if tc.want == nil {
			var ve *valueError
			if !errors.As(err, &ve) {
				t.Errorf("%s %q: got %v (%v), want a value error", tc.c.ColumnType, tc.in, got, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %q: %v", tc.c.ColumnType, tc.in, err)
			continue
		}
		if b, ok := tc.want.([]byte); ok {
			if g, ok := got.([]byte); !ok || string(g) != string(b) {
				t.Errorf("%s %q: got %q, want %q", tc.c.ColumnType, tc.in, got, b)
			}
			continue
		}
		if got != tc.want {
			t.Errorf("%s %q: got %#v, want %#v", tc.c.ColumnType, tc.in, got, tc.want)
		}
	}
}
