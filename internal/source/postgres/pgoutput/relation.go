package pgoutput

import (
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pglogrepl"

	"github.com/sluice-db/sluice/internal/schema"
)

// PostgreSQL type OIDs the forward type mapping (internal/typemap) produces.
const (
	oidBool        = 16
	oidBytea       = 17
	oidInt8        = 20
	oidInt2        = 21
	oidInt4        = 23
	oidText        = 25
	oidJSON        = 114
	oidFloat4      = 700
	oidFloat8      = 701
	oidBpchar      = 1042
	oidVarchar     = 1043
	oidDate        = 1082
	oidTimestamp   = 1114
	oidTimestamptz = 1184
	oidInterval    = 1186
	oidBit         = 1560
	oidVarbit      = 1562
	oidNumeric     = 1700
	oidJSONB       = 3802
	oidUUID        = 2950
	oidInet        = 869
)

// pgTypes are the PostgreSQL types a MySQL column may have on the way back:
// what the forward mapping made of it, or a widening of the same family.
// Anything else means the table was changed on PostgreSQL (DDL is not in
// logical decoding), and the values could not be mapped back exactly.
func pgTypes(c schema.Column) []uint32 {
	ints := []uint32{oidInt2, oidInt4, oidInt8, oidNumeric}
	switch c.DataType {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint", "year":
		return ints
	case "decimal", "numeric":
		return []uint32{oidNumeric}
	case "float":
		return []uint32{oidFloat4}
	case "double", "real":
		return []uint32{oidFloat8}
	case "bit":
		return []uint32{oidBit, oidVarbit}
	case "date":
		return []uint32{oidDate}
	case "datetime":
		return []uint32{oidTimestamp}
	case "timestamp":
		return []uint32{oidTimestamptz}
	case "time":
		return []uint32{oidInterval}
	case "json":
		return []uint32{oidJSONB, oidJSON}
	case "uuid":
		return []uint32{oidUUID}
	case "inet4", "inet6":
		return []uint32{oidInet}
	case "enum", "set", "char", "varchar", "tinytext", "text", "mediumtext", "longtext":
		if c.IsJSON {
			return []uint32{oidJSONB, oidJSON}
		}
		return []uint32{oidText, oidVarchar, oidBpchar}
	}
	return []uint32{oidBytea}
}

// relation is a published PostgreSQL table and how its tuples become rows
// of the MySQL table it came from.
type relation struct {
	msg   *pglogrepl.RelationMessage
	table *schema.Table // the MySQL target table (its own definition)
	// col[i] is the index in table.Columns of the relation's column i.
	col   []int
	convs []conv // by relation column
	// key are the table.Columns indexes of the primary key (for messages).
	key []int
	// uniqueOther: the table has a unique key besides the primary key, so
	// its before images must be whole (REPLICA IDENTITY FULL).
	uniqueOther bool
}

// newRelation matches a Relation message with the MySQL table it names
// (under the forward stream's naming) and checks that its columns and types
// are those the stream knows; a PostgreSQL column is the MySQL column that
// naming gives its name.
func newRelation(m *pglogrepl.RelationMessage, t *schema.Table, naming schema.Naming) (*relation, error) {
	name := m.Namespace + "." + m.RelationName
	idx := map[string]int{}
	for i, c := range t.Columns {
		idx[naming.Column(t.TableID, c.Name)] = i
	}
	r := &relation{msg: m, table: t, col: make([]int, len(m.Columns)), convs: make([]conv, len(m.Columns))}
	seen := map[int]bool{}
	var problems []string
	for i, rc := range m.Columns {
		j, ok := idx[rc.Name]
		if !ok {
			problems = append(problems, fmt.Sprintf("column %s is not in the MySQL table", rc.Name))
			continue
		}
		c := t.Columns[j]
		if c.GenerationExpr != "" {
			// The MySQL server computes it: the value from PostgreSQL is not written.
			r.col[i] = -1
			seen[j] = true
			continue
		}
		if !slices.Contains(pgTypes(c), rc.DataType) {
			problems = append(problems, fmt.Sprintf("column %s has PostgreSQL type oid %d, not one the MySQL type %s maps to", rc.Name, rc.DataType, c.ColumnType))
			continue
		}
		cv, err := convOf(c)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		r.col[i], r.convs[i] = j, cv
		seen[j] = true
	}
	for j, c := range t.Columns {
		if !seen[j] && c.GenerationExpr == "" {
			problems = append(problems, fmt.Sprintf("column %s of the MySQL table is not in the PostgreSQL table", c.Name))
		}
	}
	if len(problems) > 0 {
		return nil, fmt.Errorf("table %s on PostgreSQL no longer matches %s.%s on MySQL (schema changes on PostgreSQL are not replicated back): %s; "+
			"change the MySQL table the same way (or undo the change) and start the reverse stream again",
			name, t.Database, t.Name, strings.Join(problems, "; "))
	}
	for _, k := range t.PrimaryKey {
		r.key = append(r.key, idx[naming.Column(t.TableID, k)])
	}
	for _, ix := range t.Indexes {
		if ix.Unique {
			r.uniqueOther = true
		}
	}
	return r, nil
}

// sameShape reports what differs between two Relation messages of one
// table ("" when nothing does).
func sameShape(a, b *pglogrepl.RelationMessage) string {
	if a.Namespace != b.Namespace || a.RelationName != b.RelationName {
		return fmt.Sprintf("renamed from %s.%s to %s.%s", a.Namespace, a.RelationName, b.Namespace, b.RelationName)
	}
	old := map[string]*pglogrepl.RelationMessageColumn{}
	for _, c := range a.Columns {
		old[c.Name] = c
	}
	var diffs []string
	seen := map[string]bool{}
	for _, c := range b.Columns {
		seen[c.Name] = true
		o, ok := old[c.Name]
		switch {
		case !ok:
			diffs = append(diffs, "column "+c.Name+" added")
		case o.DataType != c.DataType || o.TypeModifier != c.TypeModifier:
			diffs = append(diffs, fmt.Sprintf("column %s changed type (oid %d modifier %d → oid %d modifier %d)",
				c.Name, o.DataType, o.TypeModifier, c.DataType, c.TypeModifier))
		}
	}
	for _, c := range a.Columns {
		if !seen[c.Name] {
			diffs = append(diffs, "column "+c.Name+" dropped")
		}
	}
	if len(diffs) == 0 && len(a.Columns) == len(b.Columns) {
		for i := range a.Columns {
			if a.Columns[i].Name != b.Columns[i].Name {
				diffs = append(diffs, "columns reordered")
				break
			}
		}
	}
	return strings.Join(diffs, ", ")
}
