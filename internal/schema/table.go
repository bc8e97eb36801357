// Package schema is the one table model shared by snapshot, binlog decoding,
// DDL replication and verify. It is filled either from information_schema
// (bootstrap, see load.go) or from parsed DDL (schema history), and both must
// produce the same Column for the same MySQL column definition.
package schema

import "strings"

// TableID names a table on the source: MySQL database + table name.
type TableID struct {
	Database string
	Name     string
}

func (id TableID) String() string { return id.Database + "." + id.Name }

// Table is one source table as MySQL/MariaDB defines it.
type Table struct {
	TableID
	Columns     []Column
	PrimaryKey  []string // column names in key order; empty when the table has none
	Indexes     []Index  // unique and secondary indexes, not the primary key
	ForeignKeys []ForeignKey
	Checks      []Check
	Comment     string
	Engine      string
	Collation   string
	// AutoIncrement is the next AUTO_INCREMENT value MySQL will hand out (0 if unknown).
	AutoIncrement uint64
	// LeftOut says why a table in scope is not replicated (its CREATE TABLE
	// was skipped with --skip-ddl, so the target has no such table): its
	// rows and later DDL are passed over. Empty for replicated tables.
	LeftOut string `json:",omitempty"`
	// TargetOrder is the target table's column order when it differs from
	// Columns' (a PostgreSQL target cannot reorder columns after FIRST or
	// AFTER on the source); recorded in the schema history by the
	// PostgreSQL sink, read by status. Nil when the orders agree.
	TargetOrder []string `json:",omitempty"`
}

// Column is one column with everything type mapping needs. Field meanings
// follow information_schema.COLUMNS so both loaders agree on them.
type Column struct {
	Name     string
	Ordinal  int    // 1-based position, as ORDINAL_POSITION
	DataType string // lower-case base type: "int", "varchar", "enum", "json", "datetime", ...
	// ColumnType is the full MySQL type text, e.g. "int(10) unsigned", "enum('a','b')".
	ColumnType string
	Unsigned   bool
	Zerofill   bool
	Nullable   bool
	// Default is the column default as MariaDB shows it in information_schema:
	// string and temporal literals quoted with QuoteLiteral ("'abc'", "'it''s'"),
	// numbers bare ("1.50"), bits as b'101', expressions formatted by
	// CanonicalExpr ("current_timestamp()", "current_timestamp(3)", "uuid()").
	// nil when the column has no default or defaults to NULL (a string
	// default 'NULL' is "'NULL'"). MySQL's unquoted spellings are converted.
	Default           *string
	AutoIncrement     bool
	OnUpdateCurrentTS bool   // ON UPDATE CURRENT_TIMESTAMP
	GenerationExpr    string // non-empty for generated columns; formatted by CanonicalExpr
	GeneratedStored   bool   // STORED (true) or VIRTUAL (false)
	CharMaxLength     int64  // characters for text types, bytes for binary types
	Precision         int    // DECIMAL precision, BIT width, FLOAT/DOUBLE precision when given
	Scale             int    // DECIMAL scale
	FracDigits        int    // DATETIME/TIMESTAMP/TIME fractional seconds precision (0..6)
	Charset           string // "utf8mb4", "latin1", "binary", ... empty for non-text
	Collation         string
	Elements          []string // ENUM or SET members in definition order
	// IsJSON is true for MySQL 8 JSON and for MariaDB's JSON alias
	// (LONGTEXT with a json_valid() CHECK).
	IsJSON  bool
	Comment string
	// Invisible columns (MariaDB INVISIBLE / MySQL 8 INVISIBLE) are still copied.
	Invisible bool
}

// Index is a unique or secondary index.
type Index struct {
	Name    string
	Unique  bool
	Kind    string // "BTREE", "HASH", "FULLTEXT", "SPATIAL"
	Columns []IndexColumn
	Comment string
}

// IndexColumn is one part of an index key.
type IndexColumn struct {
	Name       string // column name; empty for functional key parts
	SubPart    int    // prefix length in characters/bytes; 0 for the whole column
	Desc       bool
	Expression string // functional key part (MySQL 8), else empty
}

