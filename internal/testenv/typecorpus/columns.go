package typecorpus

import "strings"

var (
	ones64   = strings.Repeat("1", 64)
	longBlob = strings.Repeat("00ff", 100000)
)

// Columns is every type family with its edge values. Every value of the
// earlier corpora of typemap, snapshot and binlog is here; add new ones
// here, not in a test.
var Columns = Corpus{
	{Name: "ti", DDL: "TINYINT", Values: [][2]string{{"-128", "-128"}, {"127", "127"}, {"0", "0"}}},
	{Name: "tb", DDL: "TINYINT(1)", Values: [][2]string{{"82", "82"}, {"1", "1"}, {"0", "0"}}},
	{Name: "tu", DDL: "TINYINT UNSIGNED", Values: [][2]string{{"255", "255"}, {"0", "0"}}},
	{Name: "si", DDL: "SMALLINT", Values: [][2]string{{"-32768", "-32768"}, {"32767", "32767"}}},
	{Name: "su", DDL: "SMALLINT UNSIGNED", Values: [][2]string{{"65535", "65535"}, {"0", "0"}}},
	{Name: "mi", DDL: "MEDIUMINT", Values: [][2]string{{"-8388608", "-8388608"}, {"8388607", "8388607"}}},
	{Name: "mu", DDL: "MEDIUMINT UNSIGNED", Values: [][2]string{{"16777215", "16777215"}, {"0", "0"}}},
	{Name: "i", DDL: "INT", Values: [][2]string{{"-2147483648", "-2147483648"}, {"2147483647", "2147483647"}}},
	{Name: "iu", DDL: "INT UNSIGNED", Values: [][2]string{{"4294967295", "4294967295"}, {"0", "0"}}},
	{Name: "iz", DDL: "INT(5) ZEROFILL", Values: [][2]string{{"42", "42"}}},
	{Name: "bi", DDL: "BIGINT", Values: [][2]string{{"-9223372036854775808", "-9223372036854775808"}, {"9223372036854775807", "9223372036854775807"}}},
	{Name: "bu", DDL: "BIGINT UNSIGNED", Values: [][2]string{{"18446744073709551615", "18446744073709551615"}, {"0", "0"}}},
	{Name: "d65", DDL: "DECIMAL(65,30)", Values: [][2]string{
		{"99999999999999999999999999999999999.999999999999999999999999999999", "99999999999999999999999999999999999.999999999999999999999999999999"},
		{"-99999999999999999999999999999999999.999999999999999999999999999999", "-99999999999999999999999999999999999.999999999999999999999999999999"},
		{"0.000000000000000000000000000001", "0.000000000000000000000000000001"},
		{"0", "0.000000000000000000000000000000"},
	}},
	{Name: "d52", DDL: "DECIMAL(5,2)", Values: [][2]string{{"-999.99", "-999.99"}, {"1.5", "1.50"}}},
	{Name: "f", DDL: "FLOAT", Values: [][2]string{{"0.1", "0.1"}, {"123456789", "1.2345679e+08"}, {"3.4028234e38", "3.4028235e+38"}, {"-1.17549435e-38", "-1.1754944e-38"}}},
	{Name: "f73", DDL: "FLOAT(7,3)", Values: [][2]string{{"1.2345", "1.234"}}},
	{Name: "db", DDL: "DOUBLE", Values: [][2]string{{"0.1e0+0.2e0", "0.30000000000000004"}, {"5e-324", "5e-324"}, {"1.7976931348623157e308", "1.7976931348623157e+308"}, {"1e0/3", "0.3333333333333333"}}},
	{Name: "d102", DDL: "DOUBLE(10,2)", Values: [][2]string{{"1.23456", "1.23"}}},
	{Name: "b1", DDL: "BIT(1)", Values: [][2]string{{"b'1'", "1"}, {"b'0'", "0"}}},
	{Name: "b10", DDL: "BIT(10)", Values: [][2]string{{"b'1000000001'", "1000000001"}}},
	{Name: "b64", DDL: "BIT(64)", Values: [][2]string{{"b'" + ones64 + "'", ones64}, {"1", strings.Repeat("0", 63) + "1"}}},
	{Name: "y", DDL: "YEAR", Values: [][2]string{{"0", "0"}, {"2155", "2155"}, {"1901", "1901"}}},
	{Name: "dt", DDL: "DATE", Values: [][2]string{{"'2024-02-29'", "2024-02-29"}, {"'0000-00-00'", Null}, {"'2020-00-15'", Null}, {"'9999-12-31'", "9999-12-31"}}},
	{Name: "dtn", DDL: "DATE NOT NULL", Values: [][2]string{{"'0000-00-00'", "-infinity"}, {"'2020-05-00'", "-infinity"}, {"'1000-01-01'", "1000-01-01"}, {"'2000-01-01'", "2000-01-01"}}},
	{Name: "dtd", DDL: "DATE NOT NULL DEFAULT '2000-01-01'", Values: [][2]string{{"'0000-00-00'", "-infinity"}, {"'2020-05-00'", "-infinity"}, {"'1000-01-01'", "1000-01-01"}, {"'2000-01-01'", "2000-01-01"}}},
	{Name: "dt6", DDL: "DATETIME(6)", Values: [][2]string{
		{"'2020-01-02 03:04:05.123456'", "2020-01-02 03:04:05.123456"},
		{"'9999-12-31 23:59:59.999999'", "9999-12-31 23:59:59.999999"},
		{"'1000-01-01 00:00:00'", "1000-01-01 00:00:00"},
		{"'0000-00-00 00:00:00.000000'", Null},
	}},
	{Name: "dt0", DDL: "DATETIME", Values: [][2]string{{"'2020-00-15 01:02:03'", Null}, {"'2001-02-03 04:05:06'", "2001-02-03 04:05:06"}}},
	{Name: "ts6", DDL: "TIMESTAMP(6) NULL", Values: [][2]string{
		{"'1970-01-01 00:00:01.000001'", "1970-01-01 00:00:01.000001+00"},
		{"'2038-01-19 03:14:07.999999'", "2038-01-19 03:14:07.999999+00"},
		{"'0000-00-00 00:00:00'", Null},
	}},
	{Name: "tsn", DDL: "TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00'", Values: [][2]string{
		{"'0000-00-00 00:00:00'", "-infinity"}, {"'2001-02-03 04:05:06'", "2001-02-03 04:05:06+00"},
		{"'2000-01-01 00:00:00'", "2000-01-01 00:00:00+00"}, {"'2020-06-30 23:59:59'", "2020-06-30 23:59:59+00"},
	}},
	{Name: "tm6", DDL: "TIME(6)", Values: [][2]string{
		{"'-838:59:59.000000'", "-838:59:59"}, {"'838:59:59'", "838:59:59"},
		{"'-00:00:00.5'", "-00:00:00.5"}, {"'12:34:56.000001'", "12:34:56.000001"},
	}},
	{Name: "tm1", DDL: "TIME(1)", Values: [][2]string{{"'-00:00:01.1'", "-00:00:01.1"}, {"'838:59:59.9'", "838:59:59.9"}}},
	{Name: "vc", DDL: "VARCHAR(20) CHARACTER SET utf8mb4", Values: [][2]string{{"''", ""}, {"'ab  '", "ab  "}, {"'😀 four bytes'", "😀 four bytes"}}},
	{Name: "lat", DDL: "VARCHAR(10) CHARACTER SET latin1", Values: [][2]string{{"'é€ÿ'", "é€ÿ"}, {"''", ""}, {"x'81'", "\u0081"}}},
	{Name: "ch", DDL: "CHAR(5) CHARACTER SET latin1", Values: [][2]string{{"'ab  '", "ab"}, {"'é€'", "é€"}, {"x'81'", "\u0081"}, {"'é'", "é"}}},
	{Name: "tx", DDL: "TEXT CHARACTER SET utf8mb4", Values: [][2]string{{"'a\\0b'", "ab"}, {"REPEAT('x', 1000)", strings.Repeat("x", 1000)}, {"''", ""}}},
	{Name: "t16", DDL: "TEXT CHARACTER SET utf16", Values: [][2]string{{"'a😀'", "a😀"}}},
	{Name: "c16", DDL: "CHAR(4) CHARACTER SET utf16", Values: [][2]string{{"'ab  '", "ab"}, {"'😀'", "😀"}}},
	{Name: "tsj", DDL: "VARCHAR(10) CHARACTER SET sjis", Values: [][2]string{{"'日本'", "日本"}, {"'ｱ\\\\'", "ｱ\\"}}},
	{Name: "tis", DDL: "VARCHAR(10) CHARACTER SET tis620", Values: [][2]string{{"'ภาษาไทย'", "ภาษาไทย"}}},
	{Name: "uj", DDL: "VARCHAR(10) CHARACTER SET ujis", Values: [][2]string{{"'丂日本'", "丂日本"}}},
	{Name: "gr", DDL: "VARCHAR(10) CHARACTER SET greek", Values: [][2]string{{"'αβγ'", "αβγ"}}},
	{Name: "b5", DDL: "TEXT CHARACTER SET big5", Values: [][2]string{{"'中文'", "中文"}}},
	{Name: "bn", DDL: "BINARY(4)", Values: [][2]string{{"'a\\0'", `\x61000000`}, {"x'00000000'", `\x00000000`}, {"x'00ff0001'", `\x00ff0001`}}},
	{Name: "vb", DDL: "VARBINARY(10)", Values: [][2]string{{"x'00ff00'", `\x00ff00`}, {"''", `\x`}, {"x'6100'", `\x6100`}}},
	{Name: "lb", DDL: "LONGBLOB", Values: [][2]string{{"x'610062'", `\x610062`}, {"REPEAT(x'00ff', 100000)", `\x` + longBlob}}},
	{Name: "en", DDL: "ENUM('a','b','ü')", Values: [][2]string{{"'zz'", ""}, {"'ü'", "ü"}, {"'a'", "a"}}},
	{Name: "st", DDL: "SET('x','y','z')", Values: [][2]string{{"''", ""}, {"'x,z'", "x,z"}, {"'z,y,x'", "x,y,z"}}},
	// MariaDB's JSON is LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin
	// CHECK (json_valid(j)); PostgreSQL's jsonb text sorts the keys.
	{Name: "j", DDL: "JSON", Values: [][2]string{
		{`'{"b": {"c": null}, "a": [1, "ü😀", {"d": [true, 1.5]}]}'`, `{"a": [1, "ü😀", {"d": [true, 1.5]}], "b": {"c": null}}`},
		{`'[]'`, `[]`},
		{`'"\\u0000x"'`, `"x"`},
		{`'{"b": {"c": null}, "a": [1, "ü😀"]}'`, `{"a": [1, "ü😀"], "b": {"c": null}}`},
	}},
	// MariaDB's geometry value is the SRID (4 bytes, little endian) and the WKB.
	{Name: "g", DDL: "GEOMETRY", Values: [][2]string{
		{"ST_GeomFromText('POINT(1 2)', 4326)", `\xe61000000101000000000000000000f03f0000000000000040`},
		{"ST_GeomFromText('LINESTRING(0 0, 1 1, 2 5)')", `\x00000000010200000003000000` +
			"00000000000000000000000000000000" + "000000000000f03f000000000000f03f" + "00000000000000400000000000001440"},
	}, PostGIS: []string{
		"0101000020e6100000000000000000f03f0000000000000040",
		"010200000003000000" +
			"00000000000000000000000000000000" + "000000000000f03f000000000000f03f" + "00000000000000400000000000001440",
	}},
	{Name: "u", DDL: "UUID", Values: [][2]string{
		{"'123e4567-e89b-12d3-a456-426655440000'", "123e4567-e89b-12d3-a456-426655440000"},
		{"'ffffffff-ffff-1fff-bfff-ffffffffffff'", "ffffffff-ffff-1fff-bfff-ffffffffffff"},
		{"'00000000-0000-0000-0000-000000000000'", "00000000-0000-0000-0000-000000000000"},
	}},
	{Name: "i4", DDL: "INET4", Values: [][2]string{{"'1.2.0.0'", "1.2.0.0"}, {"'255.255.255.255'", "255.255.255.255"}, {"'0.0.0.0'", "0.0.0.0"}}},
	{Name: "i6", DDL: "INET6", Values: [][2]string{{"'::ffff:1.2.3.4'", "::ffff:1.2.3.4"}, {"'2001:db8::'", "2001:db8::"}, {"'::'", "::"}}},
	{Name: "gv", DDL: "INT AS (si + 1) VIRTUAL", Values: [][2]string{{"", "-32767"}, {"", "32768"}}},
	{Name: "gs", DDL: "VARCHAR(30) AS (CONCAT(vc, '-')) STORED", Values: [][2]string{{"", "-"}, {"", "ab  -"}, {"", "😀 four bytes-"}}},
	{Name: "hid", DDL: "INT INVISIBLE", Values: [][2]string{{"7", "7"}}},
}
