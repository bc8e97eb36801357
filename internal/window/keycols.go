package window

import (
	"fmt"
	"strings"

	"github.com/sluice-db/sluice/internal/schema"
)

// intBits are the integer types' widths.
var intBits = map[string]uint{"tinyint": 8, "smallint": 16, "mediumint": 24, "int": 32, "integer": 32, "bigint": 64}

// KeyColumnsOf is the key a table is copied by (Table.KeyColumns: the
// primary key, or a NOT NULL unique key), as positions in its row images
// (Table.Columns order). It refuses a table without one, and a key whose
// values Key cannot recognise alike in the chunk's text and the binlog's
// values, with the reason for the message that names the way on.
func KeyColumnsOf(t *schema.Table) ([]KeyColumn, error) {
	names := t.KeyColumns()
	if len(names) == 0 {
		return nil, fmt.Errorf("table %s has no primary key and no NOT NULL unique key to copy it by in chunks", t.TableID)
	}
	cols := make([]KeyColumn, 0, len(names))
	for _, n := range names {
		i := t.ColumnIndex(n)
		if i < 0 {
			return nil, fmt.Errorf("table %s: key column %s is not among its columns", t.TableID, n)
		}
		c := t.Columns[i]
		kc := KeyColumn{Index: i, Unsigned: c.Unsigned}
		switch dt := strings.ToLower(c.DataType); dt {
		case "tinyint", "smallint", "mediumint", "int", "integer", "bigint":
			kc.Integer, kc.Bits = true, intBits[dt]
		case "char", "varchar", "binary", "varbinary":
			if cs := strings.ToLower(c.Charset); cs != "" && cs != "utf8mb4" && cs != "ascii" && cs != "binary" {
				return nil, fmt.Errorf("table %s: key column %s is text in %s; the online copy compares keys in utf8mb4, ascii or binary only", t.TableID, n, cs)
			}
		default:
			return nil, fmt.Errorf("table %s: key column %s is %s; the online copy compares integer or text keys only", t.TableID, n, dt)
		}
		cols = append(cols, kc)
	}
	return cols, nil
}