// ForeignKey is a FOREIGN KEY constraint.
type ForeignKey struct {
	Name        string
	Columns     []string
	RefDatabase string
	RefTable    string
	RefColumns  []string
	OnUpdate    string // "RESTRICT", "CASCADE", "SET NULL", "NO ACTION", "SET DEFAULT"
	OnDelete    string
}

// Check is a CHECK constraint.
type Check struct {
	Name string
	Expr string // formatted by CanonicalExpr
}

// IsSpatial says whether the column is of a spatial type (GEOMETRY and its
// subtypes; MySQL's GEOMCOLLECTION spelling too).
func (c Column) IsSpatial() bool {
	switch strings.ToLower(c.DataType) {
	case "geometry", "point", "linestring", "polygon", "multipoint", "multilinestring", "multipolygon",
		"geometrycollection", "geomcollection":
		return true
	}
	return false
}

// Column returns the column with the given name (case-insensitive, as MySQL
// column names are) or nil.
func (t *Table) Column(name string) *Column {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return &t.Columns[i]
		}
	}
	return nil
}

// ColumnIndex returns the position of the named column in Columns or -1.
func (t *Table) ColumnIndex(name string) int {
	for i := range t.Columns {
		if strings.EqualFold(t.Columns[i].Name, name) {
			return i
		}
	}
	return -1
}

// KeyColumns returns the columns that identify a row: the primary key, or
// else the first unique index whose columns are all NOT NULL and not prefixes.
// It returns nil when the table has no such key.
func (t *Table) KeyColumns() []string {
	if len(t.PrimaryKey) > 0 {
		return t.PrimaryKey
	}
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		ok := true
		names := make([]string, 0, len(ix.Columns))
		for _, ic := range ix.Columns {
			c := t.Column(ic.Name)
			if ic.Name == "" || ic.SubPart > 0 || c == nil || c.Nullable {
				ok = false
				break
			}
			names = append(names, c.Name)
		}
		if ok && len(names) > 0 {
			return names
		}
	}
	return nil
}

// UniqueKeys returns the column sets of the primary key and every unique
// index (nullable columns included): the keys on which two row changes can
// conflict, as the parallel apply's causality detection needs them.
func (t *Table) UniqueKeys() [][]string {
	var keys [][]string
	if len(t.PrimaryKey) > 0 {
		keys = append(keys, t.PrimaryKey)
	}
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		var names []string
		for _, ic := range ix.Columns {
			if ic.Name != "" {
				names = append(names, ic.Name)
			}
		}
		if len(names) > 0 {
			keys = append(keys, names)
		}
	}
	return keys
}

// UniqueKeyColumns returns the indexes of the columns of every unique key
// (primary key included), each once, and false when some unique index has
// an expression part (its inputs are unknown, so no update can be shown not
// to touch it). The sinks batch only updates that leave these unchanged.
func (t *Table) UniqueKeyColumns() ([]int, bool) {
	seen := map[int]bool{}
	var out []int
	add := func(name string) bool {
		i := t.ColumnIndex(name)
		if i < 0 {
			return false
		}
		if !seen[i] {
			seen[i] = true
			out = append(out, i)
		}
		return true
	}
	for _, name := range t.PrimaryKey {
		if !add(name) {
			return nil, false
		}
	}
	for _, ix := range t.Indexes {
		if !ix.Unique || ix.Kind == "FULLTEXT" || ix.Kind == "SPATIAL" {
			continue
		}
		for _, ic := range ix.Columns {
			if ic.Name == "" || !add(ic.Name) {
				return nil, false
			}
		}
	}
	return out, true
}

// TargetOrderText is "source (a, b, c) target (a, c, b)" when the target's
// column order differs (TargetOrder), else "".
func (t *Table) TargetOrderText() string {
	if len(t.TargetOrder) == 0 {
		return ""
	}
	src := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		src[i] = c.Name
	}
	return "source (" + strings.Join(src, ", ") + ") target (" + strings.Join(t.TargetOrder, ", ") + ")"
}

// TableNames are the tables' names (without their databases).
func TableNames(ts []*Table) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}
