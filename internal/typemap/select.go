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
//
// Every other type is selected as is: MariaDB prints DOUBLE exactly and
// returns BIT, BINARY, GEOMETRY, UUID and INET values in a form FromText
// parses. The result is an expression without an alias, usable in a select
// list or inside other expressions.
func SelectExpr(c schema.Column, quotedName string) string {
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
