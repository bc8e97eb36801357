// Package bltest holds test data shared by the binlog and replicate
// integration tests: a table with every MySQL/MariaDB type and its edge
// values.
package bltest

import (
	"fmt"
	"strings"
)

// TypeCase is one source column and the SQL literals inserted into rows
// 1, 2, ... (rows beyond the list hold NULL). The corpus follows the
// snapshot's and typemap's type tests: every type family with its edges.
// The column "types.id" is the primary key; generated columns have no values.
type TypeCase struct {
	Name, DDL string
	Values    []string
}

var TypeCases = []TypeCase{
	{"ti", "TINYINT", []string{"-128", "127", "0"}},
	{"tb", "TINYINT(1)", []string{"82", "1", "0"}},
	{"tu", "TINYINT UNSIGNED", []string{"255", "0"}},
	{"si", "SMALLINT", []string{"-32768", "32767"}},
	{"su", "SMALLINT UNSIGNED", []string{"65535", "0"}},
	{"mi", "MEDIUMINT", []string{"-8388608", "8388607"}},
	{"mu", "MEDIUMINT UNSIGNED", []string{"16777215", "0"}},
	{"i", "INT", []string{"-2147483648", "2147483647"}},
	{"iu", "INT UNSIGNED", []string{"4294967295", "0"}},
	{"iz", "INT(5) ZEROFILL", []string{"42"}},
	{"bi", "BIGINT", []string{"-9223372036854775808", "9223372036854775807"}},
	{"bu", "BIGINT UNSIGNED", []string{"18446744073709551615", "0"}},
	{"d65", "DECIMAL(65,30)", []string{"99999999999999999999999999999999999.999999999999999999999999999999",
		"-99999999999999999999999999999999999.999999999999999999999999999999", "0.000000000000000000000000000001", "0"}},
	{"d52", "DECIMAL(5,2)", []string{"-999.99", "1.5"}},
	{"f", "FLOAT", []string{"0.1", "123456789", "3.4028234e38", "-1.17549435e-38"}},
	{"f73", "FLOAT(7,3)", []string{"1.2345"}},
	{"db", "DOUBLE", []string{"0.1e0+0.2e0", "5e-324", "1.7976931348623157e308", "1e0/3"}},
	{"b1", "BIT(1)", []string{"b'1'", "b'0'"}},
	{"b10", "BIT(10)", []string{"b'1000000001'"}},
	{"b64", "BIT(64)", []string{"b'" + strings.Repeat("1", 64) + "'", "1"}},
	{"y", "YEAR", []string{"0", "2155", "1901"}},
	{"dt", "DATE", []string{"'2024-02-29'", "'0000-00-00'", "'2020-00-15'", "'9999-12-31'"}},
	{"dtn", "DATE NOT NULL DEFAULT '2000-01-01'", []string{"'0000-00-00'", "'2020-05-00'", "'1000-01-01'", "'2000-01-01'"}},
	{"dt6", "DATETIME(6)", []string{"'2020-01-02 03:04:05.123456'", "'9999-12-31 23:59:59.999999'", "'1000-01-01 00:00:00'", "'0000-00-00 00:00:00.000000'"}},
	{"dt0", "DATETIME", []string{"'2020-00-15 01:02:03'", "'2001-02-03 04:05:06'"}},
	{"ts6", "TIMESTAMP(6) NULL", []string{"'1970-01-01 00:00:01.000001'", "'2038-01-19 03:14:07.999999'", "'0000-00-00 00:00:00'"}},
	{"tsn", "TIMESTAMP NOT NULL DEFAULT '2000-01-01 00:00:00'", []string{"'0000-00-00 00:00:00'", "'2001-02-03 04:05:06'", "'2000-01-01 00:00:00'", "'2020-06-30 23:59:59'"}},
	{"tm6", "TIME(6)", []string{"'-838:59:59.000000'", "'838:59:59'", "'-00:00:00.5'", "'12:34:56.000001'"}},
	{"tm1", "TIME(1)", []string{"'-00:00:01.1'", "'838:59:59.9'"}},
	{"vc", "VARCHAR(20) CHARACTER SET utf8mb4", []string{"''", "'ab  '", "'😀 four bytes'"}},
	{"ch", "CHAR(5) CHARACTER SET latin1", []string{"'ab  '", "'é€'", "x'81'"}},
	{"tx", "TEXT CHARACTER SET utf8mb4", []string{"'a\\0b'", "REPEAT('x', 1000)"}},
	{"t16", "TEXT CHARACTER SET utf16", []string{"'a😀'"}},
	{"tsj", "VARCHAR(10) CHARACTER SET sjis", []string{"'日本'", "'ｱ\\\\'"}},
	{"gr", "VARCHAR(10) CHARACTER SET greek", []string{"'αβγ'"}},
	{"b5", "TEXT CHARACTER SET big5", []string{"'中文'"}},
	{"bn", "BINARY(4)", []string{"'a\\0'", "x'00000000'", "x'00ff0001'"}},
	{"vb", "VARBINARY(10)", []string{"x'00ff00'", "''"}},
	{"lb", "LONGBLOB", []string{"x'610062'", "REPEAT(x'00ff', 100000)"}},
	{"en", "ENUM('a','b','ü')", []string{"'zz'", "'ü'", "'a'"}},
	{"st", "SET('x','y','z')", []string{"''", "'x,z'", "'z,y,x'"}},
	{"j", "JSON", []string{`'{"b": {"c": null}, "a": [1, "ü😀", {"d": [true, 1.5]}]}'`, `'[]'`, `'"\\u0000x"'`}},
	{"g", "GEOMETRY", []string{"ST_GeomFromText('POINT(1 2)', 4326)", "ST_GeomFromText('LINESTRING(0 0, 1 1, 2 5)')"}},
	{"u", "UUID", []string{"'123e4567-e89b-12d3-a456-426655440000'", "'00000000-0000-0000-0000-000000000000'"}},
	{"i4", "INET4", []string{"'1.2.0.0'", "'255.255.255.255'"}},
	{"i6", "INET6", []string{"'::ffff:1.2.3.4'", "'2001:db8::'", "'::'"}},
	{"gv", "INT AS (si + 1) VIRTUAL", nil},
	{"gs", "VARCHAR(30) AS (CONCAT(vc, '-')) STORED", nil},
	{"hid", "INT INVISIBLE", []string{"7"}},
}

