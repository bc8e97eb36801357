package typemap

import (
	"testing"

	"github.com/sluice-db/sluice/internal/schema"
)

func benchConv(b *testing.B, c schema.Column, text string, binlog any) {
	cc, err := New(DefaultOptions(), nil).CompileColumn(schema.TableID{Database: "db", Name: "t"}, c)
	if err != nil {
		b.Fatal(err)
	}
	in := []byte(text)
	b.Run("text", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cc.FromText(in); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("binlog", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := cc.FromBinlog(binlog); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkInt(b *testing.B) { benchConv(b, col("int", "int"), "1234567", int32(1234567)) }
func BenchmarkBigintUnsigned(b *testing.B) {
	benchConv(b, col("bigint", "bigint unsigned", unsigned), "18446744073709551615", uint64(18446744073709551615))
}
func BenchmarkDecimal(b *testing.B) {
	benchConv(b, col("decimal", "decimal(12,2)", precision(12, 2)), "-1234567890.12", "-1234567890.12")
}
func BenchmarkDecimal65(b *testing.B) {
	v := "99999999999999999999999999999999999.999999999999999999999999999999"
	benchConv(b, col("decimal", "decimal(65,30)", precision(65, 30)), v, v)
}
func BenchmarkDouble(b *testing.B) {
	benchConv(b, col("double", "double"), "0.30000000000000004", 0.30000000000000004)
}
func BenchmarkDatetime6(b *testing.B) {
	benchConv(b, col("datetime", "datetime(6)", frac(6)), "2020-01-02 03:04:05.123456", "2020-01-02 03:04:05.123456")
}
func BenchmarkTime6(b *testing.B) {
	benchConv(b, col("time", "time(6)", frac(6)), "-838:59:59.000000", "-838:59:59")
}
func BenchmarkChar120(b *testing.B) {
	v := "83868641912-28773972837-60736120486-75162659906-27563526494-20381887404-41576422241-93426793964-56405065102-33518432330"
	benchConv(b, col("char", "char(120)", length(120), charset("utf8mb4")), v, v)
}
func BenchmarkLatin1Text(b *testing.B) {
	v := "caf\xe9 cr\xe8me br\xfbl\xe9e and plain ascii text of some length"
	benchConv(b, col("text", "text", charset("latin1")), v, []byte(v))
}
func BenchmarkBlob(b *testing.B) {
	v := string(make([]byte, 200))
	benchConv(b, col("blob", "blob"), v, []byte(v))
}
