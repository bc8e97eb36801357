package typemap

import (
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// SelectExpr returns the expression the snapshot and verify readers must
// select for a column (quotedName is the column's quoted identifier) so
// that FromText sees the exact stored value:
//
//   - FLOAT: MariaDB prints FLOAT with 6 significant digits (123456789 is
//     stored as 123456792 and printed as 123457000). CAST(col AS DOUBLE)
//     prints the shortest decimal that reads back as the same double, which
//     rounds back to the same float32, bit-identical to the binlog's bytes.
//   - DOUBLE(M,D) and FLOAT(M,D): printed rounded to D decimals; the cast
//     prints the stored double instead.
//   - Text and JSON columns in a charset other than utf8mb4/utf8mb3: the
//     server would convert them to utf8mb4 and silently print '?' for bytes
//     it cannot convert. CAST(col AS BINARY) returns the stored bytes, which
//     FromText decodes with the same table as the binlog path, so both paths
//     agree and invalid bytes are an error on both.
//
// Every other type is selected as is: MariaDB prints DOUBLE exactly and
// returns BIT, BINARY, GEOMETRY, UUID and INET values in a form FromText
// parses. The result is an expression without an alias, usable in a select
// list or inside other expressions.
func SelectExpr(c schema.Column, quotedName string) string {
	if needsRawBytes(c) {
		return "CAST(" + quotedName + " AS BINARY)"
	}
	switch dataType(c) {
	case "float":
		return "CAST(" + quotedName + " AS DOUBLE)"
	case "double":
		if strings.Contains(c.ColumnType, "(") {
			return "CAST(" + quotedName + " AS DOUBLE)"
		}
	}
	return quotedName
}

// needsRawBytes reports whether a column is text in a charset other than
// UTF-8, which FromText expects as raw bytes.
func needsRawBytes(c schema.Column) bool {
	if isUTF8Charset(c.Charset) || dataType(c) == "json" {
		return false
	}
	switch dataType(c) {
	case "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		return true
	}
	return c.IsJSON
}