// TypeRows is the number of rows TypesInsert writes (ids 1..TypeRows).
const TypeRows = 4

// TypesDDL creates table "types" with an id and one column per case.
func TypesDDL() string {
	cols := []string{"id INT PRIMARY KEY"}
	for _, c := range TypeCases {
		cols = append(cols, c.Name+" "+c.DDL)
	}
	return "CREATE TABLE types (" + strings.Join(cols, ", ") + ")"
}

// TypesInsert inserts TypeRows rows of edge values (run it with sql_mode ”,
// which stores zero dates and out-of-range literals as MySQL does).
func TypesInsert() string {
	var names []string
	for _, c := range TypeCases {
		if c.Values != nil {
			names = append(names, c.Name)
		}
	}
	var rows []string
	for r := 0; r < TypeRows; r++ {
		vals := []string{fmt.Sprint(r + 1)}
		for _, c := range TypeCases {
			if c.Values == nil {
				continue
			}
			v := "NULL"
			if r < len(c.Values) {
				v = c.Values[r]
			}
			if v == "NULL" && strings.Contains(c.DDL, "NOT NULL") {
				v = "DEFAULT"
			}
			vals = append(vals, v)
		}
		rows = append(rows, "("+strings.Join(vals, ", ")+")")
	}
	return "INSERT INTO types (id, " + strings.Join(names, ", ") + ") VALUES " + strings.Join(rows, ", ")
}
