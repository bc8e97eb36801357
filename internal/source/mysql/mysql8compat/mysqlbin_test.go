package mysql8compat

import (
	"encoding/binary"
	"strings"

	"github.com/go-mysql-org/go-mysql/mysql"
)

// MySQL's binary encodings of DECIMAL and of the temporal types, written
// from MySQL's strings/decimal.cc (decimal2bin) and mysys/my_time.cc
// (TIME_to_longlong_*_packed, my_*_packed_to_binary,
// my_timestamp_to_binary). TestEncodersMatchPublicVectors checks them
// against byte vectors recorded from MySQL servers.

// dig2bytes is how many bytes decimal2bin uses for 0..9 leftover digits.
var dig2bytes = [10]int{0, 1, 1, 2, 2, 3, 3, 4, 4, 4}

// decimalBin is decimal2bin: the value s (plain "[-]digits[.digits]")
// as DECIMAL(precision, scale) binary. Digits are stored in groups of nine
// (4 bytes big-endian), leftover digits in dig2bytes bytes; negative
// values have every byte inverted; the first byte's top bit is flipped so
// that the encoding sorts bytewise.
func decimalBin(s string, precision, scale int) []byte {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	intPart, fracPart, _ := strings.Cut(s, ".")
	intg := precision - scale
	intPart = strings.TrimLeft(intPart, "0")
	intPart = strings.Repeat("0", intg-len(intPart)) + intPart
	fracPart += strings.Repeat("0", scale-len(fracPart))

	var out []byte
	put := func(digits string) {
		v := 0
		for _, d := range digits {
			v = v*10 + int(d-'0')
		}
		n := dig2bytes[len(digits)]
		for i := n - 1; i >= 0; i-- {
			out = append(out, byte(v>>(8*i)))
		}
	}
	lead := intg % 9
	if lead > 0 {
		put(intPart[:lead])
	}
	for i := lead; i < intg; i += 9 {
		put(intPart[i : i+9])
	}
	for i := 0; i+9 <= scale; i += 9 {
		put(fracPart[i : i+9])
	}
	if tail := scale % 9; tail > 0 {
		put(fracPart[scale-tail:])
	}
	if neg {
		for i := range out {
			out[i] = ^out[i]
		}
	}
	out[0] ^= 0x80
	return out
}

// jsonDecimal is a DECIMAL inside JSON, as Json_decimal::get_binary stores
// it: precision, scale, decimal2bin.
func jsonDecimal(s string, precision, scale int) jOpaque {
	data := append([]byte{byte(precision), byte(scale)}, decimalBin(s, precision, scale)...)
	return jOpaque{fieldType: mysql.MYSQL_TYPE_NEWDECIMAL, data: data}
}

// civilTime is a MySQL MYSQL_TIME without time zone.
type civilTime struct {
	year, month, day     int
	hour, minute, second int
	micro                int
}

// packedDatetime is TIME_to_longlong_datetime_packed (DATE uses it too, with
// a zero time of day).
func packedDatetime(t civilTime) int64 {
	ymd := int64((t.year*13+t.month)<<5 | t.day)
	hms := int64(t.hour<<12 | t.minute<<6 | t.second)
	return (ymd<<17|hms)<<24 + int64(t.micro)
}

// packedTime is TIME_to_longlong_time_packed: hours may exceed 23, a
// negative TIME is the negated packed value.
func packedTime(neg bool, hour, minute, second, micro int) int64 {
	hms := int64(hour<<12 | minute<<6 | second)
	v := hms<<24 + int64(micro)
	if neg {
		return -v
	}
	return v
}

// jsonTemporal is a DATE, TIME, DATETIME or TIMESTAMP inside JSON:
// Json_datetime::to_packed, 8 bytes little-endian.
func jsonTemporal(fieldType byte, packed int64) jOpaque {
	return jOpaque{fieldType: fieldType, data: binary.LittleEndian.AppendUint64(nil, uint64(packed))}
}

// fracBytes stores the fractional part as my_*_packed_to_binary do: by fsp,
// hundredths in 1 byte, 1/10000 s in 2 bytes or microseconds in 3 bytes,
// big-endian; frac may be negative (TIME), stored in two's complement.
func fracBytes(frac int64, fsp int) []byte {
	switch fsp {
	case 1, 2:
		return []byte{byte(frac / 10000)}
	case 3, 4:
		v := frac / 100
		return []byte{byte(v >> 8), byte(v)}
	case 5, 6:
		return []byte{byte(frac >> 16), byte(frac >> 8), byte(frac)}
	}
	return nil
}

// datetime2Bin is my_datetime_packed_to_binary: 5 bytes big-endian of the
// integer part plus DATETIMEF_INT_OFS, then the fraction by fsp.
func datetime2Bin(packed int64, fsp int) []byte {
	v := uint64(packed>>24 + 0x8000000000)
	out := []byte{byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
	return append(out, fracBytes(packed%(1<<24), fsp)...)
}

// time2Bin is my_time_packed_to_binary. With fsp 5-6 the whole packed
// value plus TIMEF_OFS is stored in 6 bytes; otherwise the integer part
// (floor, so a negative time with a fraction stores the next lower second)
// plus TIMEF_INT_OFS in 3 bytes, then the truncated (negative) fraction.
func time2Bin(packed int64, fsp int) []byte {
	if fsp >= 5 {
		v := uint64(packed + 0x800000000000)
		return []byte{byte(v >> 40), byte(v >> 32), byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)}
	}
	v := uint32(packed>>24 + 0x800000)
	out := []byte{byte(v >> 16), byte(v >> 8), byte(v)}
	return append(out, fracBytes(packed%(1<<24), fsp)...)
}

// timestamp2Bin is my_timestamp_to_binary: seconds since the epoch, 4 bytes
// big-endian, then the fraction by fsp.
func timestamp2Bin(sec int64, micro int, fsp int) []byte {
	out := binary.BigEndian.AppendUint32(nil, uint32(sec))
	return append(out, fracBytes(int64(micro), fsp)...)
}
